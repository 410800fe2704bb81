package driver

import (
	"context"
	"log/slog"
	"time"
)

type finishAction int

const (
	actionComplete finishAction = iota
	actionRetry
	actionSnooze
	actionCancel
	actionFail
)

func (a finishAction) String() string {
	return [...]string{"complete", "retry", "snooze", "cancel", "fail"}[a]
}

// finishReq is one attempt's result waiting for its finalizer call.
type finishReq struct {
	action finishAction
	r      Receipt
	msg    string    // error or reason
	at     time.Time // snooze until
}

// completer batches finished attempts into one finalizer call per action:
// results wait at most CompleterFlushInterval (or until CompleterBatchSize
// pile up). Stale outcomes are logged and dropped, never retried; a failed
// call is retried with backoff, and if it keeps failing the attempts stay
// open for stale rescue to route (at-least-once).
type completer struct {
	db     DBTX // the pool, or its READ COMMITTED wrapper (see Client.Start)
	driver *Driver
	cfg    Config
	log    *slog.Logger
	in     chan finishReq
	drains chan chan struct{}
}

func newCompleter(db DBTX, d *Driver, cfg Config, log *slog.Logger) *completer {
	return &completer{db: db, driver: d, cfg: cfg, log: log,
		in: make(chan finishReq, 4*cfg.CompleterBatchSize), drains: make(chan chan struct{})}
}

func (c *completer) add(r finishReq) { c.in <- r }

// drain flushes everything added so far; the caller must have stopped adding.
func (c *completer) drain() {
	done := make(chan struct{})
	c.drains <- done
	<-done
}

func (c *completer) run(ctx context.Context) {
	var pending []finishReq
	var flushAt <-chan time.Time
	for {
		select {
		case <-ctx.Done():
			if len(pending) > 0 {
				c.flush(context.WithoutCancel(ctx), pending)
			}
			return
		case done := <-c.drains:
		collect:
			for {
				select {
				case r := <-c.in:
					pending = append(pending, r)
				default:
					break collect
				}
			}
			c.flush(context.WithoutCancel(ctx), pending)
			pending, flushAt = nil, nil
			close(done)
		case r := <-c.in:
			pending = append(pending, r)
			if len(pending) >= c.cfg.CompleterBatchSize {
				c.flush(ctx, pending)
				pending, flushAt = nil, nil
			} else if flushAt == nil {
				flushAt = time.After(c.cfg.CompleterFlushInterval)
			}
		case <-flushAt:
			c.flush(ctx, pending)
			pending, flushAt = nil, nil
		}
	}
}

// flush finalizes reqs, one SQL call per action present.
func (c *completer) flush(ctx context.Context, reqs []finishReq) {
	var by [actionFail + 1][]finishReq
	for _, r := range reqs {
		by[r.action] = append(by[r.action], r)
	}
	for action, rs := range by {
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
			for _, res := range results {
				if res.Outcome == Stale {
					c.log.Warn("awa: Stale result dropped (the attempt was rescued, cancelled or already finalized)",
						slog.Int64("job_id", res.JobID), slog.Int64("run_lease", res.RunLease),
						slog.String("action", action.String()))
				}
			}
			return
		}
		if attempt >= 8 || ctx.Err() != nil {
			c.log.Error("awa: Finalizer call failed; the attempts stay open until rescue",
				slog.String("action", action.String()), slog.Int("jobs", len(rs)), slog.String("error", err.Error()))
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

func (c *completer) call(ctx context.Context, action finishAction, rs []finishReq) ([]Result, error) {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	switch action {
	case actionComplete:
		receipts := make([]Receipt, len(rs))
		for i, r := range rs {
			receipts[i] = r.r
		}
		return c.driver.Complete(ctx, c.db, receipts)
	case actionRetry:
		items := make([]RetryItem, len(rs))
		for i, r := range rs {
			items[i] = RetryItem{Receipt: r.r, Error: r.msg}
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
