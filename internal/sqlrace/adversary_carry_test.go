package sqlrace

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// guardCall is a write to an open attempt that does not close it, as
// awa.set_progress, awa.set_attempt_deadline and awa.register_callback are
// called by the worker that holds it: each must apply while the attempt is
// open, wherever prune has carried its batch and lease.
var guardCall = map[string]string{
	"progress": `SELECT outcome::text FROM awa.set_progress($1, $2, $3, $4, '{"step": 1}')`,
	"deadline": `SELECT outcome::text FROM awa.set_attempt_deadline($1, $2, $3, $4, now() + interval '1 hour')`,
	"callback": `SELECT outcome::text FROM awa.register_callback($1, $2, $3, $4, interval '1 hour')`,
}

// leaseHeld reports whether the attempt c has a lease row, read after ACCESS
// SHARE on the lease and claim rings' tables (a statement of its own after
// the locks sees a prune's carry and TRUNCATE whole).
func leaseHeld(ctx context.Context, conn *pgx.Conn, c claimed) (bool, error) {
	tx, err := conn.Begin(ctx)
	if err != nil {
		return false, err
	}
	defer func() { _ = tx.Rollback(context.Background()) }()
	if _, err := tx.Exec(ctx, `LOCK TABLE awa.leases, awa.claim_batches, awa.claim_closures IN ACCESS SHARE MODE`); err != nil {
		return false, err
	}
	var held bool
	err = tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM awa.leases WHERE job_id = $1 AND run_lease = $2)`,
		c.ID, c.RunLease).Scan(&held)
	return held, err
}

// TestLongAttemptsCarriedByEveryRingAreClosedOnceAndNeverReportedStale runs
// three workers that hold their attempts for up to 0.6 s (many claim and
// lease rotations), write to them meanwhile (progress, an own deadline, a
// callback registration: the attempt escalates to a lease), check that an
// escalated attempt keeps its lease, then close them, half of the time with
// a second closer racing the first (complete against retry or cancel), while
// the maintenance session rotates and prunes the queue, claim, lease and
// cursor rings as fast as they may, carrying the open batches, ready rows
// and leases forward over and over. Every write and the first close of an
// attempt that only its worker closes must apply (never stale: the finalizers
// look in the receipt's issued slot first, then in the others); of two racing
// closers exactly one applies; no attempt's lease is lost while it is open;
// at the end every job ended exactly once.
func TestLongAttemptsCarriedByEveryRingAreClosedOnceAndNeverReportedStale(t *testing.T) {
	ctx, pool := newDB(t, 2*time.Minute)
	const queue = "carry_adv"
	runCtx, cancel, fail := withErrOnce(ctx)
	defer cancel()
	stopAt := time.Now().Add(8 * time.Second)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var all []int64
	applied := map[[2]int64]int{} // (job, run_lease) -> closes applied
	stats := map[string]int{}
	pruned := map[string]int{}
	bump := func(m map[string]int, k string) { mu.Lock(); m[k]++; mu.Unlock() }

	for w := 0; w < 3; w++ {
		seed := uint64(w + 1)
		conn := connect(t, ctx, pool)
		rival := connect(t, ctx, pool)
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), seed))
			for time.Now().Before(stopAt) && runCtx.Err() == nil {
				ids, err := insertBatch(runCtx, conn, queue, 2, 2)
				if err != nil {
					fail.set("insert: %v", err)
					return
				}
				mu.Lock()
				all = append(all, ids...)
				mu.Unlock()
				cs, err := claim(runCtx, conn, queue, 1+rng.IntN(3), nil)
				if err != nil {
					fail.set("claim: %v", err)
					return
				}
				if err := longAttempts(runCtx, conn, rival, rng, cs, func(c claimed, outcomes []string) {
					mu.Lock()
					defer mu.Unlock()
					for _, o := range outcomes {
						if o == "applied" {
							applied[[2]int64{c.ID, c.RunLease}]++
						}
					}
				}, bump, stats); err != nil {
					fail.set("%v", err)
					return
				}
			}
		}()
	}
	goTurnRings(t, ctx, runCtx, pool, &wg, fail, stopAt, []string{"queue", "claim", "lease", "cursor"},
		func(ring string, o ringOutcome) {
			if o.Outcome == "pruned" {
				bump(pruned, ring)
				if o.Detail != nil && strings.Contains(*o.Detail, "after carrying") {
					bump(pruned, ring+" carrying")
				}
			}
		})
	wg.Wait()
	if err := fail.get(); err != nil {
		t.Fatal(err)
	}

	conn := connect(t, ctx, pool)
	// The jobs left available or retried: claimed and completed now.
	for i := 0; i < 200; i++ {
		if _, err := conn.Exec(ctx, `SELECT count(*) FROM awa.promote_due_jobs(1000, now() + interval '1 day')`); err != nil {
			t.Fatal(err)
		}
		cs, err := claim(ctx, conn, queue, 100, nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(cs) == 0 {
			break
		}
		if _, err := completeApplied(ctx, conn, cs); err != nil {
			t.Fatal(err)
		}
	}
	drainRings(t, ctx, conn, "settling")
	t.Logf("%d jobs, %v, pruned %v", len(all), stats, pruned)
	if pruned["claim carrying"] == 0 || pruned["lease carrying"] == 0 || stats["guard applied"] < 50 || stats["racing closers"] < 20 {
		t.Fatalf("the run did not exercise carried attempts: %v, pruned %v", stats, pruned)
	}
	for k, n := range applied {
		if n > 1 {
			t.Errorf("attempt %v closed %d times", k, n)
		}
	}
	shown, err := jobRows(ctx, conn, all)
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range all {
		if s := shown[id]; len(s) != 1 || !terminal(s[0]) {
			t.Errorf("job %d shows as %v, want one terminal row", id, s)
		}
	}
}

// longAttempts holds the claims cs for a while, writing to each (progress,
// an own deadline, a callback registration), then checks each escalated
// attempt's lease and closes each, sometimes with rival closing it at the
// same moment. closed gets every close outcome of an attempt.
func longAttempts(ctx context.Context, conn, rival *pgx.Conn, rng *rand.Rand, cs []claimed,
	closed func(claimed, []string), bump func(map[string]int, string), stats map[string]int) error {
	escalated := map[int64]bool{}
	for hold := time.Now().Add(time.Duration(rng.IntN(600)) * time.Millisecond); time.Now().Before(hold); {
		for _, c := range cs {
			if rng.IntN(2) == 0 {
				continue
			}
			what := []string{"progress", "deadline", "callback"}[rng.IntN(3)]
			var outcome string
			if err := conn.QueryRow(ctx, guardCall[what], c.ID, c.RunLease, c.ClaimSlot, c.ReceiptID).Scan(&outcome); err != nil {
				return fmt.Errorf("%s of job %d: %w", what, c.ID, err)
			}
			if outcome != "applied" {
				return fmt.Errorf("%s of the open attempt (job %d, lease %d, slot %d) was %s", what, c.ID, c.RunLease, c.ClaimSlot, outcome)
			}
			escalated[c.ID] = true
			bump(stats, "guard applied")
		}
		time.Sleep(time.Duration(20+rng.IntN(60)) * time.Millisecond)
	}
	for _, c := range cs {
		if !escalated[c.ID] {
			continue
		}
		held, err := leaseHeld(ctx, conn, c)
		if err != nil {
			return err
		}
		if !held {
			return fmt.Errorf("the open attempt (job %d, lease %d) lost its lease", c.ID, c.RunLease)
		}
	}
	for _, c := range cs {
		action := []string{"complete", "complete", "retry", "fail"}[rng.IntN(4)]
		if rng.IntN(2) == 0 {
			bump(stats, "racing closers")
			other := []string{"retry", "cancel"}[rng.IntN(2)]
			theirs := inBackground(func() ([]finalized, error) { return finalizeAs(ctx, rival, other, []claimed{c}) })
			mine, err := finalizeAs(ctx, conn, action, []claimed{c})
			r := <-theirs
			if err != nil || r.err != nil {
				return fmt.Errorf("racing closers of job %d: %v, %v", c.ID, err, r.err)
			}
			outcomes := []string{mine[0].Outcome, r.v[0].Outcome}
			if (outcomes[0] == "applied") == (outcomes[1] == "applied") {
				return fmt.Errorf("racing closers of job %d (%s, %s): %v", c.ID, action, other, outcomes)
			}
			closed(c, outcomes)
			continue
		}
		fs, err := finalizeAs(ctx, conn, action, []claimed{c})
		if err != nil {
			return fmt.Errorf("%s of job %d: %w", action, c.ID, err)
		}
		if fs[0].Outcome != "applied" {
			return fmt.Errorf("%s of the open attempt (job %d, lease %d, slot %d) was %s", action, c.ID, c.RunLease, c.ClaimSlot, fs[0].Outcome)
		}
		closed(c, []string{fs[0].Outcome})
	}
	return nil
}
