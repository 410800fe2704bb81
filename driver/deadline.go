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
// a deadline of its own before it runs (see WorkerTimeout). Calls for one
// attempt run one at a time, so its context keeps the deadline the database
// recorded last.
func (r *JobRow) SetDeadline(ctx context.Context, t time.Time) error {
	a, err := r.handle("set the deadline of")
	if err != nil {
		return err
	}
	// One call at a time per attempt, the database's write and the context's
	// move together: two calls racing would otherwise move the context in
	// an order other than the one the database recorded them in, and the
	// handler would stop before, or outlive, the deadline the leader enforces.
	a.setMu.Lock()
	defer a.setMu.Unlock()
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

// deadlineCtx is a handler's context, one object per attempt: its parent's
// values, and an end of its own. It ends at its deadline with
// context.DeadlineExceeded (a deadline that can move: JobRow.SetDeadline,
// which context.WithDeadline's cannot); when its attempt is closed from
// outside (closeOutside: an operator's cancel, a rescue) with
// context.Canceled and cause ErrAttemptClosed; when its parent ends (or, in
// the runtime, the client stops hard: attemptSet.cancelAll) with the
// parent's error and cause; and at release with context.Canceled. It
// implements the AfterFunc method the context package looks for, so a
// context derived from it costs no goroutine.
//
// It is cheap per attempt (BenchmarkExecute): no channel until Done is
// called (most handlers never call it); in the runtime, no registration on
// the parent (the attempt set passes its cancel on instead: a registration
// per job on the client's shared context would contend on its lock) and the
// timer of its worker goroutine, reused from one attempt to the next
// (deadlineTimer).
type deadlineCtx struct {
	parent context.Context
	// timer ends it at its deadline: its worker goroutine's (the runtime),
	// else its own (ownTimer), made when a deadline is first set and
	// stopped when the context ends.
	timer    *deadlineTimer
	ownTimer bool
	// watch (nil: none) is the runtime's watchdog, told when the context
	// ends other than by release.
	watch *watch
	// stopParent unregisters the context from its parent (nil: it was not
	// registered, as in the runtime).
	stopParent func() bool

	mu       sync.Mutex
	deadline time.Time     // zero: none
	done     chan struct{} // made by the first Done; closedChan when the context ended first
	err      error
	endedBy  endReason
	afters   []*afterFunc
}

// endReason is what ended a deadlineCtx; its cause (context.Cause) follows.
type endReason uint8

const (
	endedByDeadline endReason = iota + 1
	endedByParent             // the parent's error and cause
	endedByClose              // cause ErrAttemptClosed
	endedByRelease
)

// closedChan is the Done channel of a context that ended before anyone asked for it.
var closedChan = func() chan struct{} {
	c := make(chan struct{})
	close(c)
	return c
}()

// cancelCauseKey is the key under which context.Cause looks up the cause of
// a context that ended (the context package's own, unexported), found once
// by asking Cause about an ended context that records the key it is asked
// for. A deadlineCtx answers it with closedCause when its attempt was
// closed, so Cause of the handler's context, and of a context derived from
// it, is ErrAttemptClosed without a context.WithCancelCause layer per
// attempt. TestControlNotificationsCancelOrWake fails should a release of
// Go look the cause up otherwise.
var cancelCauseKey = func() any {
	p := &keyProbe{Context: context.Background()}
	_ = context.Cause(p)
	return p.key
}()

// keyProbe is an ended context that records the last key it was asked for.
type keyProbe struct {
	context.Context
	key any
}

func (p *keyProbe) Err() error { return context.Canceled }

func (p *keyProbe) Value(key any) any {
	p.key = key
	return nil
}

// closedCause is a context cancelled with cause ErrAttemptClosed, shared by
// every closed attempt's context (cancelCauseKey).
var closedCause = func() context.Context {
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(ErrAttemptClosed)
	return ctx
}()

type afterFunc struct {
	f       func()
	stopped bool
}

// withMovableDeadline returns a context of parent that ends at deadline
// (zero: none) or when parent ends; release ends it (context.Canceled) and
// frees its timer. Driver.Work's handler context.
func withMovableDeadline(parent context.Context, deadline time.Time) (*deadlineCtx, context.CancelFunc) {
	c := &deadlineCtx{parent: parent}
	c.move(deadline)
	c.stopParent = context.AfterFunc(parent, func() { c.end(parent.Err(), endedByParent) })
	return c, c.release
}

// release ends the context with context.Canceled (the handler returned) and
// unregisters it from its parent.
func (c *deadlineCtx) release() {
	if c.stopParent != nil {
		c.stopParent()
	}
	c.end(context.Canceled, endedByRelease)
}

// closeOutside ends the context with cause ErrAttemptClosed: its attempt was
// closed from outside while the handler ran.
func (c *deadlineCtx) closeOutside() {
	c.end(context.Canceled, endedByClose)
}

// move sets the deadline to d (zero: none); a context that already ended
// stays ended.
func (c *deadlineCtx) move(d time.Time) {
	c.mu.Lock()
	if c.err != nil {
		c.mu.Unlock()
		return
	}
	c.deadline = d
	switch {
	case d.IsZero():
		// A firing armed before finds no deadline and ends nothing.
	case time.Until(d) <= 0:
		// Already past: ended before move returns, as context.WithDeadline
		// does, not a moment later on the timer's goroutine.
		c.mu.Unlock()
		c.end(context.DeadlineExceeded, endedByDeadline)
		return
	default:
		if c.timer == nil {
			c.timer, c.ownTimer = newDeadlineTimer(), true
		}
		c.timer.arm(c, d)
	}
	c.mu.Unlock()
}

// deadlinePassed is its timer's call: it ends the context if its deadline
// has come, or arms the timer again for what is left (the timer fired for an
// earlier deadline, or for the attempt its worker ran before).
func (c *deadlineCtx) deadlinePassed() {
	c.mu.Lock()
	if c.err != nil || c.deadline.IsZero() {
		c.mu.Unlock()
		return
	}
	if time.Until(c.deadline) > 0 {
		c.timer.arm(c, c.deadline)
		c.mu.Unlock()
		return
	}
	c.mu.Unlock()
	c.end(context.DeadlineExceeded, endedByDeadline)
}

// end ends the context with err, once; the watchdog hears of any end but
// release.
func (c *deadlineCtx) end(err error, by endReason) {
	c.mu.Lock()
	if c.err != nil {
		c.mu.Unlock()
		return
	}
	c.err, c.endedBy = err, by
	if c.ownTimer {
		c.timer.t.Stop()
	}
	if c.done == nil {
		c.done = closedChan
	} else {
		close(c.done)
	}
	afters := c.afters
	c.afters = nil
	c.mu.Unlock()
	for _, a := range afters {
		if !a.stopped {
			go a.f()
		}
	}
	if c.watch != nil && by != endedByRelease {
		c.watch.ended()
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

func (c *deadlineCtx) Done() <-chan struct{} {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.done == nil {
		c.done = make(chan struct{})
	}
	return c.done
}

func (c *deadlineCtx) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

// Value is the parent's, except the context package's cause lookup
// (cancelCauseKey): closedCause once the attempt was closed, the parent's
// after the parent ended it, else none (Cause is then Err).
func (c *deadlineCtx) Value(key any) any {
	if key == cancelCauseKey {
		c.mu.Lock()
		by := c.endedBy
		c.mu.Unlock()
		switch by {
		case endedByClose:
			return closedCause.Value(key)
		case endedByParent:
			return c.parent.Value(key)
		default:
			return nil
		}
	}
	return c.parent.Value(key)
}

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

// deadlineTimer ends a context at its deadline. The runtime keeps one per
// worker goroutine, for the attempt it runs (cur), and hands it on to the
// next: a timer per attempt would cost allocations each. It is armed lazily:
// a firing already due by the new deadline is kept rather than the timer
// reset, and it is not stopped when an attempt ends (the next one's deadline
// is usually later), so most jobs cost it neither a reset nor a stop. A
// firing that comes too early for cur (it was armed for an earlier
// deadline, or for the attempt before) ends nothing: cur's deadlinePassed
// arms it again for what is left.
type deadlineTimer struct {
	t  *time.Timer
	mu sync.Mutex
	// cur is the context whose deadline the next firing checks; at is when
	// that firing is due (zero: none armed).
	cur *deadlineCtx
	at  time.Time
}

func newDeadlineTimer() *deadlineTimer {
	dt := &deadlineTimer{}
	dt.t = time.AfterFunc(time.Hour, dt.fire)
	dt.t.Stop()
	return dt
}

// arm makes the timer end c at d, or fire earlier.
func (dt *deadlineTimer) arm(c *deadlineCtx, d time.Time) {
	dt.mu.Lock()
	dt.cur = c
	if dt.at.IsZero() || d.Before(dt.at) {
		dt.at = d
		dt.t.Reset(time.Until(d))
	}
	dt.mu.Unlock()
}

func (dt *deadlineTimer) fire() {
	dt.mu.Lock()
	c := dt.cur
	dt.at = time.Time{}
	dt.mu.Unlock()
	if c != nil {
		c.deadlinePassed()
	}
}
