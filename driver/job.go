package driver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// JobArgs is a job's typed payload. Kind names the job's worker; the value
// itself is stored as the job's JSON args.
type JobArgs interface {
	Kind() string
}

// JobRow is what the runtime knows of a claimed job besides its args.
type JobRow struct {
	ID          int64
	Kind        string
	Queue       string
	Priority    int
	Attempt     int // 1 for the first attempt
	MaxAttempts int
	Tags        []string
	Metadata    json.RawMessage
	// Errors holds the errors of earlier attempts, as a JSON array (nil when none).
	Errors    json.RawMessage
	CreatedAt time.Time
	RunAt     time.Time
	ClaimedAt time.Time
	// RunLease numbers this attempt; finalizers of older attempts are stale.
	RunLease int64

	// attempt writes this attempt's progress (SetProgress, Progress) and
	// callback (RegisterCallback, WaitForCallback); nil for a JobRow not
	// made by the runtime.
	attempt *attemptHandle
}

// Job is a claimed job with its decoded args, as a Worker receives it.
type Job[T JobArgs] struct {
	*JobRow
	Args T
}

// Worker runs jobs of one kind. Work's result decides what happens to the job:
// nil completes it; JobSnooze, JobCancel, JobFail and JobWaitForCallback map
// to their finalizers;
// any other error retries it with backoff (failing it when attempts are
// exhausted). A panic is recovered and retried. ctx is cancelled when the job
// times out or the client stops hard; Work should return promptly then.
type Worker[T JobArgs] interface {
	Work(ctx context.Context, job *Job[T]) error
}

// WorkerTimeout can be implemented by a Worker to give its jobs their own
// timeout instead of Config.JobTimeout; a negative value means none. The
// client's claims carry an attempt deadline that covers the longest timeout
// of its workers plus Config.JobTimeoutGrace, or Config.RescueStuckAfter when
// that is longer: at NewClient, Timeout is asked once per worker with a zero
// Job of its kind (zero Args). Timeout is asked again for each job, with its
// args, before it runs; when the claim time plus that timeout plus
// JobTimeoutGrace comes after the claim's deadline, the runtime first gives
// the attempt that deadline of its own (one awa.set_attempt_deadline call,
// as JobRow.SetDeadline), so the job runs to its timeout without being
// rescued; a job whose timeout the claim's deadline covers costs no call. A
// queue's deadline_seconds still caps it: the handler's context then ends
// there. A panic in Timeout is recovered as a handler's is: the attempt is
// retried, its handler not run. docs/storage.md, "Every attempt ends".
type WorkerTimeout[T JobArgs] interface {
	Timeout(job *Job[T]) time.Duration
}

// WorkerNextRetry can be implemented by a Worker to choose when its job is
// tried again after its handler returned an error (not after JobSnooze,
// JobCancel or JobFail, nor once the job's attempts are exhausted: it then
// fails). The zero time keeps the default backoff (attempt^4 + 1 seconds
// plus up to 10% jitter, capped at a day); a time in the past retries at
// once. It is asked after the handler returned, with the job as it ran. A
// panic in NextRetry is recovered and keeps the default backoff.
type WorkerNextRetry[T JobArgs] interface {
	NextRetry(job *Job[T]) time.Time
}

// WorkFunc adapts a function to a Worker.
func WorkFunc[T JobArgs](f func(ctx context.Context, job *Job[T]) error) Worker[T] {
	return workFunc[T](f)
}

type workFunc[T JobArgs] func(ctx context.Context, job *Job[T]) error

func (f workFunc[T]) Work(ctx context.Context, job *Job[T]) error { return f(ctx, job) }

// jobControl is a handler's request for something other than retry.
type jobControl struct {
	action string // "snooze", "cancel", "fail", "park"
	after  time.Duration
	err    error
}

func (e *jobControl) Error() string {
	switch e.action {
	case "snooze":
		return fmt.Sprintf("job snoozed for %s", e.after)
	case "cancel":
		return fmt.Sprintf("job cancelled: %v", e.err)
	case "park":
		return "job parked until its callback"
	default:
		return fmt.Sprintf("job failed terminally: %v", e.err)
	}
}

func (e *jobControl) Unwrap() error { return e.err }

// JobSnooze returns an error that puts the job back until d from now without
// counting the attempt.
func JobSnooze(d time.Duration) error { return &jobControl{action: "snooze", after: d} }

// JobCancel returns an error that ends the job cancelled, recording err.
func JobCancel(err error) error { return &jobControl{action: "cancel", err: err} }

// JobFail returns an error that fails the job for good (or sends it to the
// DLQ when its queue has one), whatever attempts remain.
func JobFail(err error) error { return &jobControl{action: "fail", err: err} }

func asControl(err error) (*jobControl, bool) {
	var c *jobControl
	ok := errors.As(err, &c)
	return c, ok
}
