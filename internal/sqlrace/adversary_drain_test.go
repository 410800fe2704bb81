package sqlrace

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// drainCheck is one awa.queue_drained answer set beside awa.jobs read in the
// same REPEATABLE READ or SERIALIZABLE snapshot.
type drainCheck struct {
	drained, available, running, due bool
	jobsAvailable, jobsRunning       int64 // awa.jobs rows of the queue in that state
	jobsDue                          int64 // scheduled or retryable, run_at <= now()
}

// checkDrainedInOneSnapshot reads awa.queue_drained(queue) and then awa.jobs
// in one transaction at level (repeatable read or serializable), so both
// describe the same snapshot. A prune since the snapshot makes either read
// fail with 40001: retried is then true and the check says nothing.
func checkDrainedInOneSnapshot(ctx context.Context, conn *pgx.Conn, level pgx.TxIsoLevel, queue string, pin bool) (drainCheck, bool, error) {
	var c drainCheck
	tx, err := conn.BeginTx(ctx, pgx.TxOptions{IsoLevel: level})
	if err != nil {
		return c, false, err
	}
	defer func() { _ = tx.Rollback(context.Background()) }()
	if pin {
		// Take the snapshot first, then let the rings move before the reads.
		if _, err := tx.Exec(ctx, `SELECT 1`); err != nil {
			return c, false, err
		}
		time.Sleep(15 * time.Millisecond)
	}
	err = tx.QueryRow(ctx, `SELECT drained, available, running, due FROM awa.queue_drained($1)`, queue).
		Scan(&c.drained, &c.available, &c.running, &c.due)
	if err == nil {
		err = tx.QueryRow(ctx, `
			SELECT count(*) FILTER (WHERE state = 'available'),
			       count(*) FILTER (WHERE state = 'running'),
			       count(*) FILTER (WHERE state IN ('scheduled', 'retryable') AND run_at <= now())
			FROM awa.jobs WHERE queue = $1`, queue).Scan(&c.jobsAvailable, &c.jobsRunning, &c.jobsDue)
	}
	if sqlState(err) == "40001" {
		return c, true, nil
	}
	return c, false, err
}

// TestQueueDrainedAgreesWithAwaJobsInOneSnapshot runs producers (jobs due now
// and a few due within a second), claimers that complete, retry (due at
// once) or snooze what they claim, some after a while, the leader's
// promotion, and every ring turned as fast as it may, while checkers call
// awa.queue_drained at REPEATABLE READ and SERIALIZABLE (half of the calls
// with a snapshot taken before the rings moved) and read awa.jobs in the same
// snapshot. Each answer must match what awa.jobs shows: available exactly
// when it shows an available job, running when it shows a running one, due
// when it shows a scheduled or retryable one whose time has come, and
// drained only when it shows none of them; a prune since the snapshot may
// refuse the reads (40001), never answer wrong.
func TestQueueDrainedAgreesWithAwaJobsInOneSnapshot(t *testing.T) {
	ctx, pool := newDB(t, 2*time.Minute)
	const queue = "drain_race"
	runCtx, cancel, fail := withErrOnce(ctx)
	defer cancel()
	stopAt := time.Now().Add(7 * time.Second)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var prunes int
	stats := map[string]int{}

	goSession(t, ctx, pool, &wg, func(conn *pgx.Conn) {
		rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 1))
		for time.Now().Before(stopAt) && runCtx.Err() == nil {
			n := 1 + rng.IntN(4)
			later := rng.IntN(3) == 0
			if _, err := conn.Exec(runCtx, `
				SELECT count(*) FROM awa.insert_jobs(array_fill('k'::text, ARRAY[$1::int]), NULL,
					array_fill(jsonb_build_object('queue', 'drain_race',
						'run_at', CASE WHEN $2 THEN now() + interval '300 ms' ELSE now() END), ARRAY[$1::int]))`,
				n, later); err != nil {
				fail.set("insert: %v", err)
				return
			}
			// Quiet spells, so the queue drains now and then.
			time.Sleep(time.Duration(rng.IntN(60)) * time.Millisecond)
		}
	})
	for w := 0; w < 2; w++ {
		seed := uint64(w + 2)
		goSession(t, ctx, pool, &wg, func(conn *pgx.Conn) {
			rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), seed))
			for time.Now().Before(stopAt) && runCtx.Err() == nil {
				cs, err := claim(runCtx, conn, queue, 3, nil)
				if err != nil {
					fail.set("claim: %v", err)
					return
				}
				if len(cs) == 0 {
					time.Sleep(5 * time.Millisecond)
					continue
				}
				time.Sleep(time.Duration(rng.IntN(20)) * time.Millisecond)
				action := []string{"complete", "complete", "retry", "snooze"}[rng.IntN(4)]
				if _, err := finalizeAs(runCtx, conn, action, cs); err != nil {
					fail.set("%s: %v", action, err)
					return
				}
			}
		})
	}
	goSession(t, ctx, pool, &wg, func(conn *pgx.Conn) {
		for time.Now().Before(stopAt) && runCtx.Err() == nil {
			if _, err := conn.Exec(runCtx, `SELECT count(*) FROM awa.promote_due_jobs(1000)`); err != nil {
				fail.set("promote: %v", err)
				return
			}
			time.Sleep(7 * time.Millisecond)
		}
	})
	goRingTurner(t, ctx, runCtx, pool, &wg, fail, stopAt, &mu, &prunes)
	for i, level := range []pgx.TxIsoLevel{pgx.RepeatableRead, pgx.Serializable} {
		seed := uint64(i + 5)
		goSession(t, ctx, pool, &wg, func(conn *pgx.Conn) {
			rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), seed))
			for time.Now().Before(stopAt) && runCtx.Err() == nil {
				c, refused, err := checkDrainedInOneSnapshot(runCtx, conn, level, queue, rng.IntN(2) == 0)
				if err != nil {
					fail.set("%s check: %v", level, err)
					return
				}
				mu.Lock()
				switch {
				case refused:
					stats["refused (40001)"]++
				case c.drained:
					stats["drained"]++
				default:
					stats["not drained"]++
				}
				mu.Unlock()
				if refused {
					continue
				}
				if bad := drainDisagreement(c); bad != "" {
					fail.set("%s: queue_drained %+v against awa.jobs in the same snapshot: %s", level, c, bad)
					return
				}
			}
		})
	}
	wg.Wait()
	if err := fail.get(); err != nil {
		t.Fatal(err)
	}
	t.Logf("%v, %d queue-ring prunes", stats, prunes)
	if stats["drained"] == 0 || stats["not drained"] == 0 || prunes == 0 {
		t.Fatalf("the run did not exercise both answers against prunes: %v, %d prunes", stats, prunes)
	}
}

// drainDisagreement says where a queue_drained answer and awa.jobs of the
// same snapshot disagree ("" when they agree).
func drainDisagreement(c drainCheck) string {
	switch {
	case c.available != (c.jobsAvailable > 0):
		return fmt.Sprintf("available %v, awa.jobs shows %d available", c.available, c.jobsAvailable)
	case c.running != (c.jobsRunning > 0):
		return fmt.Sprintf("running %v, awa.jobs shows %d running", c.running, c.jobsRunning)
	case c.due != (c.jobsDue > 0):
		return fmt.Sprintf("due %v, awa.jobs shows %d due", c.due, c.jobsDue)
	case c.drained != !(c.available || c.running || c.due):
		return "drained is not the negation of the three parts"
	}
	return ""
}
