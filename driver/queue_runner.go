package driver

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	"go.opentelemetry.io/otel/trace"
)

// queueRunner claims and runs the jobs of one queue. Permits are taken
// before claiming, so every claimed job has a free slot; a claim asks for as
// many jobs as there are free permits (up to the batch size).
type queueRunner struct {
	c    *Client
	name string
	// processSpan names its handlers' spans ("process <queue>").
	processSpan string
	permits     chan struct{} // one token per free slot
	wake        chan struct{} // a notification, or the shared poll, says claimable work appeared
	// polled: the pending wake came from the shared poll (the listener
	// watch counts the claims it leads to).
	polled atomic.Bool
	// widenMu lets one weighted job at a time take its slots (widen).
	widenMu sync.Mutex
	// fetchBatch caps one claim: Config.FetchBatchSize, or MaxWorkers up to 1024.
	fetchBatch int
	// work carries claimed jobs to the worker goroutines (dispatch): its
	// capacity is MaxWorkers, which the jobs claimed and not yet started
	// never exceed (each holds a permit), so a send never blocks. The fetch
	// loop is its only sender and closes it when it ends.
	work chan claimedRun
	// idle counts worker goroutines about to wait on work that no job sent
	// yet has counted on.
	idle atomic.Int32
	// widening counts the jobs sent of weight > 1 that have not taken their
	// slots yet (widen). Such a job gives its one slot back while it waits,
	// so the fetch loop claims nothing until none waits (awaitWidened):
	// else every slot freed meanwhile would claim one more job that waits
	// too, its attempt deadline running, on a worker goroutine of its own.
	widening atomic.Int32
	// widened: widening fell to zero (capacity 1; awaitWidened rechecks).
	widened chan struct{}
}

// claimedRun is one claimed job on its way to a worker goroutine.
type claimedRun struct {
	j          ClaimedJob
	claimStart time.Time
	claimSpan  trace.SpanContext
	weight     int
}

func newQueueRunner(c *Client, name string, qc QueueConfig) *queueRunner {
	q := &queueRunner{c: c, name: name, processSpan: "process " + name, permits: make(chan struct{}, qc.MaxWorkers), wake: make(chan struct{}, 1),
		fetchBatch: c.cfg.FetchBatchSize, work: make(chan claimedRun, qc.MaxWorkers), widened: make(chan struct{}, 1)}
	if q.fetchBatch == 0 {
		q.fetchBatch = min(qc.MaxWorkers, 1024)
	}
	for i := 0; i < qc.MaxWorkers; i++ {
		q.permits <- struct{}{}
	}
	return q
}

// notifyPolled is notify by the shared poll (Client.pollLoop).
func (q *queueRunner) notifyPolled() {
	q.polled.Store(true)
	q.notify()
}

// notify wakes the fetch loop (non-blocking; one pending wake is enough).
func (q *queueRunner) notify() {
	select {
	case q.wake <- struct{}{}:
	default:
	}
}

// fetchCooldown is how long a saturated queue waits for more slots to free
// up before claiming, so claims stay batched under load.
const fetchCooldown = 2 * time.Millisecond

// pendingRecheck is the first delay before claiming again after a short
// claim while awa.queue_pending is true (a producer holds a reserved position
// and may commit without a notification). It doubles while claims keep
// coming back empty, up to FetchPollInterval.
const pendingRecheck = time.Millisecond

// claimNow is nextRecheck's answer when a committed job is known to wait:
// claim again without waiting for a wake.
const claimNow = time.Duration(-1)

// run is the queue's fetch loop. It claims at once on start and while claims
// come back full; otherwise it waits for a wake (a notification, or the
// client's shared poll: Client.pollLoop) or its own recheck (nextRecheck).
// It has no poll of its own: an idle queue costs nothing here.
func (q *queueRunner) run(fetchCtx, workCtx context.Context) {
	defer close(q.work) // after the last dispatch: the workers end
	cfg := q.c.cfg
	backlog := true // claim at once on start
	errDelay := 100 * time.Millisecond
	var recheck time.Duration // > 0: claim again after this long, even without a wake; claimNow: at once

	for {
		polled := false // woken by the shared poll (the listener watch counts these)
		if !backlog && recheck != claimNow {
			var again <-chan time.Time
			var timer *time.Timer
			if recheck > 0 {
				timer = time.NewTimer(recheck)
				again = timer.C
			}
			select {
			case <-fetchCtx.Done():
			case <-q.wake:
				polled = q.polled.Swap(false)
			case <-again:
			}
			if timer != nil {
				timer.Stop()
			}
			if fetchCtx.Err() != nil {
				return
			}
		}

		if !q.awaitWidened(fetchCtx) {
			return
		}
		// One permit at least, then as many more as are free.
		select {
		case <-fetchCtx.Done():
			return
		case <-q.permits:
		}
		n := 1 + q.takePermits(q.fetchBatch-1, backlog)
		if fetchCtx.Err() != nil {
			q.releasePermits(n)
			return
		}

		// The claim must not be cut short by Stop: a claim that committed on
		// the server but whose reply we dropped would strand its jobs until
		// stale rescue (and spend an attempt they never made). Every job it
		// returns is run; Stop waits for them.
		claimCtx, cancel := context.WithTimeout(context.WithoutCancel(fetchCtx), 30*time.Second)
		claimStart := time.Now()
		jobs, err := q.c.driver.Claim(claimCtx, q.c.rt, q.name, n, cfg.InstanceID, q.c.claimDeadline)
		cancel()
		q.c.metrics.claimed(fetchCtx, q.name, jobs, claimStart, err)
		claimSpan := q.c.tracing.claimSpan(q.name, claimStart, len(jobs), err)
		if err != nil {
			q.releasePermits(n)
			if fetchCtx.Err() != nil {
				return
			}
			q.c.log.Warn("awa: Claim failed", slog.String("queue", q.name), slog.String("error", err.Error()))
			select {
			case <-fetchCtx.Done():
				return
			case <-time.After(errDelay):
			}
			errDelay = min(errDelay*2, 5*time.Second)
			backlog, recheck = false, 0
			continue
		}
		errDelay = 100 * time.Millisecond
		if polled && len(jobs) > 0 {
			q.c.polledClaims.Add(1)
		}
		q.releasePermits(n - len(jobs))
		for _, j := range jobs {
			// A job of weight w takes w slots (at most MaxWorkers): the claim
			// gave it one; its own goroutine takes the others (widen), never
			// this loop, which would wait on the slots of its batch's jobs it
			// has not started yet, and would not see Stop.
			q.c.jobWG.Add(1)
			w := min(j.Weight(), cap(q.permits))
			if w > 1 {
				q.widening.Add(1)
			}
			q.dispatch(workCtx, claimedRun{j: j, claimStart: claimStart, claimSpan: claimSpan, weight: w})
		}
		backlog = len(jobs) == n
		if !backlog && len(q.wake) > 0 {
			// Woken while the claim ran (a notification of a commit it may
			// not have seen): claim again at once, as the wait below would,
			// without asking awa.queue_readiness first.
			recheck = 0
			continue
		}
		recheck = q.nextRecheck(fetchCtx, backlog, len(jobs) > 0, recheck)
	}
}

// dispatch runs a claimed job on a worker goroutine: one that is idle, or
// else a new one. Worker goroutines outlive their job and take the next
// (worker), so a busy queue does not start a goroutine per job and grow its
// stack again on the handler's first deep call. Each job sent either takes
// one idle worker's count or starts a worker, so it never waits behind a
// busy one. The workers are about as many as the most jobs that ran at once
// (at most MaxWorkers, plus abandoned handlers); they wait, parked and
// without a timer, until the fetch loop ends (Stop) and the jobs it sent are
// taken.
func (q *queueRunner) dispatch(workCtx context.Context, r claimedRun) {
	q.work <- r
	if q.idle.Add(-1) >= 0 {
		return
	}
	q.idle.Add(1)
	go q.worker(workCtx)
}

// worker runs the jobs sent on work until the fetch loop closes it. It
// counts itself idle before it gives its job's slots back: a job claimed
// with them then finds it idle rather than starting one more worker.
// Its deadline timer ends the handler's context of each job it runs at its
// deadline (deadlineTimer).
func (q *queueRunner) worker(workCtx context.Context) {
	timer := newDeadlineTimer()
	defer timer.t.Stop()
	for r := range q.work {
		held := q.execute(workCtx, &r, timer)
		q.idle.Add(1)
		q.releasePermits(held)
	}
}

// awaitWidened waits until no job sent waits for its slots (widening); false
// when ctx ends first.
func (q *queueRunner) awaitWidened(ctx context.Context) bool {
	for q.widening.Load() > 0 {
		select {
		case <-ctx.Done():
			return false
		case <-q.widened:
		}
	}
	return true
}

// nextRecheck decides, after a claim, how soon to claim again without a
// wake: never under backlog (the loop claims at once) or when nothing is
// pending; claimNow after a claim that found jobs when a committed job
// waits (ready: it committed after that claim's look, or its lane was held);
// pendingRecheck after a claim that found jobs otherwise, or after the first
// claim that found none; else twice the last delay, up to FetchPollInterval.
// A claim that found nothing never leads to claimNow, so a lane another
// session holds for long (a SQL worker claiming inside a long transaction)
// costs polls that back off, not a spin. A rate-limited queue whose bucket
// is empty (awa.queue_readiness wait_for) is claimed again when its next
// token is due, not before.
func (q *queueRunner) nextRecheck(ctx context.Context, backlog, found bool, last time.Duration) time.Duration {
	if backlog {
		return 0
	}
	pctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	p, err := q.c.driver.QueueReadiness(pctx, q.c.rt, q.name)
	cancel()
	if err != nil {
		if ctx.Err() == nil {
			q.c.log.Warn("awa: QueueReadiness failed", slog.String("queue", q.name), slog.String("error", err.Error()))
		}
		return 0 // the poll covers it
	}
	switch {
	case !p.Pending:
		return 0
	case p.WaitFor > 0:
		return p.WaitFor
	case p.Ready && found:
		return claimNow
	case found || last <= 0:
		return pendingRecheck
	default:
		return min(2*last, q.c.cfg.FetchPollInterval)
	}
}

// takePermits takes up to max more free permits; under backlog it waits up to
// fetchCooldown for slots that are about to free up.
func (q *queueRunner) takePermits(max int, backlog bool) int {
	got := 0
	var deadline <-chan time.Time
	if backlog {
		t := time.NewTimer(fetchCooldown)
		defer t.Stop()
		deadline = t.C
	}
	for got < max {
		if deadline == nil {
			select {
			case <-q.permits:
				got++
				continue
			default:
				return got
			}
		}
		select {
		case <-q.permits:
			got++
		case <-deadline:
			deadline = nil
		}
	}
	return got
}

// widen trades a weighted job's one slot for weight slots and returns how
// many it holds. It gives its slot back first and takes the weight with no
// other job taking slots meanwhile: a job waiting for slots never holds one,
// so waiting jobs cannot hold the slots each other needs (three jobs of
// weight 3 with 3 slots, each holding one, would wait forever); running jobs
// end and give theirs back. When ctx ends first (StopAndCancel) it gives back
// what it took and returns 0: the job runs without a slot and sees its
// context cancelled.
func (q *queueRunner) widen(ctx context.Context, weight int) int {
	q.releasePermits(1)
	q.widenMu.Lock()
	defer q.widenMu.Unlock()
	for got := 0; got < weight; got++ {
		select {
		case <-q.permits:
		case <-ctx.Done():
			q.releasePermits(got)
			return 0
		}
	}
	return weight
}

func (q *queueRunner) releasePermits(n int) {
	for i := 0; i < n; i++ {
		q.permits <- struct{}{}
	}
}

// Watchdog states of one attempt: whoever moves it out of running hands the
// attempt's result to the completer and marks the job done for Stop.
const (
	attemptRunning int32 = iota
	attemptReturned
	attemptAbandoned
)

// execute runs one claimed job and hands its result to the completer. A
// handler still running JobTimeoutGrace after its context ended is abandoned:
// the attempt is retried at once and Stop no longer waits for it, but the
// permit stays taken until the handler really returns (so a handler that
// ignores its context costs a slot, never an unbounded number of
// goroutines), and its late result is dropped without a finalizer call.
// It returns how many slots the job held; the caller (worker) gives them back.
// r.claimStart is when the claim call started (localDeadline); r.claimSpan
// is its span's context (invalid when tracing is off), which the handler's
// span links to. timer is the worker goroutine's (deadlineTimer).
func (q *queueRunner) execute(workCtx context.Context, r *claimedRun, timer *deadlineTimer) (held int) {
	j := &r.j
	held = 1
	if r.weight > 1 {
		held = q.widen(workCtx, r.weight)
		if q.widening.Add(-1) == 0 {
			select {
			case q.widened <- struct{}{}:
			default:
			}
		}
		if q.closedWhileWaiting(workCtx, j) {
			q.c.jobWG.Done()
			return
		}
	}
	cfg := &q.c.cfg
	unit, ok := cfg.Workers.byKind[j.Kind]
	if !ok {
		q.c.completer.add(withJob(handBack(j, cfg.UnknownKindDelay), j, 0))
		q.c.jobWG.Done()
		return
	}
	a := newAttemptRun(j, q.c.driver, q.c.rt)
	row := &a.row
	a.handle.pollEvery = cfg.CallbackPollInterval

	timeout, byWorker, err := unit.jobTimeout(row, j.Args, cfg.JobTimeout)
	if err != nil {
		q.c.completer.add(withJob(finishReq{action: actionRetry, r: j.Receipt, msg: err.Error()}, j, 0))
		q.c.jobWG.Done()
		return
	}
	lim := attemptLimits{timeout: timeout, local: localDeadline(j, r.claimStart), db: j.DeadlineAt}
	if byWorker && !q.ownDeadline(workCtx, j, r.claimStart, &lim) {
		q.c.jobWG.Done()
		return
	}

	// The handler's context (deadlineCtx) ends at its timeout or, when that
	// comes first, at the attempt's deadline: past it the leader rescues the
	// attempt, so the handler must stop too. JobRow.SetDeadline moves it. It
	// carries the handler's span.
	w := &a.watch
	w.q, w.workCtx, w.row, w.start = q, workCtx, row, time.Now()
	sctx, span := q.c.tracing.startProcess(workCtx, q.processSpan, j, r.claimSpan)
	ctx := &a.ctx
	ctx.parent, ctx.timer, ctx.watch = sctx, timer, w
	ctx.move(lim.end(w.start))
	a.handle.bind(ctx, lim)

	// Registered, an operator's cancel (or a rescue) of this attempt ends
	// ctx with cause ErrAttemptClosed, and a hard stop ends it (cancel.go).
	// The watchdog costs nothing until ctx ends other than by release: then
	// one timer for JobTimeoutGrace.
	q.c.attempts.start(a, workCtx)
	res := withJob(runHandler(ctx, workCtx, unit, row, j, w.start), j, time.Since(w.start))
	q.c.attempts.done(a)
	ctx.release()
	endProcess(span, &res)
	if w.state.CompareAndSwap(attemptRunning, attemptReturned) {
		q.c.metrics.processed(workCtx, &res)
		q.c.completer.add(res)
		q.c.jobWG.Done()
		return
	}
	q.c.log.Warn("awa: Abandoned handler returned; its result is dropped (the attempt was already retried)",
		slog.String("queue", q.name), slog.Int64("job_id", j.JobID), slog.Int64("run_lease", j.RunLease),
		slog.String("kind", j.Kind), slog.String("action", res.action.String()))
	return held
}

// attemptRun is what the runtime allocates for one attempt, in one piece:
// the handler's JobRow and its attempt handle, its context and its watchdog.
type attemptRun struct {
	row    JobRow
	handle attemptHandle
	ctx    deadlineCtx
	watch  watch
}

func newAttemptRun(j *ClaimedJob, d *Driver, db DBTX) *attemptRun {
	a := &attemptRun{}
	fillJobRow(&a.row, j)
	a.row.attempt = &a.handle
	a.handle.driver, a.handle.db, a.handle.receipt = d, db, j.Receipt
	return a
}

// localDeadline is the attempt's deadline on this process's clock (zero when
// it has none). DeadlineAt is the database's clock: read against a local clock
// that runs behind, the handler would outlive the rescue of its attempt. The
// deadline is claimed_at (the claim transaction's start, after claimStart)
// plus a fixed interval, so claimStart plus that interval comes no later.
func localDeadline(j *ClaimedJob, claimStart time.Time) time.Time {
	if j.DeadlineAt.IsZero() {
		return time.Time{}
	}
	return claimStart.Add(j.DeadlineAt.Sub(j.ClaimedAt))
}

// watch is one running attempt's watchdog: a handler still running
// JobTimeoutGrace after its context ended is abandoned.
type watch struct {
	q       *queueRunner
	workCtx context.Context
	row     *JobRow
	start   time.Time
	state   atomic.Int32 // attemptRunning, then attemptReturned or attemptAbandoned
	once    atomic.Bool  // ended armed the grace timer
	closed  atomic.Bool  // the attempt was closed from outside (the abandonment says so)
}

// ended runs when the handler's context ends other than by release: after
// JobTimeoutGrace, a handler that has not returned is abandoned and its
// attempt retried.
func (w *watch) ended() {
	if w.once.Swap(true) {
		return
	}
	time.AfterFunc(w.q.c.cfg.JobTimeoutGrace, w.abandon)
}

func (w *watch) abandon() {
	if !w.state.CompareAndSwap(attemptRunning, attemptAbandoned) {
		return
	}
	q, row := w.q, w.row
	why := q.overstay(w.workCtx, row.attempt.currentLimits(), w.start, w.closed.Load())
	q.c.log.Error("awa: Handler did not return within its timeout; the attempt is retried and the handler abandoned "+
		"(its slot stays taken until it returns)", slog.String("queue", q.name), slog.Int64("job_id", row.ID),
		slog.Int64("run_lease", row.RunLease), slog.String("kind", row.Kind), slog.String("reason", why))
	abandoned := finishReq{action: actionRetry, r: row.attempt.receipt,
		msg:  fmt.Sprintf("handler did not return within its timeout: %s; abandoned by the runtime", why),
		kind: row.Kind, queue: row.Queue, attempt: row.Attempt, took: time.Since(w.start)}
	q.c.metrics.processed(w.workCtx, &abandoned)
	q.c.completer.add(abandoned)
	q.c.jobWG.Done()
}

// closedWhileWaiting reports whether weighted job j's attempt was closed (an
// operator's cancel, a rescue) while it waited for its slots: its handler was
// not registered then (attempts), so the close's notification found nothing
// to cancel, and a handler run now would do a cancelled job's work. One
// awa.closed_attempts call per weighted job; when it fails the handler runs,
// and the heartbeat's check (closeStale) cancels it if it must.
func (q *queueRunner) closedWhileWaiting(workCtx context.Context, j *ClaimedJob) bool {
	ctx, cancel := context.WithTimeout(workCtx, 30*time.Second)
	closed, err := q.c.driver.ClosedAttempts(ctx, q.c.rt, []Receipt{j.Receipt})
	cancel()
	if err != nil || len(closed) == 0 {
		return false
	}
	q.c.log.Warn("awa: Attempt closed while it waited for its slots; the handler does not run",
		slog.String("queue", q.name), slog.Int64("job_id", j.JobID), slog.Int64("run_lease", j.RunLease),
		slog.String("kind", j.Kind))
	return true
}

// ownDeadline gives attempt j a deadline of its own, the claim time plus its
// worker's timeout plus JobTimeoutGrace, when that comes after its claim's
// deadline (a WorkerTimeout that depends on the args, longer than the
// client's claims cover): one awa.set_attempt_deadline call before the
// handler runs, and lim follows. A timeout the claim's deadline covers costs
// nothing here; so do Config.JobTimeout, which RescueStuckAfter exceeds, and
// a queue's deadline_seconds shorter than the client's claims ask. It
// returns false when the attempt is already closed: the handler must not run.
// When the call fails otherwise the handler runs to its claim's deadline.
func (q *queueRunner) ownDeadline(workCtx context.Context, j *ClaimedJob, claimStart time.Time, lim *attemptLimits) bool {
	if lim.timeout <= 0 || j.DeadlineAt.IsZero() {
		return true
	}
	want := j.ClaimedAt.Add(lim.timeout + q.c.cfg.JobTimeoutGrace)
	// A claim's deadline shorter than the client's attempt deadline is its
	// queue's deadline_seconds: the cap that no deadline of its own passes.
	if !want.After(j.DeadlineAt) || j.DeadlineAt.Sub(j.ClaimedAt) < q.c.claimDeadline.Truncate(time.Microsecond) {
		return true
	}
	ctx, cancel := context.WithTimeout(workCtx, 30*time.Second)
	at, err := q.c.driver.SetAttemptDeadline(ctx, q.c.rt, j.Receipt, want)
	cancel()
	switch {
	case err == nil:
		lim.db, lim.local = at, claimStart.Add(at.Sub(j.ClaimedAt))
		return true
	case errors.Is(err, ErrStaleAttempt):
		q.c.log.Warn("awa: Attempt closed before its handler started; the handler does not run",
			slog.String("queue", q.name), slog.Int64("job_id", j.JobID), slog.Int64("run_lease", j.RunLease),
			slog.String("kind", j.Kind))
		return false
	default:
		if workCtx.Err() == nil {
			q.c.log.Warn("awa: Could not give the attempt a deadline of its own; its handler runs to its claim's deadline",
				slog.String("queue", q.name), slog.Int64("job_id", j.JobID), slog.Int64("run_lease", j.RunLease),
				slog.String("kind", j.Kind), slog.String("error", err.Error()))
		}
		return true
	}
}

// withJob adds what the job outcome event reports to r.
func withJob(r finishReq, j *ClaimedJob, took time.Duration) finishReq {
	r.kind, r.queue, r.attempt, r.took = j.Kind, j.Queue, j.Attempt, took
	return r
}

// overstay says which limit an abandoned handler overstayed, and by how much grace.
func (q *queueRunner) overstay(workCtx context.Context, lim attemptLimits, start time.Time, closed bool) string {
	grace := q.c.cfg.JobTimeoutGrace
	switch {
	case workCtx.Err() != nil:
		return fmt.Sprintf("still running %s after the client stopped and cancelled it", grace)
	case closed:
		return fmt.Sprintf("still running %s after its attempt was closed (cancelled by an operator or rescued)", grace)
	case lim.pastDeadline(start):
		return fmt.Sprintf("still running %s after its attempt deadline %s", grace, lim.db.Format(time.RFC3339))
	default:
		return fmt.Sprintf("still running %s after its timeout of %s", grace, lim.timeout)
	}
}

// runHandler runs the handler under ctx (started at start) and maps its
// return to a finalizer request.
func runHandler(ctx, workCtx context.Context, unit workUnit, row *JobRow, j *ClaimedJob, start time.Time) finishReq {
	err := func() (err error) {
		defer func() {
			if p := recover(); p != nil {
				err = fmt.Errorf("panic: %v\n%s", p, debug.Stack())
			}
		}()
		return unit.run(ctx, row, j.Args)
	}()

	if err == nil {
		if row.attempt.completedInTx() {
			// JobCompleteTx completed the attempt in the handler's transaction:
			// if it committed, this retry is stale and dropped; if it rolled
			// back, the side effects did not happen either, and the job runs
			// again (docs/storage.md, "Exactly-once effects").
			return finishReq{action: actionRetry, r: j.Receipt, msg: errCompleteTxRolledBack}
		}
		return finishReq{action: actionComplete, r: j.Receipt}
	}
	if c, ok := asControl(err); ok {
		switch c.action {
		case "snooze":
			return finishReq{action: actionSnooze, r: j.Receipt, at: time.Now().Add(c.after)}
		case "cancel":
			return finishReq{action: actionCancel, r: j.Receipt, msg: errString(c.err)}
		case "park":
			if !row.attempt.registered() {
				return finishReq{action: actionRetry, r: j.Receipt, msg: errParkUnregistered}
			}
			return finishReq{action: actionPark, r: j.Receipt}
		default:
			return finishReq{action: actionFail, r: j.Receipt, msg: errString(c.err)}
		}
	}
	if errors.Is(context.Cause(ctx), ErrAttemptClosed) {
		// Closed from outside: this cancel is stale, the completer drops it.
		return finishReq{action: actionCancel, r: j.Receipt, msg: ErrAttemptClosed.Error()}
	}
	if ctx.Err() != nil && workCtx.Err() == nil {
		if lim := row.attempt.currentLimits(); lim.pastDeadline(start) {
			err = fmt.Errorf("job ran past its attempt deadline %s: %w", lim.db.Format(time.RFC3339), err)
		} else {
			err = fmt.Errorf("job timed out after %s: %w", lim.timeout, err)
		}
	}
	req := finishReq{action: actionRetry, r: j.Receipt, msg: err.Error()}
	if unit.nextRetry != nil {
		req.at = unit.nextRetry(row, j.Args)
	}
	return req
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
