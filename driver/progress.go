package driver

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/awa-queue/awa/driver/internal/dbsqlc"
)

// Progress is a job's checkpoint: what the attempt RunLease last recorded
// with SetProgress, at UpdatedAt.
type Progress struct {
	JobID     int64
	RunLease  int64
	Progress  json.RawMessage
	UpdatedAt time.Time
}

// SetProgress records progress (a JSON value, at most 64 KiB) as the
// checkpoint of the attempt r, guarded like a finalizer (awa.set_progress):
// it returns a *StaleAttemptError (errors.Is ErrStaleAttempt) and writes
// nothing when the attempt is no longer open (rescued, cancelled, finalized).
// The attempt's first call escalates it to a lease (docs/storage.md, "Attempt
// leases"); the checkpoint survives retry, snooze, cancel, fail and rescue,
// and is deleted when the job completes.
func (d *Driver) SetProgress(ctx context.Context, db DBTX, r Receipt, progress json.RawMessage) error {
	rows, err := d.q.SetProgress(ctx, d.on(db), dbsqlc.SetProgressParams{
		JobID: r.JobID, RunLease: r.RunLease, ClaimSlot: r.ClaimSlot, ReceiptID: r.ReceiptID, Progress: progress,
	})
	if err != nil {
		return fmt.Errorf("set progress of job %d: %w", r.JobID, mapError(err))
	}
	if len(rows) != 1 {
		return fmt.Errorf("awa: set progress of job %d returned %d results, want 1", r.JobID, len(rows))
	}
	if Outcome(rows[0].Outcome) != Applied {
		return &StaleAttemptError{JobID: r.JobID, RunLease: r.RunLease}
	}
	return nil
}

// JobProgress returns the job's checkpoint (awa.job_progress); ok is false
// when it has none (it never recorded progress, or it completed).
func (d *Driver) JobProgress(ctx context.Context, db DBTX, jobID int64) (p Progress, ok bool, err error) {
	rows, err := d.q.JobProgress(ctx, d.on(db), jobID)
	if err != nil {
		return Progress{}, false, fmt.Errorf("progress of job %d: %w", jobID, mapError(err))
	}
	if len(rows) == 0 {
		return Progress{}, false, nil
	}
	r := rows[0]
	return Progress{JobID: r.JobID, RunLease: r.RunLease, Progress: r.Progress, UpdatedAt: r.UpdatedAt.Time}, true, nil
}

// attemptHandle is what a handler's JobRow needs to write its attempt's
// progress, callback and deadline: the database, the receipt, the last
// checkpoint it set, its callback (callbacks.go), WaitForCallback's poll
// interval, and the handler's context and what limits it (deadline.go; nil
// and zero for a JobRow whose handler no runtime runs).
type attemptHandle struct {
	driver    *Driver
	db        DBTX
	receipt   Receipt
	pollEvery time.Duration
	mu        sync.Mutex
	setMu     sync.Mutex // SetDeadline's, held across its database call
	last      json.RawMessage
	cb        callbackState
	dl        *deadlineCtx
	limits    attemptLimits
	// inTx: JobCompleteTx completed the attempt in a transaction of the
	// handler's (applied there; whether it commits is the handler's).
	inTx bool
}

// SetProgress records v, encoded as JSON, as the job's progress checkpoint
// (see Driver.SetProgress): a later attempt of the job, after a retry, a
// snooze or a rescue, reads it with Progress and can resume from it. It
// returns a *StaleAttemptError (errors.Is ErrStaleAttempt) when the attempt
// is no longer open: the handler should stop, another attempt owns the job.
// Each call is one short transaction; checkpoint at the pace the work needs,
// not per item.
func (r *JobRow) SetProgress(ctx context.Context, v any) error {
	a, err := r.handle("record progress")
	if err != nil {
		return err
	}
	raw, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("awa: encode progress of job %d: %w", r.ID, err)
	}
	if err := a.driver.SetProgress(ctx, a.db, a.receipt, raw); err != nil {
		return err
	}
	a.mu.Lock()
	a.last = raw
	a.mu.Unlock()
	return nil
}

// Progress returns the job's checkpoint as JSON: what this attempt last set
// with SetProgress, else what an earlier attempt left (nil when there is
// none). It reads the database only when this attempt has set none and an
// earlier attempt exists.
func (r *JobRow) Progress(ctx context.Context) (json.RawMessage, error) {
	a, err := r.handle("read progress")
	if err != nil {
		return nil, err
	}
	a.mu.Lock()
	last := a.last
	a.mu.Unlock()
	if last != nil || r.RunLease <= 1 {
		return last, nil
	}
	p, ok, err := a.driver.JobProgress(ctx, a.db, r.ID)
	if err != nil || !ok {
		return nil, err
	}
	return p.Progress, nil
}

// errCompleteTxRolledBack is the retry a handler's nil result becomes after
// JobCompleteTx: stale when the handler's transaction committed.
const errCompleteTxRolledBack = "the handler completed its job with JobCompleteTx in a transaction that did not commit"

// completedInTx reports whether JobCompleteTx completed this attempt.
func (a *attemptHandle) completedInTx() bool {
	if a == nil {
		return false
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.inTx
}

// JobCompleteTx completes the handler's job inside tx, the handler's own
// transaction, so the job's completion and the handler's side effects
// written in tx commit together or not at all (the exactly-once-effect
// pattern; docs/storage.md, "Exactly-once effects"). It applies the same
// guard as every finalizer: a *StaleAttemptError (errors.Is ErrStaleAttempt)
// when the attempt is no longer open (rescued, cancelled), and then tx must
// roll back, since another attempt owns the job. After it, the handler
// returns nil: if tx committed, the job is completed and nothing more
// happens; if tx rolled back, the job is retried, as its effects did not
// happen either. tx must be READ COMMITTED (the finalizers refuse other
// levels with ErrIsolationLevel).
func JobCompleteTx(ctx context.Context, tx pgx.Tx, job *JobRow) error {
	a, err := job.handle("complete in a transaction")
	if err != nil {
		return err
	}
	res, err := a.driver.Complete(ctx, tx, []Receipt{a.receipt})
	if err != nil {
		return err
	}
	if len(res) != 1 || res[0].Outcome != Applied {
		return &StaleAttemptError{JobID: job.ID, RunLease: job.RunLease}
	}
	a.mu.Lock()
	a.inTx = true
	a.mu.Unlock()
	return nil
}
