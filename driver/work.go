package driver

import (
	"context"
	"fmt"
	"runtime/debug"
	"time"
)

// WorkResult is how one attempt run by Driver.Work ended.
type WorkResult struct {
	// Event is the job outcome event the Client sends for this result:
	// EventJobCompleted, EventJobRetried, EventJobSnoozed, EventJobCancelled,
	// EventJobParked or EventJobFailed (JobFail, exhausted attempts, no
	// worker for the kind).
	Event EventKind
	// Result is the finalizer's: Applied with the job's new state, or Stale
	// when the attempt was already closed.
	Result Result
	// Error is the error or reason recorded with a retry, cancel or failure.
	Error string
	// SnoozedUntil is when a snoozed job runs again.
	SnoozedUntil time.Time
}

// Work runs one claimed job through the worker registered for its kind and
// finalizes the attempt on db, as the Client's runtime does: args decoded
// into the kind's type (a decode error fails the job), the worker's Timeout
// or else timeout (negative: none) on the handler's context, a panic
// recovered and retried, the handler's result mapped to complete, retry,
// snooze, cancel, fail or park. It runs the handler synchronously on the calling
// goroutine: for runtimes of your own and for tests (see package awatest).
// Unlike the Client it does not abandon a handler that ignores its context,
// it does not bound the handler by the attempt's deadline, and it gives no
// attempt a deadline of its own (a handler's JobRow.SetDeadline does, and
// moves the handler's context to it).
func (d *Driver) Work(ctx context.Context, db DBTX, workers *Workers, j ClaimedJob, timeout time.Duration) (WorkResult, error) {
	req := noWorker(&j)
	if unit, ok := workers.lookup(j.Kind); ok {
		row := jobRow(&j, d, db)
		if t, _, err := unit.jobTimeout(row, j.Args, timeout); err != nil {
			req = finishReq{action: actionRetry, r: j.Receipt, msg: err.Error()}
		} else {
			lim := attemptLimits{timeout: t}
			start := time.Now()
			hctx, release := withMovableDeadline(ctx, lim.end(start))
			row.attempt.bind(hctx, lim)
			req = runHandler(hctx, ctx, unit, row, &j, start)
			release()
		}
	}
	req.msg = cleanText(req.msg)
	results, err := (&completer{db: db, driver: d}).call(ctx, req.action, []finishReq{req})
	if err != nil {
		return WorkResult{}, err
	}
	if len(results) != 1 {
		return WorkResult{}, fmt.Errorf("awa: %s of job %d returned %d results, want 1", req.action, j.JobID, len(results))
	}
	res := WorkResult{Event: eventKinds[req.action], Result: results[0], Error: req.msg}
	if req.action == actionSnooze {
		res.SnoozedUntil = req.at
	}
	if res.Result.State == StateFailed {
		res.Event = EventJobFailed
	}
	return res, nil
}

// lookup returns the worker of kind; a nil registry has none.
func (ws *Workers) lookup(kind string) (workUnit, bool) {
	if ws == nil {
		return workUnit{}, false
	}
	u, ok := ws.byKind[kind]
	return u, ok
}

// jobRow is what a worker sees of a claimed job besides its args; its
// progress goes through d on db.
func jobRow(j *ClaimedJob, d *Driver, db DBTX) *JobRow {
	row := &JobRow{attempt: &attemptHandle{driver: d, db: db, receipt: j.Receipt}}
	fillJobRow(row, j)
	return row
}

// fillJobRow sets what row shows of j (all but its attempt handle).
func fillJobRow(row *JobRow, j *ClaimedJob) {
	row.ID, row.Kind, row.Queue, row.Priority, row.Attempt = j.JobID, j.Kind, j.Queue, int(j.Priority), j.Attempt
	row.MaxAttempts, row.Tags, row.Metadata, row.Errors = j.MaxAttempts, j.Tags, j.Metadata, j.Errors
	row.CreatedAt, row.RunAt, row.ClaimedAt, row.RunLease = j.CreatedAt, j.RunAt, j.ClaimedAt, j.RunLease
}

// noWorker fails a job whose kind has no registered worker.
func noWorker(j *ClaimedJob) finishReq {
	return finishReq{action: actionFail, r: j.Receipt, msg: fmt.Sprintf("no worker registered for kind %q", j.Kind)}
}

// handBack hands a job whose kind has no registered worker back untouched
// for a process that knows the kind (Config.UnknownKindDelay): a snooze, its
// attempt not counted; with a negative delay, noWorker.
func handBack(j *ClaimedJob, delay time.Duration) finishReq {
	if delay < 0 {
		return noWorker(j)
	}
	return finishReq{action: actionSnooze, r: j.Receipt, at: time.Now().Add(delay)}
}

// jobTimeout is the job's timeout: its worker's Timeout when it has one and
// returns nonzero (worker true), otherwise def. Timeout is the worker's code
// run outside the handler: a panic there is returned as err (the attempt is
// retried without running the handler), never let through to end the
// process, which would then end every process that claims the job.
func (u workUnit) jobTimeout(row *JobRow, args []byte, def time.Duration) (d time.Duration, worker bool, err error) {
	if u.timeout == nil {
		return def, false, nil
	}
	defer func() {
		if p := recover(); p != nil {
			d, worker, err = 0, false, fmt.Errorf("panic in the worker's Timeout: %v\n%s", p, debug.Stack())
		}
	}()
	if d, ok := u.timeout(row, args); ok && d != 0 {
		return d, true, nil
	}
	return def, false, nil
}
