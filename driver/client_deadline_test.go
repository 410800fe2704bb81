package driver_test

// Per-attempt deadlines (issue 8): a job whose WorkerTimeout, for its args,
// outlasts its claim's deadline gets a deadline of its own before it runs; a
// handler moves its attempt's deadline with JobRow.SetDeadline, and its
// context follows. The maintenance leader's deadline rescue enforces both.

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/awa-queue/awa/driver"
)

// argsTimeoutArgs carries its job's timeout: the worker's Timeout depends on
// the args, so NewClient cannot know it.
type argsTimeoutArgs struct {
	TimeoutMS int `json:"timeout_ms"`
	RunMS     int `json:"run_ms"`
}

func (argsTimeoutArgs) Kind() string { return "args_timeout_kind" }

// argsTimeoutWorker runs for RunMS unless its context ends first, and
// records what it saw of its context.
type argsTimeoutWorker struct {
	mu   sync.Mutex
	seen map[int64]handlerSaw
}

type handlerSaw struct {
	start, deadline time.Time
	err             error // ctx.Err() when the handler returned (nil: ran to the end)
}

func (w *argsTimeoutWorker) Timeout(j *driver.Job[argsTimeoutArgs]) time.Duration {
	return time.Duration(j.Args.TimeoutMS) * time.Millisecond
}

func (w *argsTimeoutWorker) Work(ctx context.Context, j *driver.Job[argsTimeoutArgs]) error {
	saw := handlerSaw{start: time.Now()}
	saw.deadline, _ = ctx.Deadline()
	select {
	case <-time.After(time.Duration(j.Args.RunMS) * time.Millisecond):
	case <-ctx.Done():
		saw.err = ctx.Err()
	}
	w.mu.Lock()
	w.seen[j.ID] = saw
	w.mu.Unlock()
	return saw.err
}

func (w *argsTimeoutWorker) saw(id int64) (handlerSaw, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	s, ok := w.seen[id]
	return s, ok
}

// leases counts the lease rows of job id (an attempt that escalated).
func leases(t *testing.T, ctx context.Context, db *pgxpool.Pool, id int64) int {
	t.Helper()
	var n int
	if err := db.QueryRow(ctx, `SELECT count(*) FROM awa.leases WHERE job_id = $1`, id).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestJobWhoseTimeoutOutlastsTheClaimDeadlineRunsToItsTimeout: the client's
// claims carry a 2s deadline (RescueStuckAfter; the worker's Timeout of a
// zero job is 0), and the maintenance leader rescues expired deadlines every
// 200ms. A job whose args give it a 5s timeout runs 3s: the runtime gave its
// attempt a deadline of its own (claim + 5s + grace) before it ran, so it is
// not rescued at 2s, its handler's context ends at its timeout, not at the
// claim's deadline, and it completes once, as attempt 1. A job whose 200ms
// timeout fits the claim's deadline costs no call: its attempt never
// escalates (no lease). Nor does the same 5s job on a queue whose 1s
// deadline_seconds caps its attempts: its context ends at that deadline.
func TestJobWhoseTimeoutOutlastsTheClaimDeadlineRunsToItsTimeout(t *testing.T) {
	ctx, pool := parallelDB(t, time.Minute)
	secs := 1
	if err := driver.New().ConfigureQueue(ctx, pool, "own_deadline_capped", driver.QueueOptions{DeadlineSeconds: &secs}); err != nil {
		t.Fatal(err)
	}
	w := &argsTimeoutWorker{seen: map[int64]handlerSaw{}}
	workers := driver.NewWorkers()
	driver.AddWorker[argsTimeoutArgs](workers, w)
	log, _ := testLogger(t, "client")
	cfg := workConfig("own_deadline", 2, workers, log, &driver.Config{
		JobTimeout:       500 * time.Millisecond,
		JobTimeoutGrace:  500 * time.Millisecond,
		RescueStuckAfter: 2 * time.Second,
	})
	cfg.Queues["own_deadline_capped"] = driver.QueueConfig{MaxWorkers: 1}
	client := startClient(t, pool, cfg)
	long, err := client.Insert(ctx, argsTimeoutArgs{TimeoutMS: 5000, RunMS: 3000}, &driver.InsertOpts{Queue: "own_deadline", MaxAttempts: 1})
	if err != nil {
		t.Fatal(err)
	}
	short, err := client.Insert(ctx, argsTimeoutArgs{TimeoutMS: 200, RunMS: 10}, &driver.InsertOpts{Queue: "own_deadline", MaxAttempts: 1})
	if err != nil {
		t.Fatal(err)
	}
	capped, err := client.Insert(ctx, argsTimeoutArgs{TimeoutMS: 5000, RunMS: 3000}, &driver.InsertOpts{Queue: "own_deadline_capped", MaxAttempts: 1})
	if err != nil {
		t.Fatal(err)
	}

	final := waitJobState(t, pool, long.ID, "completed", 30*time.Second)
	if final.Attempt != 1 || len(final.Errors) != 0 {
		t.Fatalf("long job %v, want completed by attempt 1 with no error (not rescued at its claim's 2s deadline)", final)
	}
	saw, ok := w.saw(long.ID)
	if !ok || saw.err != nil {
		t.Fatalf("long job's handler saw %+v (ran: %v), want it to run its 3s to the end", saw, ok)
	}
	if d := saw.deadline.Sub(saw.start); d < 4500*time.Millisecond || d > 5500*time.Millisecond {
		t.Fatalf("long job's context deadline was %s after its start, want its 5s timeout", d)
	}
	if n := leases(t, ctx, pool, long.ID); n != 1 {
		t.Fatalf("long job's attempt has %d leases, want 1 (its own deadline escalated it)", n)
	}

	waitJobState(t, pool, short.ID, "completed", 10*time.Second)
	if n := leases(t, ctx, pool, short.ID); n != 0 {
		t.Fatalf("short job's attempt has %d leases, want none: a timeout the claim's deadline covers costs no call", n)
	}
	var left int
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM awa.attempt_state`).Scan(&left); err != nil || left != 0 {
		t.Fatalf("%d attempt_state rows after both completions (%v), want none", left, err)
	}

	waitJobState(t, pool, capped.ID, "failed", 20*time.Second)
	saw, ok = w.saw(capped.ID)
	if d := saw.deadline.Sub(saw.start); !ok || saw.err != context.DeadlineExceeded || d > 1500*time.Millisecond {
		t.Fatalf("capped job's handler saw %+v (ran: %v), its context's deadline %s after its start; "+
			"want it ended by the queue's 1s deadline", saw, ok, d)
	}
	if n := leases(t, ctx, pool, capped.ID); n != 0 {
		t.Fatalf("capped job's attempt has %d leases, want none: no deadline of its own may pass the queue's", n)
	}
}

// TestHandlerSettingAShortDeadlineIsRescuedByTheLeaderWhenItHangs: a handler
// moves its attempt's deadline 1s ahead (SetDeadline; its timeout is 30s,
// the claim's deadline an hour), sees its context's deadline follow, then
// hangs past it, ignoring its context (JobTimeoutGrace is a minute, so the
// runtime does not abandon it first). The leader's deadline rescue closes
// the attempt (deadline_expired) about 1s after the call; when the handler
// finally returns nil, its completion is stale and dropped; attempt 2
// completes the job once.
func TestHandlerSettingAShortDeadlineIsRescuedByTheLeaderWhenItHangs(t *testing.T) {
	ctx, pool := parallelDB(t, 2*time.Minute)
	release := make(chan struct{})
	type first struct {
		set, deadline time.Time
		setErr        error
		ctxErr        error
		ended         time.Duration
	}
	firstRun := make(chan first, 1)
	workers := workersFor(func(ctx context.Context, j *driver.Job[stuckArgs]) error {
		if j.Attempt > 1 {
			return nil
		}
		f := first{set: time.Now().Add(time.Second)}
		f.setErr = j.SetDeadline(ctx, f.set)
		f.deadline, _ = ctx.Deadline()
		<-ctx.Done()
		f.ctxErr, f.ended = ctx.Err(), time.Until(f.set)
		firstRun <- f
		<-release // hangs, ignoring its context
		return nil
	})
	log, rec := testLogger(t, "client")
	client := startClient(t, pool, workConfig("short_deadline", 2, workers, log, &driver.Config{
		JobTimeout:      30 * time.Second,
		JobTimeoutGrace: time.Minute,
	}))
	var releaseOnce sync.Once
	releaseHandler := func() { releaseOnce.Do(func() { close(release) }) }
	t.Cleanup(releaseHandler)
	job, err := client.Insert(ctx, stuckArgs{}, &driver.InsertOpts{Queue: "short_deadline", MaxAttempts: 3})
	if err != nil {
		t.Fatal(err)
	}

	var f first
	select {
	case f = <-firstRun:
	case <-ctx.Done():
		t.Fatal("attempt 1's context never ended")
	}
	// The database keeps microseconds: the deadline recorded, which the
	// context follows, is the one asked for to the microsecond.
	if f.setErr != nil || f.deadline.Sub(f.set).Abs() > time.Microsecond {
		t.Fatalf("SetDeadline = %v, then the context's deadline was %v; want nil and %v", f.setErr, f.deadline, f.set)
	}
	if f.ctxErr != context.DeadlineExceeded || f.ended > 50*time.Millisecond {
		t.Fatalf("attempt 1's context ended %s before its deadline with %v, want at it with context.DeadlineExceeded",
			f.ended, f.ctxErr)
	}

	snap := waitJobState(t, pool, job.ID, "retryable", 20*time.Second)
	var lateness time.Duration
	var outcome string
	err = pool.QueryRow(ctx, `
		SELECT c.closed_at - s.deadline_at, c.outcome
		FROM awa.claim_batches b JOIN awa.claim_closures c
		  ON c.claim_slot = b.claim_slot AND c.receipts @> awa._receipt_id(b.batch_id, 1),
		     (SELECT $2::timestamptz AS deadline_at) s
		WHERE b.job_ids[1] = $1 AND b.run_leases[1] = 1`, job.ID, f.set).Scan(&lateness, &outcome)
	if err != nil {
		t.Fatalf("read attempt 1's closure: %v", err)
	}
	if outcome != "deadline_expired" || !errorsContain(snap.Errors, "rescued: deadline exceeded") {
		t.Fatalf("attempt 1 closed as %q with errors %+v, want the leader's deadline rescue", outcome, snap.Errors)
	}
	if bound := fastMaintenance().DeadlineInterval + time.Second; lateness < 0 || lateness > bound {
		t.Fatalf("attempt 1 closed %s after its own deadline, want within DeadlineInterval (+1s slack) = %s", lateness, bound)
	}
	if n := len(rec.find("Handler did not return within its timeout", nil)); n != 0 {
		t.Fatalf("the runtime abandoned the handler (%d logs): the test needs the leader to close the attempt", n)
	}

	releaseHandler() // attempt 1's handler returns nil now: a completion of a closed attempt
	waitFor(t, 30*time.Second, "attempt 1's completion to be dropped as stale", func() (bool, string) {
		n := len(rec.find("Stale result dropped", func(e logEntry) bool {
			return e.Attrs["job_id"] == job.ID && e.Attrs["run_lease"] == int64(1)
		}))
		return n == 1, fmt.Sprintf("%d stale logs", n)
	})
	final := waitJobState(t, pool, job.ID, "completed", 30*time.Second)
	if final.Attempt != 2 || completions(t, pool, job.ID) != 1 {
		t.Fatalf("job %v completed %d times, want once, by attempt 2", final, completions(t, pool, job.ID))
	}
}

// TestSetDeadlineCarriesAHandlerPastItsTimeout: a handler with a 300ms
// timeout moves its attempt's deadline 2s ahead and runs 1s: its context
// does not end at the timeout, and the job completes as attempt 1.
func TestSetDeadlineCarriesAHandlerPastItsTimeout(t *testing.T) {
	ctx, pool := parallelDB(t, time.Minute)
	errs := make(chan error, 1)
	workers := workersFor(func(ctx context.Context, j *driver.Job[stuckArgs]) error {
		if err := j.SetDeadline(ctx, time.Now().Add(2*time.Second)); err != nil {
			errs <- err
			return err
		}
		select {
		case <-time.After(time.Second):
			errs <- nil
			return nil
		case <-ctx.Done():
			errs <- ctx.Err()
			return ctx.Err()
		}
	})
	log, _ := testLogger(t, "client")
	client := startClient(t, pool, workConfig("extend", 1, workers, log, &driver.Config{JobTimeout: 300 * time.Millisecond}))
	job, err := client.Insert(ctx, stuckArgs{}, &driver.InsertOpts{Queue: "extend", MaxAttempts: 1})
	if err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-errs:
		if err != nil {
			t.Fatalf("the handler saw %v, want its context alive past its timeout", err)
		}
	case <-ctx.Done():
		t.Fatal("the handler never ran")
	}
	if final := waitJobState(t, pool, job.ID, "completed", 10*time.Second); final.Attempt != 1 {
		t.Fatalf("job %v, want completed by attempt 1", final)
	}
}
