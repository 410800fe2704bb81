package sqlrace

import (
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// TestOwnDeadlinesMovedUnderTheRescueAndCarriesAreHonoured runs workers whose
// attempts (claim deadline an hour away) set deadlines of their own a few
// hundred milliseconds ahead and keep moving them, later or earlier, then
// complete; the deadline rescue runs every few milliseconds, and the claim,
// lease and queue rings are turned as fast as they may (the batches carried
// forward under the deadlines' receipts). An attempt the rescue closed had,
// at the rescue's now, passed the last deadline it set (no deadline moved
// later is missed, no attempt is closed early); a worker's call is stale
// only for an attempt the rescue closed; no attempt is closed twice.
func TestOwnDeadlinesMovedUnderTheRescueAndCarriesAreHonoured(t *testing.T) {
	ctx, pool := newDB(t, 2*time.Minute)
	const queue = "deadline_adv"
	runCtx, cancel, fail := withErrOnce(ctx)
	defer cancel()
	stopAt := time.Now().Add(7 * time.Second)
	var wg sync.WaitGroup
	var mu sync.Mutex
	type key = [2]int64
	lastDeadline := map[key]time.Time{} // the last deadline each attempt set (applied)
	staleSeen := map[key]string{}       // attempts a worker's call found closed
	rescued := map[key][]time.Time{}    // the rescue's now for each applied rescue
	completed := map[key]bool{}
	var prunes int

	for w := 0; w < 3; w++ {
		seed := uint64(w + 1)
		goSession(t, ctx, pool, &wg, func(conn *pgx.Conn) {
			rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), seed))
			for time.Now().Before(stopAt) && runCtx.Err() == nil {
				if _, err := insertBatch(runCtx, conn, queue, 2, 2); err != nil {
					fail.set("insert: %v", err)
					return
				}
				cs, err := collectClaims(conn.Query(runCtx, `
					SELECT c.id, c.run_lease, c.claim_slot, c.receipt_id, c.priority, c.attempt
					FROM awa.claim_ready_runtime($1, $2, NULL, NULL, interval '1 hour') AS c`, queue, 1+rng.IntN(2)))
				if err != nil {
					fail.set("claim: %v", err)
					return
				}
				if len(cs) == 0 {
					continue
				}
				for until := time.Now().Add(time.Duration(100+rng.IntN(400)) * time.Millisecond); time.Now().Before(until); {
					for _, c := range cs {
						k := key{c.ID, c.RunLease}
						if _, gone := staleSeen[k]; gone {
							continue
						}
						var outcome string
						var at *time.Time
						err := conn.QueryRow(runCtx, `
							SELECT outcome::text, deadline_at FROM awa.set_attempt_deadline($1, $2, $3, $4,
								now() + make_interval(secs => $5::float8 / 1000))`,
							c.ID, c.RunLease, c.ClaimSlot, c.ReceiptID, 20+rng.IntN(250)).Scan(&outcome, &at)
						if err != nil {
							fail.set("set_attempt_deadline: %v", err)
							return
						}
						mu.Lock()
						if outcome == "applied" {
							lastDeadline[k] = *at
						} else {
							staleSeen[k] = "set_attempt_deadline"
						}
						mu.Unlock()
					}
					time.Sleep(time.Duration(10+rng.IntN(60)) * time.Millisecond)
				}
				fs, err := complete(runCtx, conn, cs)
				if err != nil {
					fail.set("complete: %v", err)
					return
				}
				mu.Lock()
				for _, f := range fs {
					k := key{f.JobID, f.RunLease}
					if f.Outcome == "applied" {
						completed[k] = true
					} else if _, ok := staleSeen[k]; !ok {
						staleSeen[k] = "complete"
					}
				}
				mu.Unlock()
			}
		})
	}
	goSession(t, ctx, pool, &wg, func(conn *pgx.Conn) {
		for time.Now().Before(stopAt) && runCtx.Err() == nil {
			rows, err := conn.Query(runCtx, `
				SELECT f.job_id, f.run_lease, f.outcome::text, now() FROM awa.rescue_expired_deadlines(100) AS f`)
			if err != nil {
				fail.set("rescue: %v", err)
				return
			}
			var id, lease int64
			var outcome string
			var now time.Time
			if _, err := pgx.ForEachRow(rows, []any{&id, &lease, &outcome, &now}, func() error {
				if outcome == "applied" {
					mu.Lock()
					rescued[key{id, lease}] = append(rescued[key{id, lease}], now)
					mu.Unlock()
				}
				return nil
			}); err != nil {
				fail.set("rescue: %v", err)
				return
			}
			if _, err := conn.Exec(runCtx, `SELECT count(*) FROM awa.promote_due_jobs(1000)`); err != nil {
				fail.set("promote: %v", err)
				return
			}
			time.Sleep(3 * time.Millisecond)
		}
	})
	goTurnRings(t, ctx, runCtx, pool, &wg, fail, stopAt, []string{"claim", "lease", "queue", "cursor"},
		func(ring string, o ringOutcome) {
			if ring == "claim" && o.Outcome == "pruned" {
				mu.Lock()
				prunes++
				mu.Unlock()
			}
		})
	wg.Wait()
	if err := fail.get(); err != nil {
		t.Fatal(err)
	}
	t.Logf("%d attempts with deadlines, %d rescued, %d completed, %d claim-ring prunes", len(lastDeadline), len(rescued),
		len(completed), prunes)
	if len(rescued) < 10 || len(completed) < 10 || prunes == 0 {
		t.Fatalf("the run did not exercise rescues against moving deadlines: %d rescued, %d completed, %d prunes",
			len(rescued), len(completed), prunes)
	}
	for k, at := range rescued {
		if len(at) > 1 || completed[k] {
			t.Errorf("attempt %v rescued %d times, completed %v", k, len(at), completed[k])
		}
		if d, ok := lastDeadline[k]; ok && at[0].Before(d) {
			t.Errorf("attempt %v rescued at %v, before its last deadline %v", k, at[0], d)
		}
	}
	for k, by := range staleSeen {
		if len(rescued[k]) == 0 {
			t.Errorf("attempt %v: %s was stale, and no rescue closed it", k, by)
		}
	}
}
