package benchkit

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/awa-queue/awa/driver"
)

// ---------------------------------------------------------------- backlog

// BacklogStats are what a backlog run measures beside jobs/s: the claim
// statement's server-side cost (pg_stat_statements, top-level calls of the
// measured phase), the database size the backlog occupies, and for awa the
// cost of carrying the unworked rest of the backlog out of a queue-ring slot
// (what maintenance does to it once per ring wrap).
type BacklogStats struct {
	Backlog      int64   `json:"backlog"`
	DBBytes      int64   `json:"database_bytes_after_pre_insert"`
	ClaimQuery   string  `json:"claim_query,omitempty"`
	ClaimCalls   int64   `json:"claim_calls,omitempty"`
	ClaimMeanMs  float64 `json:"claim_mean_ms,omitempty"`
	ClaimStdMs   float64 `json:"claim_stddev_ms,omitempty"`
	ClaimMaxMs   float64 `json:"claim_max_ms,omitempty"`
	ClaimRowsPer float64 `json:"claim_rows_per_call,omitempty"`
	// ClaimHitPer and ClaimReadPer are the claim's shared buffers per call:
	// found in the cache, read into it.
	ClaimHitPer  float64 `json:"claim_shared_hit_per_call,omitempty"`
	ClaimReadPer float64 `json:"claim_shared_read_per_call,omitempty"`
	// awa only: prune_ring calls that carried the slot's available jobs
	// forward, after the measured phase (the slot sealed by one rotation).
	CarryCalls   int     `json:"carry_calls,omitempty"`
	CarryJobs    int64   `json:"carry_jobs,omitempty"`
	CarrySeconds float64 `json:"carry_seconds,omitempty"`
	CarryWAL     int64   `json:"carry_wal_bytes,omitempty"`
	// CarryHeld: prune held the backlog's slot (outcome held) instead of
	// carrying it: nothing moved (docs/storage.md, "Held slots").
	CarryHeld bool `json:"carry_held,omitempty"`
}

// claimQueryMarks pick the claim statement out of pg_stat_statements by its
// sqlc name: awa's claim, River's available-jobs fetch.
var claimQueryMarks = []string{"name: ClaimReadyRuntime ", "name: JobGetAvailable "}

// backlogRun pre-inserts n jobs, then times w workers working the first
// work of them (the top of the backlog) and stops: the rest stays. It
// records the claim's cost and, for awa, what one carry of the rest costs.
func backlogRun(ctx context.Context, e *env, sys System, n, work int, run *Run) error {
	h, err := newHarness(ctx, e, sys, run)
	if err != nil {
		return err
	}
	defer h.close(ctx)
	pool, ins, err := h.inserter(ctx, sys, e.conns)
	if err != nil {
		return err
	}
	defer pool.Close()
	if _, err := h.preInsert(ctx, ins, n, "backlog"); err != nil {
		return err
	}
	bs := &BacklogStats{Backlog: int64(n)}
	run.Backlog = bs
	if err := h.monitor.QueryRow(ctx, `/*bench*/ SELECT pg_database_size(current_database())`).Scan(&bs.DBBytes); err != nil {
		return err
	}
	if err := h.begin(ctx); err != nil {
		return err
	}
	hd := &Handler{}
	rings, err := h.watchRings(ctx, hd)
	if err != nil {
		return err
	}
	defer rings()
	start := time.Now()
	stop, err := startWorkers(ctx, sys, pool, e.workers, hd)
	if err != nil {
		return err
	}
	defer stop()
	deadline := start.Add(e.timeout)
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	lastT := start
	for {
		<-tick.C
		now := time.Now()
		got := hd.started.Load()
		if got >= int64(work) {
			break
		}
		if now.Sub(lastT) >= time.Second {
			e.con.progress(fmt.Sprintf("%s backlog %d: %d/%d jobs worked, %.0f jobs/s overall",
				sys.Name(), n, got, work, float64(got)/now.Sub(start).Seconds()))
			lastT = now
		}
		if now.After(deadline) {
			return fmt.Errorf("backlog run timed out after %s with %d/%d jobs started", e.timeout, got, work)
		}
	}
	run.Seconds = time.Since(start).Seconds()
	run.Jobs = int64(work)
	run.PerSecond = float64(work) / run.Seconds
	if err := h.endWAL(ctx); err != nil {
		return err
	}
	if err := stop(); err != nil {
		return fmt.Errorf("stop: %w", err)
	}
	rings()
	pool.Close()
	if err := h.collect(ctx); err != nil {
		return err
	}
	bs.claimFrom(run.Stmts)
	if _, ok := sys.(AwaSystem); ok {
		return bs.carry(ctx, h)
	}
	return nil
}

// claimFrom takes the most called claim statement of stmts.
func (bs *BacklogStats) claimFrom(stmts []Statement) {
	for _, s := range stmts {
		if !s.TopLevel || s.Calls <= bs.ClaimCalls {
			continue
		}
		for _, m := range claimQueryMarks {
			if strings.Contains(s.Query, m) {
				bs.ClaimQuery, bs.ClaimCalls, bs.ClaimMeanMs, bs.ClaimStdMs, bs.ClaimMaxMs =
					s.Query, s.Calls, s.MeanMs, s.StddevMs, s.MaxMs
				bs.ClaimRowsPer = float64(s.Rows) / float64(s.Calls)
				bs.ClaimHitPer = float64(s.SharedHit) / float64(s.Calls)
				bs.ClaimReadPer = float64(s.SharedRead) / float64(s.Calls)
			}
		}
	}
}

// carryCalls bounds the measured carry: 10 calls of 10,000 jobs (the driver
// default batch is 1,000 per call, repeated for a quarter of the interval).
const carryCalls, carryLimit = 10, 10_000

// carry seals the backlog's queue-ring slot (one rotation) and times
// prune_ring's calls for it, as the leader makes them once per ring wrap: a
// backlog of more than 10,000 jobs is held (one call, nothing moved), a
// smaller one carried.
func (bs *BacklogStats) carry(ctx context.Context, h *harness) error {
	if _, err := h.monitor.Exec(ctx, `/*bench*/ SELECT * FROM awa.rotate_ring('queue', now(), interval '0')`); err != nil {
		return fmt.Errorf("carry: rotate: %w", err)
	}
	lsn0, err := walLSN(ctx, h.monitor)
	if err != nil {
		return err
	}
	t0 := time.Now()
	for bs.CarryCalls < carryCalls {
		var o driver.RingOutcome
		if err := h.monitor.QueryRow(ctx, `/*bench*/ SELECT outcome, detail FROM awa.prune_ring('queue', 1000, 0, $1)`,
			carryLimit).Scan(&o.Outcome, &o.Detail); err != nil {
			return fmt.Errorf("carry: prune: %w", err)
		}
		if o.Outcome == "held" {
			bs.CarryCalls++
			bs.CarryHeld = true
			break
		}
		if o.Outcome != "carried" && o.Outcome != "pruned" {
			break
		}
		bs.CarryCalls++
		for _, m := range carriedRows.FindAllStringSubmatch(o.Detail, -1) {
			k, _ := strconv.ParseInt(m[1], 10, 64)
			bs.CarryJobs += k
		}
		if o.Outcome == "pruned" {
			break
		}
	}
	bs.CarrySeconds = time.Since(t0).Seconds()
	lsn1, err := walLSN(ctx, h.monitor)
	if err != nil {
		return err
	}
	bs.CarryWAL, err = walDiff(ctx, h.monitor, lsn0, lsn1)
	return err
}
