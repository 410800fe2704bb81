package driver

import (
	"context"
	"log/slog"
	"sync"
	"time"
)

// MaintenanceConfig configures leader election and the maintenance services
// the leader runs. Zero fields take the defaults of DefaultMaintenance.
type MaintenanceConfig struct {
	// LeaderTTL is how long leadership lasts without renewal; a dead leader is
	// replaced within about this long. Defaults to 5s.
	LeaderTTL time.Duration
	// ElectInterval is how often every process tries to take or renew
	// leadership. Defaults to 1s.
	ElectInterval time.Duration
	// ServiceTimeout bounds each maintenance call. Defaults to 10s.
	ServiceTimeout time.Duration
	// PromoteInterval: due scheduled/retryable jobs become available. Defaults to 1s.
	PromoteInterval time.Duration
	// RescueInterval: stale-heartbeat rescue. Defaults to 5s.
	RescueInterval time.Duration
	// RescueStaleAfter: a process whose heartbeat is older than this has its
	// running jobs rescued. Keep it several HeartbeatIntervals. Defaults to 90s.
	RescueStaleAfter time.Duration
	// DeadlineInterval: rescue of attempts past their queue deadline. Defaults to 1s.
	DeadlineInterval time.Duration
	// QueueRingInterval, ClaimRingInterval, LeaseRingInterval: one rotate then
	// one prune per tick. A rotation is skipped when the ring's last rotation
	// (by any leader) is younger than the interval, so a leader change does
	// not rotate early. A prune that carried available jobs out of a slot
	// (up to BatchSize per call) is repeated in the same tick, for at most a
	// quarter of the interval. Default to 5s, 2s and 5s.
	QueueRingInterval, ClaimRingInterval, LeaseRingInterval time.Duration
	// CursorRingInterval: one prune then one rotate of the cursor ring (the
	// claim marks) per tick. With its 2 slots a rotation needs the other slot
	// pruned first, so a mark lives at most about 2 intervals; a lane idle
	// for a whole interval gets its cursor floor raised (one row update).
	// Defaults to 2s.
	CursorRingInterval time.Duration
	// KeepSealedQueueSlots is how many recently sealed queue-ring slots prune
	// leaves alone: terminal history stays readable in awa.jobs for about
	// KeepSealedQueueSlots x QueueRingInterval. Capped by the substrate at
	// slot count - 2 (14 with the default 16 slots), which is the default.
	KeepSealedQueueSlots int
	// PruneLockTimeout bounds prune's wait for a slot's locks. Defaults to 50ms.
	PruneLockTimeout time.Duration
	// DLQRetention: DLQ jobs older than this are purged. Defaults to 30 days;
	// negative keeps them forever.
	DLQRetention time.Duration
	// DLQCleanupInterval is also the interval of the process-row cleanup.
	// Defaults to 1 minute.
	DLQCleanupInterval time.Duration
	// BatchSize caps the jobs one promotion, rescue or prune call moves (a
	// prune call at most 100000). Defaults to 1000.
	BatchSize int
	// InstanceRetention: rows of processes silent for longer are deleted
	// (their claims were rescued long before). Defaults to 1 hour; at least
	// a minute and well above RescueStaleAfter.
	InstanceRetention time.Duration
}

// DefaultMaintenance returns the default maintenance configuration.
func DefaultMaintenance() *MaintenanceConfig {
	m := (&MaintenanceConfig{}).withDefaults()
	return &m
}

func (m *MaintenanceConfig) withDefaults() MaintenanceConfig {
	c := *m
	def := func(d *time.Duration, v time.Duration) {
		if *d == 0 {
			*d = v
		}
	}
	def(&c.LeaderTTL, 5*time.Second)
	def(&c.ElectInterval, time.Second)
	def(&c.ServiceTimeout, 10*time.Second)
	def(&c.PromoteInterval, time.Second)
	def(&c.RescueInterval, 5*time.Second)
	def(&c.RescueStaleAfter, 90*time.Second)
	def(&c.DeadlineInterval, time.Second)
	def(&c.QueueRingInterval, 5*time.Second)
	def(&c.ClaimRingInterval, 2*time.Second)
	def(&c.LeaseRingInterval, 5*time.Second)
	def(&c.CursorRingInterval, 2*time.Second)
	def(&c.PruneLockTimeout, 50*time.Millisecond)
	def(&c.DLQRetention, 30*24*time.Hour)
	def(&c.DLQCleanupInterval, time.Minute)
	def(&c.InstanceRetention, time.Hour)
	if c.InstanceRetention < 2*c.RescueStaleAfter {
		c.InstanceRetention = 2 * c.RescueStaleAfter
	}
	if c.InstanceRetention < time.Minute {
		c.InstanceRetention = time.Minute
	}
	if c.BatchSize <= 0 {
		c.BatchSize = 1000
	}
	if c.KeepSealedQueueSlots == 0 {
		c.KeepSealedQueueSlots = 14
	}
	if c.KeepSealedQueueSlots < 0 {
		c.KeepSealedQueueSlots = 0
	}
	// Renew well within the TTL: a leader that cannot renew steps down after
	// TTL/2, before anyone else can take the lease.
	if c.ElectInterval > c.LeaderTTL/4 {
		c.ElectInterval = c.LeaderTTL / 4
	}
	return c
}

// leaderLeaseName is the lease row every client competes for.
const leaderLeaseName = "maintenance"

// elector takes part in leader election through the awa.leader_leases row
// (awa.acquire_leader_lease): no session lock, so it works through
// transaction-mode poolers. While it leads it runs the maintenance services;
// when it cannot confirm its lease within half the TTL it stops them.
type elector struct {
	db     DBTX // the pool, or its READ COMMITTED wrapper (see Client.Start)
	driver *Driver
	cfg    Config
	m      MaintenanceConfig
	log    *slog.Logger

	mu       sync.Mutex
	leading  bool
	stopSvcs context.CancelFunc
	svcWG    sync.WaitGroup
}

func newElector(db DBTX, d *Driver, cfg Config, log *slog.Logger) *elector {
	return &elector{db: db, driver: d, cfg: cfg, m: *cfg.Maintenance, log: log}
}

// IsLeader reports whether this client currently runs maintenance.
func (c *Client) IsLeader() bool {
	c.mu.Lock()
	e := c.elector
	c.mu.Unlock()
	if e == nil {
		return false
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.leading
}

func (e *elector) run(ctx context.Context) {
	t := time.NewTicker(e.m.ElectInterval)
	defer t.Stop()
	var confirmed time.Time
	for {
		// The lease runs from the database's clock at the call, so count the
		// confirmation from before the call; a leader that has not renewed for
		// TTL/2 steps down, and a call may take at most TTL/4, so a stepping
		// down leader stops before its lease can be taken over.
		start := time.Now()
		actx, cancel := context.WithTimeout(ctx, e.m.LeaderTTL/4)
		leader, err := e.driver.AcquireLeaderLease(actx, e.db, leaderLeaseName, e.cfg.InstanceID, e.m.LeaderTTL)
		cancel()
		switch {
		case err != nil:
			if ctx.Err() != nil {
				e.stepDown()
				return
			}
			e.log.Warn("awa: Leader election failed", slog.String("error", err.Error()))
			if time.Since(confirmed) > e.m.LeaderTTL/2 {
				e.stepDown()
			}
		case leader:
			confirmed = start
			e.stepUp(ctx)
		default:
			e.stepDown()
		}
		select {
		case <-ctx.Done():
			e.stepDown()
			return
		case <-t.C:
		}
	}
}

func (e *elector) stepUp(ctx context.Context) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.leading {
		return
	}
	e.leading = true
	sctx, cancel := context.WithCancel(ctx)
	e.stopSvcs = cancel
	for _, s := range e.services() {
		e.svcWG.Add(1)
		go func() { defer e.svcWG.Done(); s.run(sctx, e.m.ServiceTimeout, e.log) }()
	}
	e.log.Info("awa: Became maintenance leader")
}

func (e *elector) stepDown() {
	e.mu.Lock()
	if !e.leading {
		e.mu.Unlock()
		return
	}
	e.leading = false
	e.stopSvcs()
	e.mu.Unlock()
	e.svcWG.Wait()
	e.log.Info("awa: Stopped leading maintenance")
}

// release gives leadership up at once on a clean stop (after run returned).
func (e *elector) release() {
	e.stepDown()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if err := e.driver.ReleaseLeaderLease(ctx, e.db, leaderLeaseName, e.cfg.InstanceID); err != nil {
		e.log.Warn("awa: Releasing leadership failed; it expires by itself", slog.String("error", err.Error()))
	}
}

// service is one maintenance concern on its own ticker and timeout.
type service struct {
	name     string
	interval time.Duration
	// phase delays the first tick by this share of the interval, so services
	// whose ticks hold locks the hot path waits for (the rings' prunes) do
	// not all fire at the same instant and add up their holds.
	phase float64
	tick  func(ctx context.Context) error
}

func (s service) run(ctx context.Context, timeout time.Duration, log *slog.Logger) {
	if s.phase > 0 {
		select {
		case <-ctx.Done():
			return
		case <-time.After(time.Duration(s.phase * float64(s.interval))):
		}
	}
	t := time.NewTicker(s.interval)
	defer t.Stop()
	for {
		tctx, cancel := context.WithTimeout(ctx, timeout)
		err := s.tick(tctx)
		cancel()
		if err != nil && ctx.Err() == nil {
			log.Warn("awa: Maintenance service failed", slog.String("service", s.name), slog.String("error", err.Error()))
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

func (e *elector) services() []service {
	d, db, m, log := e.driver, e.db, e.m, e.log
	logResults := func(what string, n int) {
		if n > 0 {
			log.Info("awa: "+what, slog.Int("jobs", n))
		}
	}
	ring := func(r Ring, interval time.Duration, keepSealed int, phase float64) service {
		// A little under the interval, so ticker jitter never skips a whole tick.
		minInterval := interval * 9 / 10
		// A prune that carried available jobs out of a slot (an unworked
		// backlog) goes on in the same tick, each call its own short
		// transaction, so a large backlog leaves the slot within a few ticks.
		carryBudget := interval / 4
		carryLimit := min(m.BatchSize, 100000)
		logOutcomes := func(ctx context.Context, outs []RingOutcome) (carried bool) {
			for _, o := range outs {
				lvl := slog.LevelDebug
				if o.Outcome == "skipped_blocked" || o.Outcome == "skipped_busy" {
					lvl = slog.LevelInfo
				}
				log.Log(ctx, lvl, "awa: Ring maintenance", slog.String("ring", o.Ring), slog.String("action", o.Action),
					slog.String("outcome", o.Outcome), slog.Int("slot", int(o.Slot)), slog.String("detail", o.Detail))
				carried = carried || o.Outcome == "carried"
			}
			return carried
		}
		rotate := func(ctx context.Context) error {
			outs, err := d.RotateRing(ctx, db, r, minInterval)
			if err == nil {
				logOutcomes(ctx, outs)
			}
			return err
		}
		return service{name: string(r) + "_ring", interval: interval, phase: phase, tick: func(ctx context.Context) error {
			// The cursor ring (2 slots) can only rotate into a pruned slot:
			// prune first, so the slot sealed a whole tick ago is reclaimed
			// and its idle lanes had that tick to get a newer mark.
			if r == RingCursor {
				outs, err := d.PruneRing(ctx, db, r, m.PruneLockTimeout, keepSealed, carryLimit)
				if err != nil {
					return err
				}
				logOutcomes(ctx, outs)
				return rotate(ctx)
			}
			if err := rotate(ctx); err != nil {
				return err
			}
			until := time.Now().Add(carryBudget)
			for {
				outs, err := d.PruneRing(ctx, db, r, m.PruneLockTimeout, keepSealed, carryLimit)
				if err != nil {
					return err
				}
				if !logOutcomes(ctx, outs) || time.Now().After(until) {
					return nil
				}
			}
		}}
	}
	svcs := []service{
		{name: "promote", interval: m.PromoteInterval, tick: func(ctx context.Context) error {
			jobs, err := d.PromoteDueJobs(ctx, db, m.BatchSize)
			logResults("Promoted due jobs", len(jobs))
			return err
		}},
		{name: "rescue_stale", interval: m.RescueInterval, tick: func(ctx context.Context) error {
			res, err := d.RescueStaleClaims(ctx, db, m.RescueStaleAfter, m.BatchSize)
			logResults("Rescued jobs of stale processes", len(res))
			return err
		}},
		{name: "rescue_deadlines", interval: m.DeadlineInterval, tick: func(ctx context.Context) error {
			res, err := d.RescueExpiredDeadlines(ctx, db, m.BatchSize)
			logResults("Rescued jobs past their deadline", len(res))
			return err
		}},
		// Each ring's prune holds its slot's locks for a few milliseconds
		// (TRUNCATE): spread the rings over their interval.
		ring(RingQueue, m.QueueRingInterval, m.KeepSealedQueueSlots, 0),
		ring(RingClaim, m.ClaimRingInterval, 0, 0.25),
		ring(RingLease, m.LeaseRingInterval, 0, 0.5),
		ring(RingCursor, m.CursorRingInterval, 0, 0.75),
	}
	svcs = append(svcs, service{name: "instance_cleanup", interval: m.DLQCleanupInterval, tick: func(ctx context.Context) error {
		n, err := d.CleanupRuntimeInstances(ctx, db, m.InstanceRetention)
		if n > 0 {
			log.Info("awa: Removed rows of silent worker processes", slog.Int("processes", n))
		}
		return err
	}})
	if m.DLQRetention > 0 {
		svcs = append(svcs, service{name: "dlq_retention", interval: m.DLQCleanupInterval, tick: func(ctx context.Context) error {
			ids, err := d.PurgeDLQ(ctx, db, PurgeDLQFilter{FailedBefore: time.Now().Add(-m.DLQRetention), Max: m.BatchSize})
			logResults("Purged DLQ jobs past retention", len(ids))
			return err
		}})
	}
	return svcs
}
