package driver

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5/pgtype"

	"github.com/awa-queue/awa/driver/internal/dbsqlc"
)

// Ring names the four storage rings.
type Ring string

// Rings.
const (
	RingQueue Ring = "queue"
	RingClaim Ring = "claim"
	RingLease Ring = "lease"
	// RingCursor holds the claim marks (the append-only half of the claim
	// cursors); its prune raises cursor floors.
	RingCursor Ring = "cursor"
)

// RingOutcome reports one rotate or prune attempt: Outcome is rotated,
// skipped_idle, skipped_busy, skipped_locked, skipped_race (rotate) or pruned,
// carried, held (a queue slot left to a backlog of more than 10,000 jobs, out
// of the rotation until they are worked), already_empty, skipped_live,
// skipped_blocked, skipped_locked (prune); Detail says why.
type RingOutcome struct {
	Ring       string
	Action     string
	Outcome    string
	Slot       int32 // -1 when the outcome names no slot
	Generation int64
	Detail     string
}

func ringOutcomes(rows []dbsqlc.AwaRingOutcome) []RingOutcome {
	out := make([]RingOutcome, len(rows))
	for i, r := range rows {
		slot := int32(-1)
		if r.Slot.Valid {
			slot = r.Slot.Int32
		}
		out[i] = RingOutcome{Ring: r.Ring, Action: r.Action, Outcome: r.Outcome, Slot: slot,
			Generation: r.Generation.Int64, Detail: r.Detail}
	}
	return out
}

// PromoteDueJobs makes up to max due scheduled/retryable jobs available.
func (d *Driver) PromoteDueJobs(ctx context.Context, db DBTX, max int) ([]InsertedJob, error) {
	rows, err := d.q.PromoteDueJobs(ctx, d.on(db), dbsqlc.PromoteDueJobsParams{Max: int32(max)})
	if err != nil {
		return nil, fmt.Errorf("promote due jobs: %w", mapError(err))
	}
	out := make([]InsertedJob, len(rows))
	for i, r := range rows {
		out[i] = insertedJob(r)
	}
	return out, nil
}

// NextPromotion reports how long until the deferred backlog's next job is
// due (awa.next_promotion), on the database's clock: zero when one is due
// already; ok is false when the backlog is empty.
func (d *Driver) NextPromotion(ctx context.Context, db DBTX) (wait time.Duration, ok bool, err error) {
	row, err := d.q.NextPromotion(ctx, d.on(db))
	if err != nil {
		return 0, false, fmt.Errorf("next promotion: %w", mapError(err))
	}
	if !row.WaitFor.Valid {
		return 0, false, nil
	}
	// The database's interval of microseconds (a job due days ahead has no
	// months in it: a timestamp difference counts days and microseconds).
	w := time.Duration(row.WaitFor.Microseconds)*time.Microsecond + time.Duration(row.WaitFor.Days)*24*time.Hour
	return w, true, nil
}

// RescueStaleClaims closes up to max attempts whose process stopped
// heartbeating for staleness and routes them through retry.
func (d *Driver) RescueStaleClaims(ctx context.Context, db DBTX, staleness time.Duration, max int) ([]Result, error) {
	rows, err := d.q.RescueStaleClaims(ctx, d.on(db), dbsqlc.RescueStaleClaimsParams{
		Staleness: interval(staleness), Max: int32(max),
	})
	if err != nil {
		return nil, fmt.Errorf("rescue stale claims: %w", mapError(err))
	}
	return results(rows), nil
}

// RescueExpiredDeadlines closes up to max attempts past their deadline (their
// own, awa.set_attempt_deadline, or else their claim's) and routes them
// through retry. A Stale result names an attempt found closed already (its
// own deadline, left by an attempt that ended otherwise, is cleared).
func (d *Driver) RescueExpiredDeadlines(ctx context.Context, db DBTX, max int) ([]Result, error) {
	rows, err := d.q.RescueExpiredDeadlines(ctx, d.on(db), dbsqlc.RescueExpiredDeadlinesParams{Max: int32(max)})
	if err != nil {
		return nil, fmt.Errorf("rescue expired deadlines: %w", mapError(err))
	}
	return results(rows), nil
}

// RotateRing tries once to seal the ring's current slot; it skips
// (skipped_recent) when the ring's last rotation, whoever made it, is younger
// than minInterval (0: no minimum).
func (d *Driver) RotateRing(ctx context.Context, db DBTX, ring Ring, minInterval time.Duration) ([]RingOutcome, error) {
	arg := dbsqlc.RotateRingParams{Ring: string(ring)}
	if minInterval > 0 {
		arg.MinInterval = interval(minInterval)
	}
	rows, err := d.q.RotateRing(ctx, d.on(db), arg)
	if err != nil {
		return nil, fmt.Errorf("rotate %s ring: %w", ring, mapError(err))
	}
	return ringOutcomes(rows), nil
}

// PruneRing tries once to truncate the ring's oldest sealed slot, waiting at
// most lockTimeout for its locks and leaving the keepSealed most recently
// sealed slots alone (capped at slot count - 2). Available jobs in a queue
// slot are first moved to the current slot (or the newest held one), at most
// carryLimit (1..100000) per call; while some remain the outcome is carried
// and the slot is kept. A slot with more than 10,000 of them is held instead
// (outcome held): nothing moves, and rotation passes over it until they are
// worked (docs/storage.md, "Held slots").
func (d *Driver) PruneRing(ctx context.Context, db DBTX, ring Ring, lockTimeout time.Duration, keepSealed, carryLimit int) ([]RingOutcome, error) {
	ms := lockTimeout.Milliseconds()
	if ms < 1 {
		ms = 1
	}
	rows, err := d.q.PruneRing(ctx, d.on(db), dbsqlc.PruneRingParams{Ring: string(ring), LockTimeoutMs: int32(ms),
		KeepSealed: int32(keepSealed), CarryLimit: int32(carryLimit)})
	if err != nil {
		return nil, fmt.Errorf("prune %s ring: %w", ring, mapError(err))
	}
	return ringOutcomes(rows), nil
}

// AcquireLeaderLease takes or renews the lease name for holder for ttl and
// reports whether holder leads.
func (d *Driver) AcquireLeaderLease(ctx context.Context, db DBTX, name string, holder [16]byte, ttl time.Duration) (bool, error) {
	row, err := d.q.AcquireLeaderLease(ctx, d.on(db), dbsqlc.AcquireLeaderLeaseParams{
		Name: name, Holder: uuid(holder), Ttl: interval(ttl),
	})
	if err != nil {
		return false, fmt.Errorf("acquire leader lease %q: %w", name, mapError(err))
	}
	return row.IsLeader, nil
}

// ReleaseLeaderLease gives the lease up if holder has it.
func (d *Driver) ReleaseLeaderLease(ctx context.Context, db DBTX, name string, holder [16]byte) error {
	if _, err := d.q.ReleaseLeaderLease(ctx, d.on(db), dbsqlc.ReleaseLeaderLeaseParams{Name: name, Holder: uuid(holder)}); err != nil {
		return fmt.Errorf("release leader lease %q: %w", name, mapError(err))
	}
	return nil
}

// CleanupRuntimeInstances deletes the rows of processes silent for longer
// than olderThan and returns how many it deleted.
func (d *Driver) CleanupRuntimeInstances(ctx context.Context, db DBTX, olderThan time.Duration) (int, error) {
	rows, err := d.q.CleanupRuntimeInstances(ctx, d.on(db), dbsqlc.CleanupRuntimeInstancesParams{
		OlderThan: interval(olderThan),
	})
	if err != nil {
		return 0, fmt.Errorf("cleanup runtime instances: %w", mapError(err))
	}
	return len(rows), nil
}

func interval(d time.Duration) pgtype.Interval {
	return pgtype.Interval{Microseconds: d.Microseconds(), Valid: true}
}

// CleanupAttemptState deletes up to max progress checkpoints of jobs that
// are gone (failed or cancelled jobs the queue ring no longer holds) and
// returns how many it deleted.
func (d *Driver) CleanupAttemptState(ctx context.Context, db DBTX, max int) (int, error) {
	rows, err := d.q.CleanupAttemptState(ctx, d.on(db), int32(max))
	if err != nil {
		return 0, fmt.Errorf("cleanup attempt state: %w", mapError(err))
	}
	return len(rows), nil
}

// CleanupUniqueKeys deletes up to max unique key rows (and displaced-holder
// records) of jobs that history no longer has, and returns how many it
// deleted. Such a key is free already; the rows would otherwise stay.
func (d *Driver) CleanupUniqueKeys(ctx context.Context, db DBTX, max int) (int, error) {
	rows, err := d.q.CleanupUniqueKeys(ctx, d.on(db), int32(max))
	if err != nil {
		return 0, fmt.Errorf("cleanup unique keys: %w", mapError(err))
	}
	return len(rows), nil
}

// RetireIdleKeyLanes takes out of the claims' rotation up to max key lanes
// (of queues with a concurrency key) listed for at least idle and drained
// (awa.retire_idle_key_lanes), and returns how many it took out. A key's
// next job lists its lane again.
func (d *Driver) RetireIdleKeyLanes(ctx context.Context, db DBTX, max int, idle time.Duration) (int, error) {
	rows, err := d.q.RetireIdleKeyLanes(ctx, d.on(db), dbsqlc.RetireIdleKeyLanesParams{Max: int32(max), Idle: interval(idle)})
	if err != nil {
		return 0, fmt.Errorf("retire idle key lanes: %w", mapError(err))
	}
	return len(rows), nil
}

// ArchiveOutcome reports one step of an archive maintenance pass: Action is
// create, drain or drop (maintain when the pass was skipped); Outcome is
// created, drained, dropped, skipped_blocked (a lock not granted within the
// bound), skipped_default (a cohort not created: the DEFAULT partition holds
// rows of it until the next drain), skipped_export (the export hook raised:
// the cohort is kept) or skipped_locked; CohortStart names the cohort (zero
// for the DEFAULT partition); Detail says why.
type ArchiveOutcome struct {
	Action      string
	Outcome     string
	CohortStart time.Time
	Rows        *int64
	Detail      string
}

// MaintainArchive runs one pass of archive maintenance (awa.maintain_archive):
// drain the DEFAULT partition, create cohorts ahead, and drop up to maxDrops
// cohorts whose retention has passed, waiting at most lockTimeout for each
// lock.
func (d *Driver) MaintainArchive(ctx context.Context, db DBTX, lockTimeout time.Duration, maxDrops int) ([]ArchiveOutcome, error) {
	ms := max(lockTimeout.Milliseconds(), 1)
	rows, err := d.q.MaintainArchive(ctx, d.on(db), dbsqlc.MaintainArchiveParams{LockTimeoutMs: int32(ms),
		MaxDrops: int32(maxDrops)})
	if err != nil {
		return nil, fmt.Errorf("maintain archive: %w", mapError(err))
	}
	out := make([]ArchiveOutcome, len(rows))
	for i, r := range rows {
		o := ArchiveOutcome{Action: r.Action, Outcome: r.Outcome, Detail: r.Detail}
		if r.CohortStart.Valid {
			o.CohortStart = r.CohortStart.Time
		}
		if r.Rows.Valid {
			o.Rows = &r.Rows.Int64
		}
		out[i] = o
	}
	return out, nil
}
