package driver

import (
	"context"
	"log/slog"
	"time"
)

// promoteChannel is the notification channel's name after the schema prefix
// on which awa._wake_promoter wakes the leader ("awa:+promote"; no queue name
// has a '+').
const promoteChannel = "+promote"

// promoteMinGap is the least time between two promotion passes: a backlog
// whose jobs fall due one after another is promoted in passes at most this
// often, so a scheduled job waits at most about this long past its run_at
// (plus the pass itself). It bounds the passes to 100 a second.
const promoteMinGap = 10 * time.Millisecond

// promoter is the leader's promotion service. It does not tick: after each
// pass it sleeps until the deferred backlog's next job is due
// (awa.next_promotion), at least promoteMinGap and at most
// MaintenanceConfig.PromoteInterval, and a notification that a job due
// earlier was written (wake, fed by the listener) cuts the sleep short. A
// pass promotes batches of BatchSize while they come back full, for at most
// a quarter of the interval, each call its own short transaction, so a large
// backlog that falls due at once moves at full speed without holding
// anything the claims wait for (docs/storage.md, "Promotion").
type promoter struct {
	e    *elector
	wake <-chan struct{}
}

func (p *promoter) run(ctx context.Context, timeout time.Duration, log *slog.Logger) {
	capWait := p.e.m.PromoteInterval
	minGap := min(promoteMinGap, capWait)
	for {
		wait := p.pass(ctx, timeout, log)
		wait = min(max(wait, minGap), capWait)
		// The least gap first, deaf to wake-ups: a burst of them costs one
		// pass, not one each.
		if !sleepCtx(ctx, minGap) {
			return
		}
		t := time.NewTimer(wait - minGap)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		case <-p.wake:
			t.Stop()
		}
	}
}

// pass promotes what is due and returns how long until the next job is due
// (the cap when the backlog is empty or a call failed).
func (p *promoter) pass(ctx context.Context, timeout time.Duration, log *slog.Logger) time.Duration {
	e, m := p.e, p.e.m
	until := time.Now().Add(m.PromoteInterval / 4)
	for {
		tctx, cancel := context.WithTimeout(ctx, timeout)
		jobs, err := e.driver.PromoteDueJobs(tctx, e.db, m.BatchSize)
		cancel()
		if len(jobs) > 0 {
			log.Debug("awa: Promoted due jobs", slog.Int("jobs", len(jobs)))
			e.events.emit(&Event{Kind: EventJobsPromoted, Count: len(jobs), Service: "promote"})
			e.metrics.promotedJobs(ctx, jobs)
		}
		if err != nil {
			if ctx.Err() == nil {
				log.Warn("awa: Maintenance service failed", slog.String("service", "promote"), slog.String("error", err.Error()))
			}
			return m.PromoteInterval
		}
		if len(jobs) < m.BatchSize || time.Now().After(until) {
			break
		}
	}
	tctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	wait, ok, err := e.driver.NextPromotion(tctx, e.db)
	if err != nil {
		if ctx.Err() == nil {
			log.Warn("awa: Maintenance service failed", slog.String("service", "promote"), slog.String("error", err.Error()))
		}
		return m.PromoteInterval
	}
	if !ok {
		return m.PromoteInterval
	}
	return wait
}

// sleepCtx sleeps d; false when ctx ended first.
func sleepCtx(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}
