package driver

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/awa-queue/awa/internal/sqlschema"
)

// leaderLeaseName is the lease row every client competes for.
const leaderLeaseName = "maintenance"

// keyLaneIdle is how long a key lane stays in the claims' rotation after its
// listing before the leader may retire it (when drained): a key with a job
// a minute costs a listing write a minute at most.
const keyLaneIdle = time.Minute

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
	events *eventBus
	// health records successful election calls; metrics (nil: off) counts
	// what the services did, and depths keeps the queue_depths service's
	// last read for the gauges.
	health  *healthState
	metrics *metrics
	depths  *depthSnapshot
	// promoteWake gets a value when the listener hears that a deferred job
	// due before every other one was written (nil: never).
	promoteWake <-chan struct{}

	mu       sync.Mutex
	leading  bool
	stopSvcs context.CancelFunc
	svcWG    sync.WaitGroup
}

func newElector(db DBTX, d *Driver, cfg Config, log *slog.Logger, events *eventBus) *elector {
	return &elector{db: db, driver: d, cfg: cfg, m: *cfg.Maintenance, log: log, events: events}
}

// IsLeader reports whether this client currently runs maintenance.
func (c *Client) IsLeader() bool {
	c.mu.Lock()
	e := c.elector
	c.mu.Unlock()
	if e == nil {
		return false
	}
	return e.isLeading()
}

// isLeading reports whether the elector currently leads.
func (e *elector) isLeading() bool {
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
		if err == nil && e.health != nil {
			e.health.elected.Store(time.Now().UnixNano())
		}
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
	e.events.emit(&Event{Kind: EventLeadershipGained})
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
	e.events.emit(&Event{Kind: EventLeadershipLost})
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
	// loop, when set, replaces the ticker and tick: the service paces itself.
	loop func(ctx context.Context, timeout time.Duration, log *slog.Logger)
}

func (s service) run(ctx context.Context, timeout time.Duration, log *slog.Logger) {
	if s.loop != nil {
		s.loop(ctx, timeout, log)
		return
	}
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

// maintenanceRoutines names the routines of the schema that the elector and
// the services of m call, queue_depths too when withMetrics (keep it in step
// with services).
func maintenanceRoutines(m MaintenanceConfig, withMetrics bool) []string {
	names := []string{"acquire_leader_lease", "release_leader_lease", "promote_due_jobs", "next_promotion", "rescue_stale_claims",
		"rescue_expired_deadlines", "rescue_expired_callbacks", "rotate_ring", "prune_ring", "cleanup_runtime_instances",
		"cleanup_attempt_state", "cleanup_unique_keys", "retire_idle_key_lanes", "maintain_archive", "upsert_periodic_job", "periodic_jobs_due", "fire_periodic_job",
		"reject_periodic_schedule"}
	if m.DLQRetention > 0 {
		names = append(names, "purge_dlq")
	}
	if withMetrics {
		names = append(names, "queue_depths")
	}
	return names
}

// checkMaintenancePrivileges refuses, with ErrMaintenancePrivileges, a role
// that may not execute every routine maintenance calls: such a client would
// only log a failure at every election tick.
func (c *Client) checkMaintenancePrivileges(ctx context.Context) error {
	rows, err := c.driver.q.MaintenanceRoutinesDenied(ctx, c.driver.on(c.rt), maintenanceRoutines(*c.cfg.Maintenance, c.metrics != nil))
	if err != nil {
		return fmt.Errorf("awa: check maintenance privileges: %w", mapError(err))
	}
	if len(rows) == 0 {
		return nil
	}
	denied := make([]string, len(rows))
	for i, r := range rows {
		denied[i] = r.Routine
	}
	return fmt.Errorf("%w: the client takes part in maintenance leader election, but role %s may not execute %s: "+
		"grant it %s, or set Config.DisableMaintenance and run maintenance elsewhere (docs/privileges.md)",
		ErrMaintenancePrivileges, rows[0].Role, strings.Join(denied, ", "), sqlschema.Role(c.driver.Schema(), "admin"))
}

func (e *elector) services() []service {
	d, db, m, log := e.driver, e.db, e.m, e.log
	// report logs and sends a pass that moved n jobs (or processes).
	report := func(kind EventKind, service, what string, n int) {
		if n > 0 {
			log.Info("awa: "+what, slog.Int("jobs", n))
			e.events.emit(&Event{Kind: kind, Count: n, Service: service})
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
				// held: once per slot left to a large unworked backlog.
				if o.Outcome == "skipped_blocked" || o.Outcome == "skipped_busy" || o.Outcome == "held" {
					lvl = slog.LevelInfo
				}
				log.Log(ctx, lvl, "awa: Ring maintenance", slog.String("ring", o.Ring), slog.String("action", o.Action),
					slog.String("outcome", o.Outcome), slog.Int("slot", int(o.Slot)), slog.String("detail", o.Detail))
				if e.events.listening() {
					e.events.emit(&Event{Kind: EventRingMaintenance, Ring: &o})
				}
				e.metrics.ringOutcome(ctx, o)
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
		// Not on a ticker: it sleeps until the next job is due (promoter.go).
		{name: "promote", loop: (&promoter{e: e, wake: e.promoteWake}).run},
		{name: "rescue_stale", interval: m.RescueInterval, tick: func(ctx context.Context) error {
			res, err := d.RescueStaleClaims(ctx, db, m.RescueStaleAfter, m.BatchSize)
			report(EventJobsRescued, "rescue_stale", "Rescued jobs of stale processes", len(res))
			e.metrics.rescuedJobs(ctx, rescueStaleHeartbeat, len(res))
			return err
		}},
		{name: "rescue_deadlines", interval: m.DeadlineInterval, tick: func(ctx context.Context) error {
			res, err := d.RescueExpiredDeadlines(ctx, db, m.BatchSize)
			// Its stale results include the own deadlines of attempts that
			// ended otherwise, cleared as they came due: only the applied
			// ones were rescued.
			rescued := 0
			for _, r := range res {
				if r.Outcome == Applied {
					rescued++
				}
			}
			report(EventJobsRescued, "rescue_deadlines", "Rescued jobs past their deadline", rescued)
			e.metrics.rescuedJobs(ctx, rescueDeadline, rescued)
			return err
		}},
		{name: "rescue_callbacks", interval: m.CallbackInterval, tick: func(ctx context.Context) error {
			res, err := d.RescueExpiredCallbacks(ctx, db, m.BatchSize)
			report(EventJobsRescued, "rescue_callbacks", "Retried jobs whose callback timed out", len(res))
			e.metrics.rescuedJobs(ctx, rescueCallbackTimeout, len(res))
			return err
		}},
		// Each ring's prune holds its slot's locks for a few milliseconds
		// (TRUNCATE): spread the rings over their interval.
		ring(RingQueue, m.QueueRingInterval, m.KeepSealedQueueSlots, 0),
		ring(RingClaim, m.ClaimRingInterval, 0, 0.25),
		ring(RingLease, m.LeaseRingInterval, 0, 0.5),
		ring(RingCursor, m.CursorRingInterval, 0, 0.75),
		// With the lease ring: the checkpoints of jobs the queue ring no
		// longer holds (docs/storage.md, "Attempt leases").
		{name: "attempt_state_cleanup", interval: m.LeaseRingInterval, tick: func(ctx context.Context) error {
			_, err := d.CleanupAttemptState(ctx, db, m.BatchSize)
			return err
		}},
	}
	// The archive: cohorts created ahead, expired ones dropped
	// (docs/storage.md, "History archive").
	// With the archive, whose drops end jobs' history: the unique key rows of
	// jobs history no longer has (docs/storage.md, "Unique jobs").
	// Half an interval in, not at election with the rings' first prunes: its
	// read holds the rings' tables (as every read surface does), and a prune
	// meeting it ends skipped_blocked until its next tick.
	svcs = append(svcs, service{name: "unique_keys_cleanup", interval: m.ArchiveInterval, phase: 0.5, tick: func(ctx context.Context) error {
		_, err := d.CleanupUniqueKeys(ctx, db, m.BatchSize)
		return err
	}})
	// Key lanes without work for a while leave the claims' rotation
	// (docs/storage.md, "Flow control"); a quarter interval in, apart from
	// the cleanup above (both read the ring's tables briefly).
	svcs = append(svcs, service{name: "key_lanes_retire", interval: m.ArchiveInterval, phase: 0.25, tick: func(ctx context.Context) error {
		_, err := d.RetireIdleKeyLanes(ctx, db, m.BatchSize, keyLaneIdle)
		return err
	}})
	svcs = append(svcs, service{name: "archive", interval: m.ArchiveInterval, tick: func(ctx context.Context) error {
		outs, err := d.MaintainArchive(ctx, db, m.PruneLockTimeout, 16)
		for _, o := range outs {
			lvl := slog.LevelDebug
			if o.Outcome == "skipped_blocked" || o.Outcome == "skipped_export" || o.Action == "drain" {
				lvl = slog.LevelInfo
			}
			log.Log(ctx, lvl, "awa: Archive maintenance", slog.String("action", o.Action),
				slog.String("outcome", o.Outcome), slog.Time("cohort_start", o.CohortStart), slog.String("detail", o.Detail))
		}
		return err
	}})
	// Periodic jobs: the client's declarations stored at the term's first
	// tick, then the due schedules fired (docs/periodic.md).
	periodic := &periodicService{d: d, db: db, batch: m.BatchSize, log: log, events: e.events,
		toDeclare: slices.Clone(e.cfg.periodic), parsed: map[[2]string]*schedule{}}
	svcs = append(svcs, service{name: "periodic", interval: m.PeriodicInterval, tick: periodic.tick})
	svcs = append(svcs, service{name: "instance_cleanup", interval: m.DLQCleanupInterval, tick: func(ctx context.Context) error {
		n, err := d.CleanupRuntimeInstances(ctx, db, m.InstanceRetention)
		if n > 0 {
			log.Info("awa: Removed rows of silent worker processes", slog.Int("processes", n))
			e.events.emit(&Event{Kind: EventProcessesRemoved, Count: n, Service: "instance_cleanup"})
		}
		return err
	}})
	// The queue gauges' figures (docs/observability.md): one bounded read
	// per interval, by the leader only, and only when metrics are on.
	if e.metrics != nil {
		// Half an interval in, not with the rings' first prunes at election:
		// the read holds the rings' tables (briefly) as every read surface does.
		svcs = append(svcs, service{name: "queue_depths", interval: m.QueueDepthInterval, phase: 0.5, tick: func(ctx context.Context) error {
			// The global provider with no SDK set (the default) records
			// nothing: no read for gauges no one collects.
			if !e.metrics.counting(ctx) {
				return nil
			}
			rows, err := d.QueueDepths(ctx, db, queueDepthCountLimit)
			if err == nil {
				e.depths.store(rows)
			}
			return err
		}})
	}
	if m.DLQRetention > 0 {
		svcs = append(svcs, service{name: "dlq_retention", interval: m.DLQCleanupInterval, tick: func(ctx context.Context) error {
			ids, err := d.PurgeDLQ(ctx, db, PurgeDLQFilter{FailedBefore: time.Now().Add(-m.DLQRetention), Max: m.BatchSize})
			report(EventDLQPurged, "dlq_retention", "Purged DLQ jobs past retention", len(ids))
			return err
		}})
	}
	return svcs
}
