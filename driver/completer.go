package driver

import (
	"context"
	"errors"
	"log/slog"
	"math"
	"strings"
	"time"
)

type finishAction int

const (
	actionComplete finishAction = iota
	actionRetry
	actionSnooze
	actionCancel
	actionFail
	actionPark
)

func (a finishAction) String() string {
	return [...]string{"complete", "retry", "snooze", "cancel", "fail", "park"}[a]
}

// finishReq is one attempt's result waiting for its finalizer call.
type finishReq struct {
	action finishAction
	r      Receipt
	msg    string    // error or reason
	at     time.Time // snooze until; retry at (zero: the backoff)
	// For the job outcome event: the job and how long its handler ran.
	kind, queue string
	attempt     int
	took        time.Duration
}

// eventKinds maps a finalizer action to the event of its applied result; a
// retry that exhausted the attempts is EventJobFailed instead.
var eventKinds = [...]EventKind{actionComplete: EventJobCompleted, actionRetry: EventJobRetried,
	actionSnooze: EventJobSnoozed, actionCancel: EventJobCancelled, actionFail: EventJobFailed, actionPark: EventJobParked}

// completer batches finished attempts into one finalizer call per action:
// results wait at most CompleterFlushInterval (or until CompleterBatchSize
// pile up). Stale outcomes are logged and dropped. It never gives a result up
// while the process lives: a failed call is retried at once with backoff
// (fastRetries calls, about 5s); results still failing then are kept and
// tried again every CompleterRetryInterval, one result per call (one poison
// result cannot block the others), until applied or stale. On Stop it makes a
// last attempt and leaves what still fails to rescue (the process's heartbeat
// stops with it, and every attempt has a deadline).
type completer struct {
	db     DBTX // the pool, or its READ COMMITTED wrapper (see Client.Start)
	driver *Driver
	cfg    Config
	log    *slog.Logger
	events *eventBus
	// metrics: nil when off (and in Driver.Work).
	metrics *metrics
	in      chan finishReq
	drains  chan chan struct{}
	// failed holds results whose fast retries all failed, oldest first.
	failed []finishReq
	// by is flush's split of a batch by action, its slices kept from one
	// flush to the next (nothing holds them after flush returns).
	by [actionPark + 1][]finishReq
}

// fastRetries is how many times a batch's finalizer call is tried before its
// results move to the slow retry list.
const fastRetries = 8

// slowRoundFailures ends a slow retry round after this many calls in a row
// failed (the database is likely down; the next round tries again).
const slowRoundFailures = 3

func newCompleter(db DBTX, d *Driver, cfg Config, log *slog.Logger, events *eventBus, m *metrics) *completer {
	return &completer{db: db, driver: d, cfg: cfg, log: log, events: events, metrics: m,
		in: make(chan finishReq, 4*cfg.CompleterBatchSize), drains: make(chan chan struct{})}
}

func (c *completer) add(r finishReq) {
	r.msg = cleanText(r.msg)
	c.in <- r
}

// cleanText makes a message storable as PostgreSQL text (no NUL byte, valid
// UTF-8), so a handler's error can never make its finalizer call fail.
func cleanText(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	return strings.ReplaceAll(s, "\x00", "\uFFFD")
}

// drain flushes everything added so far; the caller must have stopped adding.
func (c *completer) drain() {
	done := make(chan struct{})
	c.drains <- done
	<-done
}

func (c *completer) run(ctx context.Context) {
	var pending []finishReq // kept from one flush to the next: flush copies what it keeps
	var flushAt <-chan time.Time
	retry := time.NewTicker(c.cfg.CompleterRetryInterval)
	defer retry.Stop()
	for {
		select {
		case <-ctx.Done():
			if len(pending) > 0 {
				c.flush(context.WithoutCancel(ctx), pending)
			}
			c.lastAttempt(context.WithoutCancel(ctx))
			return
		case done := <-c.drains:
			pending = c.takeWaiting(pending, math.MaxInt)
			c.flush(context.WithoutCancel(ctx), pending)
			pending, flushAt = pending[:0], nil
			c.lastAttempt(context.WithoutCancel(ctx))
			close(done)
		case r := <-c.in:
			// What else waits, without one more select per result.
			pending = c.takeWaiting(append(pending, r), c.cfg.CompleterBatchSize)
			if len(pending) >= c.cfg.CompleterBatchSize {
				c.flush(ctx, pending)
				pending, flushAt = pending[:0], nil
			} else if flushAt == nil {
				flushAt = time.After(c.cfg.CompleterFlushInterval)
			}
		case <-flushAt:
			c.flush(ctx, pending)
			pending, flushAt = pending[:0], nil
		case <-retry.C:
			if len(c.failed) > 0 {
				c.retryFailed(ctx)
			}
		}
	}
}

// takeWaiting appends the results waiting on in to pending, up to limit in
// all, without waiting: a receive that cannot block costs a fraction of a
// select over run's cases.
func (c *completer) takeWaiting(pending []finishReq, limit int) []finishReq {
	for len(pending) < limit {
		select {
		case r := <-c.in:
			pending = append(pending, r)
		default:
			return pending
		}
	}
	return pending
}

// flush finalizes reqs, one SQL call per action present.
func (c *completer) flush(ctx context.Context, reqs []finishReq) {
	for a := range c.by {
		c.by[a] = c.by[a][:0]
	}
	for _, r := range reqs {
		c.by[r.action] = append(c.by[r.action], r)
	}
	for action, rs := range c.by {
		if len(rs) > 0 {
			c.flushAction(ctx, finishAction(action), rs)
		}
	}
}

func (c *completer) flushAction(ctx context.Context, action finishAction, rs []finishReq) {
	delay := 50 * time.Millisecond
	for attempt := 1; ; attempt++ {
		results, err := c.call(ctx, action, rs)
		if err == nil {
			c.applied(action, rs, results)
			return
		}
		if action == actionPark && errors.Is(err, ErrCallbackNotRegistered) {
			c.parkOneByOne(ctx, rs)
			return
		}
		if attempt >= fastRetries || ctx.Err() != nil {
			c.failed = append(c.failed, rs...)
			c.log.Error("awa: Finalizer call keeps failing; its results are kept and retried one by one",
				slog.String("action", action.String()), slog.Int("jobs", len(rs)), slog.Int("failing_jobs", len(c.failed)),
				slog.Duration("retry_interval", c.cfg.CompleterRetryInterval), slog.String("error", err.Error()))
			return
		}
		c.log.Warn("awa: Finalizer call failed, retrying", slog.String("action", action.String()),
			slog.Int("jobs", len(rs)), slog.String("error", err.Error()))
		select {
		case <-ctx.Done():
		case <-time.After(delay):
		}
		delay = min(delay*2, 2*time.Second)
	}
}

// parkOneByOne parks rs one call each after their batch raised AW022 (an
// attempt without a registered callback; the runtime parks only attempts
// that registered one, so this is rare): the attempt that raises it again is
// retried with an error saying why, and the others are parked.
func (c *completer) parkOneByOne(ctx context.Context, rs []finishReq) {
	for _, r := range rs {
		results, err := c.call(ctx, actionPark, []finishReq{r})
		switch {
		case err == nil:
			c.applied(actionPark, []finishReq{r}, results)
		case errors.Is(err, ErrCallbackNotRegistered):
			c.log.Warn("awa: Park without a registered callback; the attempt is retried",
				slog.Int64("job_id", r.r.JobID), slog.Int64("run_lease", r.r.RunLease))
			r.action, r.msg = actionRetry, errParkUnregistered
			c.flushAction(ctx, actionRetry, []finishReq{r})
		default:
			c.flushAction(ctx, actionPark, []finishReq{r})
		}
	}
}

// applied logs the stale results of a finalizer call on rs, counts every
// result (metrics) and sends a job outcome event for each applied one.
func (c *completer) applied(action finishAction, rs []finishReq, results []Result) {
	ctx := context.Background()
	events, counting := c.events.listeningJobs(), c.metrics.counting(ctx)
	var byAttempt map[Receipt]*finishReq
	for i, res := range results {
		var r *finishReq
		if events || counting {
			// The finalizers return their results in the order of their
			// input; a map, made on the first result out of place, finds
			// the others.
			if byAttempt == nil && i < len(rs) && rs[i].r.JobID == res.JobID && rs[i].r.RunLease == res.RunLease {
				r = &rs[i]
			} else {
				if byAttempt == nil {
					byAttempt = make(map[Receipt]*finishReq, len(rs))
					for i := range rs {
						byAttempt[Receipt{JobID: rs[i].r.JobID, RunLease: rs[i].r.RunLease}] = &rs[i]
					}
				}
				r = byAttempt[Receipt{JobID: res.JobID, RunLease: res.RunLease}]
			}
		}
		ok := r != nil
		if ok && counting {
			c.metrics.finalizedOne(ctx, action, r, res)
		}
		if res.Outcome == Stale {
			c.log.Warn("awa: Stale result dropped (the attempt was rescued, cancelled or already finalized)",
				slog.Int64("job_id", res.JobID), slog.Int64("run_lease", res.RunLease),
				slog.String("action", action.String()))
			continue
		}
		if !ok || !events {
			continue
		}
		kind := eventKinds[action]
		if res.State == StateFailed {
			kind = EventJobFailed
		}
		c.events.emit(&Event{Kind: kind, Job: &JobEvent{ID: res.JobID, Kind: r.kind, Queue: r.queue,
			Attempt: r.attempt, RunLease: res.RunLease, State: res.State, Duration: r.took, Error: r.msg}})
	}
}

// retryFailed makes one slow round over the failed results, one finalizer
// call each, until slowRoundFailures calls in a row fail. Results that fail
// again go to the back, so the next round starts with others.
func (c *completer) retryFailed(ctx context.Context) {
	var again []finishReq
	var lastErr error
	done, inARow := 0, 0
	i := 0
	for ; i < len(c.failed) && inARow < slowRoundFailures && ctx.Err() == nil; i++ {
		r := c.failed[i]
		results, err := c.call(ctx, r.action, []finishReq{r})
		if err != nil {
			again = append(again, r)
			lastErr = err
			inARow++
			continue
		}
		inARow = 0
		done++
		c.applied(r.action, []finishReq{r}, results)
		for _, res := range results {
			if res.Outcome == Applied {
				c.log.Info("awa: Finalized a result after failed calls", slog.Int64("job_id", res.JobID),
					slog.Int64("run_lease", res.RunLease), slog.String("action", r.action.String()))
			}
		}
	}
	c.failed = append(append([]finishReq(nil), c.failed[i:]...), again...)
	if lastErr != nil {
		c.log.Warn("awa: Finalizer retries still failing", slog.Int("failing_jobs", len(c.failed)),
			slog.Int("finalized", done), slog.String("error", lastErr.Error()))
	}
}

// lastAttempt is the stop-time round over the failed results; whatever still
// fails is left to rescue.
func (c *completer) lastAttempt(ctx context.Context) {
	if len(c.failed) == 0 {
		return
	}
	c.retryFailed(ctx)
	if n := len(c.failed); n > 0 {
		ids := make([]int64, n)
		for i, r := range c.failed {
			ids[i] = r.r.JobID
		}
		c.log.Error("awa: Stopping with results that could not be finalized; their attempts are left to rescue",
			slog.Int("jobs", n), slog.Any("job_ids", ids))
		c.failed = nil
	}
}

// call runs the finalizer of action for rs (one SQL call) and records it.
func (c *completer) call(ctx context.Context, action finishAction, rs []finishReq) ([]Result, error) {
	results, err := c.finalize(ctx, action, rs)
	c.metrics.completerCall(ctx, action, len(rs), err)
	return results, err
}

func (c *completer) finalize(ctx context.Context, action finishAction, rs []finishReq) ([]Result, error) {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	switch action {
	case actionComplete, actionPark:
		receipts := make([]Receipt, len(rs))
		for i, r := range rs {
			receipts[i] = r.r
		}
		if action == actionPark {
			return c.driver.Park(ctx, c.db, receipts)
		}
		return c.driver.Complete(ctx, c.db, receipts)
	case actionRetry:
		items := make([]RetryItem, len(rs))
		for i, r := range rs {
			items[i] = RetryItem{Receipt: r.r, Error: r.msg, RetryAt: r.at}
		}
		return c.driver.Retry(ctx, c.db, items)
	case actionSnooze:
		items := make([]SnoozeItem, len(rs))
		for i, r := range rs {
			items[i] = SnoozeItem{Receipt: r.r, RunAt: r.at}
		}
		return c.driver.Snooze(ctx, c.db, items)
	default:
		items := make([]ReasonItem, len(rs))
		for i, r := range rs {
			items[i] = ReasonItem{Receipt: r.r, Reason: r.msg}
		}
		if action == actionCancel {
			return c.driver.Cancel(ctx, c.db, items)
		}
		return c.driver.Fail(ctx, c.db, items)
	}
}
