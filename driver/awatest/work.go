package awatest

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/awa-queue/awa/driver"
)

// JobTimeout bounds a handler run by Work and WorkJob unless its worker has a
// Timeout of its own; it is driver.Config's default JobTimeout.
const JobTimeout = time.Minute

// Result is how a job run by Work or WorkJob ended, after its finalizer.
type Result struct {
	JobID int64
	// Attempt is the attempt that ran (1 for the first).
	Attempt int
	// Event is the job outcome event the Client would send: job_completed,
	// job_retried, job_snoozed, job_cancelled or job_failed.
	Event driver.EventKind
	// State is the job's state afterwards, as the finalizer reports it:
	// completed, retryable, scheduled (snoozed), cancelled or failed.
	State driver.JobState
	// Error is the error or reason recorded with a retry, cancel or failure.
	Error string
	// SnoozedUntil is when a snoozed job runs again.
	SnoozedUntil time.Time
}

// Work inserts a job of args with opts on db and runs it at once through the
// worker that workers holds for its kind, as WorkJob does. The job's queue
// must hold no other ready job ahead of it.
func Work[T driver.JobArgs](ctx context.Context, t TB, db driver.DBTX, workers *driver.Workers, args T, opts *driver.InsertOpts) Result {
	t.Helper()
	raw, err := json.Marshal(args)
	if err != nil {
		t.Fatalf("awatest: encode args of kind %q: %v", args.Kind(), err)
		return Result{}
	}
	p := driver.InsertParams{Kind: args.Kind(), Args: raw}
	if opts != nil {
		p.Opts = *opts
	}
	job, err := driver.New().Insert(ctx, db, p)
	if err != nil {
		t.Fatalf("awatest: %v", err)
		return Result{}
	}
	return WorkJob(ctx, t, db, workers, job)
}

// WorkJob claims job from its queue on db and runs it synchronously through
// the worker that workers holds for its kind, with the Client runtime's
// contract (driver.Driver.Work): nil completes it, an error or a panic
// retries it, JobSnooze, JobCancel and JobFail do what they say, an unknown
// kind or undecodable args fail it. The claim, the handler and the finalizer
// run on db: a pgx.Tx keeps all of it in the test's transaction (at READ
// COMMITTED, as claims require). The test fails when job is not the next
// ready job of its queue (it must be available, and first in line).
func WorkJob(ctx context.Context, t TB, db driver.DBTX, workers *driver.Workers, job driver.InsertedJob) Result {
	t.Helper()
	d := driver.New()
	claimed, err := d.Claim(ctx, db, job.Queue, 1, [16]byte{}, 0)
	if err != nil {
		t.Fatalf("awatest: %v", err)
		return Result{}
	}
	if len(claimed) == 0 || claimed[0].JobID != job.ID {
		got := "nothing"
		if len(claimed) > 0 {
			got = fmt.Sprintf("job %d (kind %q), which is now left running", claimed[0].JobID, claimed[0].Kind)
		}
		t.Fatalf("awatest: job %d (kind %q, state %s at insert) is not the next ready job of queue %q: its claim took %s. "+
			"Work a job that is available, in a queue holding no other ready job ahead of it", job.ID, job.Kind, job.State, job.Queue, got)
		return Result{}
	}
	res, err := d.Work(ctx, db, workers, claimed[0], JobTimeout)
	if err != nil {
		t.Fatalf("awatest: finalize job %d: %v", job.ID, err)
		return Result{}
	}
	if res.Result.Outcome != driver.Applied {
		t.Fatalf("awatest: finalizing job %d was %s: its attempt was closed meanwhile", job.ID, res.Result.Outcome)
		return Result{}
	}
	return Result{JobID: job.ID, Attempt: claimed[0].Attempt, Event: res.Event, State: res.Result.State,
		Error: res.Error, SnoozedUntil: res.SnoozedUntil}
}
