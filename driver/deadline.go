package driver

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/awa-queue/awa/driver/internal/dbsqlc"
)

// An attempt's deadline: its claim batch's (the claim time plus the claimer's
// attempt deadline or the queue's deadline, whichever is shorter), unless the
// attempt set one of its own (awa.set_attempt_deadline). Past it the leader's
// deadline rescue closes the attempt. docs/storage.md, "Every attempt ends".

// SetAttemptDeadline gives the open attempt r a deadline of its own
// (awa.set_attempt_deadline): the leader's deadline rescue closes it once at
// has passed, and not at its claim's deadline, whether at is later or
// earlier. On a queue with a deadline (deadline_seconds) it is never later
// than the claim time plus that deadline: the time returned is the deadline
// recorded, at or that cap. A later call replaces it. Returns a
// *StaleAttemptError (errors.Is ErrStaleAttempt) and writes nothing when the
// attempt is no longer open; ErrInvalidArgument when at is not in the
// future (the database's clock).
func (d *Driver) SetAttemptDeadline(ctx context.Context, db DBTX, r Receipt, at time.Time) (time.Time, error) {
	rows, err := d.q.SetAttemptDeadline(ctx, d.on(db), dbsqlc.SetAttemptDeadlineParams{
		JobID: r.JobID, RunLease: r.RunLease, ClaimSlot: r.ClaimSlot, ReceiptID: r.ReceiptID, DeadlineAt: timestamptz(at),
	})
	if err != nil {
		return time.Time{}, fmt.Errorf("set the deadline of job %d: %w", r.JobID, mapError(err))
	}
	if len(rows) != 1 {
		return time.Time{}, fmt.Errorf("awa: set the deadline of job %d returned %d results, want 1", r.JobID, len(rows))
	}
	if Outcome(rows[0].Outcome) != Applied {
		return time.Time{}, &StaleAttemptError{JobID: r.JobID, RunLease: r.RunLease}
	}
	return rows[0].DeadlineAt.Time, nil
}

// SetDeadline moves this attempt's deadline to t (Driver.SetAttemptDeadline):
// the leader's deadline rescue closes the attempt once t has passed (or its
// queue's cap, when that comes first), and not at its claim's deadline. The
// handler's context follows, in place of the job's timeout and its claim's
// deadline: its Deadline reports the new one, and it ends at it with
// context.DeadlineExceeded, then JobTimeoutGrace later the runtime abandons a
// handler that has not returned. A context the handler derived from it
// follows too, unless it has a shorter deadline of its own (its Deadline
// keeps what it reported when it was made). t is an absolute time, read as
// is on the database's clock and on this process's. It returns a
// *StaleAttemptError (errors.Is ErrStaleAttempt) when the attempt is no
// longer open: the handler should stop, its result is stale. A job whose
// timeout outlasts its claim's deadline needs no call: the runtime gives it
// a deadline of its own before it runs (see WorkerTimeout).
func (r *JobRow) SetDeadline(ctx context.Context, t time.Time) error {
	a, err := r.handle("set the deadline of")
	if err != nil {
		return err
	}
	at, err := a.driver.SetAttemptDeadline(ctx, a.db, a.receipt, t)
	if err != nil {
		return err
	}
	a.mu.Lock()
	a.limits = attemptLimits{local: at, db: at}
	dl := a.dl
	a.mu.Unlock()
	if dl != nil {
		dl.move(at)
	}
	return nil
}

// attemptLimits is what ends a handler's context: its timeout (zero when it
// has none, or SetDeadline replaced it) and the attempt's deadline, on this
// process's clock and on the database's (zero when none).
type attemptLimits struct {
	timeout time.Duration
	local   time.Time
	db      time.Time
}

// bind makes ctx the handler's context of the attempt, limited by lim.
func (a *attemptHandle) bind(ctx *deadlineCtx, lim attemptLimits) {
	a.mu.Lock()
	a.dl, a.limits = ctx, lim
	a.mu.Unlock()
}

// currentLimits returns the attempt's limits now (after any SetDeadline).
func (a *attemptHandle) currentLimits() attemptLimits {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.limits
}

// pastDeadline reports whether the handler's context ended at the attempt's
// deadline rather than at its timeout.
func (l attemptLimits) pastDeadline(start time.Time) bool {
	return !l.local.IsZero() && (l.timeout <= 0 || l.local.Before(start.Add(l.timeout)))
}

// end is when the handler's context ends: its timeout from start or the
// attempt's deadline, whichever comes first (zero: neither).
func (l attemptLimits) end(start time.Time) time.Time {
	end := l.local
	if l.timeout > 0 && (end.IsZero() || start.Add(l.timeout).Before(end)) {
		end = start.Add(l.timeout)
	}
	return end
}

// deadlineCtx is a handler's context: its parent's values and cancellation,
// and a deadline that can move (JobRow.SetDeadline), which
// context.WithDeadline's cannot. At the deadline it ends with
// context.DeadlineExceeded. It implements the AfterFunc method the context
// package looks for, so a context derived from it costs no goroutine. Cost
// per job: one timer, as context.WithDeadline's.
type deadlineCtx struct {
	parent     context.Context
	done       chan struct{}
	stopParent func() bool

	mu       sync.Mutex
	deadline time.Time // zero: none
	timer    *time.Timer
	gen      uint64 // of the armed timer: a timer of an older deadline that fires changes nothing
	err      error
	afters   []*afterFunc
}

type afterFunc struct {
	f       func()
	stopped bool
}

// withMovableDeadline returns a context of parent that ends at deadline
// (zero: none) or when parent ends; release ends it (context.Canceled) and
// frees its timer.
func withMovableDeadline(parent context.Context, deadline time.Time) (*deadlineCtx, context.CancelFunc) {
	c := &deadlineCtx{parent: parent, done: make(chan struct{})}
	c.move(deadline)
	c.stopParent = context.AfterFunc(parent, func() { c.finish(parent.Err()) })
	return c, func() {
		c.stopParent()
		c.finish(context.Canceled)
	}
}

// move sets the deadline to d (zero: none); a context that already ended
// stays ended.
func (c *deadlineCtx) move(d time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err != nil {
		return
	}
	c.deadline = d
	c.gen++
	if c.timer != nil {
		c.timer.Stop()
		c.timer = nil
	}
	if d.IsZero() {
		return
	}
	gen := c.gen
	c.timer = time.AfterFunc(time.Until(d), func() {
		c.mu.Lock()
		current := c.gen == gen
		c.mu.Unlock()
		if current {
			c.finish(context.DeadlineExceeded)
		}
	})
}

// finish ends the context with err, once.
func (c *deadlineCtx) finish(err error) {
	c.mu.Lock()
	if c.err != nil {
		c.mu.Unlock()
		return
	}
	c.err = err
	if c.timer != nil {
		c.timer.Stop()
		c.timer = nil
	}
	afters := c.afters
	c.afters = nil
	close(c.done)
	c.mu.Unlock()
	for _, a := range afters {
		if !a.stopped {
			go a.f()
		}
	}
}

func (c *deadlineCtx) Deadline() (time.Time, bool) {
	c.mu.Lock()
	d := c.deadline
	c.mu.Unlock()
	if pd, ok := c.parent.Deadline(); ok && (d.IsZero() || pd.Before(d)) {
		return pd, true
	}
	return d, !d.IsZero()
}

func (c *deadlineCtx) Done() <-chan struct{} { return c.done }

func (c *deadlineCtx) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

func (c *deadlineCtx) Value(key any) any { return c.parent.Value(key) }

// AfterFunc runs f in its own goroutine once the context ends; stop
// unregisters f and reports whether it did so before f was started. The
// context package calls it to tie a derived context to this one.
func (c *deadlineCtx) AfterFunc(f func()) (stop func() bool) {
	a := &afterFunc{f: f}
	c.mu.Lock()
	if c.err != nil {
		c.mu.Unlock()
		go f()
		return func() bool { return false }
	}
	c.afters = append(c.afters, a)
	c.mu.Unlock()
	return func() bool {
		c.mu.Lock()
		defer c.mu.Unlock()
		if c.err != nil || a.stopped {
			return false
		}
		a.stopped = true
		return true
	}
}
