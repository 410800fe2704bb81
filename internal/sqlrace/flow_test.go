package sqlrace

import (
	"errors"
	"sort"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// TestRateLimitHoldsOverEverySecondWithSeveralClaimers runs four claimers of
// a queue limited to 20 jobs/s with a burst of 5, each claiming up to 8 jobs
// at a time and completing them, for 3 s over a backlog that never runs out.
// Counted by claimed_at, no window of 1 s (one starting at every claim) holds
// more than rate + burst = 25 starts.
func TestRateLimitHoldsOverEverySecondWithSeveralClaimers(t *testing.T) {
	ctx, pool := newDB(t, 2*time.Minute)
	const queue, rate, burst = "rl", 20, 5
	setup := connect(t, ctx, pool)
	if _, err := setup.Exec(ctx, `SELECT * FROM awa.configure_queue($1, jsonb_build_object('rate_limit',
		jsonb_build_object('per_second', $2::int, 'burst', $3::int)))`, queue, rate, burst); err != nil {
		t.Fatal(err)
	}
	if _, err := insertBatch(ctx, setup, queue, 2, 1000); err != nil {
		t.Fatal(err)
	}
	runCtx, cancel, fail := withErrOnce(ctx)
	defer cancel()
	stopAt := time.Now().Add(3 * time.Second)
	var wg sync.WaitGroup
	for c := 0; c < 4; c++ {
		goSession(t, ctx, pool, &wg, func(conn *pgx.Conn) {
			for time.Now().Before(stopAt) && runCtx.Err() == nil {
				cs, err := claim(runCtx, conn, queue, 8, nil)
				if err != nil {
					fail.set("claim: %v", err)
					return
				}
				if len(cs) == 0 {
					time.Sleep(5 * time.Millisecond)
					continue
				}
				if _, err := complete(runCtx, conn, cs); err != nil {
					fail.set("complete: %v", err)
					return
				}
			}
		})
	}
	wg.Wait()
	if err := fail.get(); err != nil {
		t.Fatal(err)
	}

	type start struct {
		at time.Time
		n  int
	}
	rows, err := setup.Query(ctx, `SELECT claimed_at, cardinality(job_ids) FROM awa.claim_batches WHERE queue = $1
		ORDER BY claimed_at`, queue)
	if err != nil {
		t.Fatal(err)
	}
	starts, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (start, error) {
		var s start
		return s, r.Scan(&s.at, &s.n)
	})
	if err != nil {
		t.Fatal(err)
	}
	total := 0
	for i, s := range starts {
		total += s.n
		inWindow := 0
		for _, o := range starts[i:] {
			if o.at.Sub(s.at) >= time.Second {
				break
			}
			inWindow += o.n
		}
		if inWindow > rate+burst {
			t.Fatalf("%d jobs started in the second from %s; the limit allows %d", inWindow, s.at, rate+burst)
		}
	}
	// 3 s allow at most burst + 3*rate = 65; a run that started almost none
	// proved nothing.
	if total < rate || total > burst+3*rate+rate {
		t.Fatalf("%d jobs started in 3 s at %d/s with burst %d", total, rate, burst)
	}
	t.Logf("%d jobs started in 3 s (limit %d/s, burst %d)", total, rate, burst)
}

// TestDepthLimitOvershootIsBoundedByInflightBatches runs six producers that
// insert batches of 10 into a queue with max_depth 100, each holding its
// transaction open a little before commit, while a claimer drains a few jobs
// now and then. A sampler and the end check see at most max_depth + 5*10
// available jobs (the other producers' in-flight batches), and producers are
// refused (AW060) along the way.
func TestDepthLimitOvershootIsBoundedByInflightBatches(t *testing.T) {
	ctx, pool := newDB(t, 2*time.Minute)
	const queue, maxDepth, producers, batch = "dl", 100, 6, 10
	const bound = maxDepth + (producers-1)*batch
	setup := connect(t, ctx, pool)
	if _, err := setup.Exec(ctx, `SELECT * FROM awa.configure_queue($1, jsonb_build_object('max_depth', $2::int))`,
		queue, maxDepth); err != nil {
		t.Fatal(err)
	}
	runCtx, cancel, fail := withErrOnce(ctx)
	defer cancel()
	stopAt := time.Now().Add(3 * time.Second)
	var wg sync.WaitGroup
	var refused, inserted atomic.Int64
	for p := 0; p < producers; p++ {
		goSession(t, ctx, pool, &wg, func(conn *pgx.Conn) {
			for time.Now().Before(stopAt) && runCtx.Err() == nil {
				tx, err := conn.Begin(runCtx)
				if err != nil {
					fail.set("begin: %v", err)
					return
				}
				_, err = insertBatch(runCtx, tx, queue, 2, batch)
				var pgErr *pgconn.PgError
				if errors.As(err, &pgErr) && pgErr.Code == "AW060" {
					refused.Add(1)
					_ = tx.Rollback(runCtx)
					time.Sleep(2 * time.Millisecond)
					continue
				}
				if err != nil {
					_ = tx.Rollback(runCtx)
					fail.set("insert: %v", err)
					return
				}
				time.Sleep(3 * time.Millisecond)
				if err := tx.Commit(runCtx); err != nil {
					fail.set("commit: %v", err)
					return
				}
				inserted.Add(batch)
			}
		})
	}
	goSession(t, ctx, pool, &wg, func(conn *pgx.Conn) {
		for time.Now().Before(stopAt) && runCtx.Err() == nil {
			cs, err := claim(runCtx, conn, queue, 7, nil)
			if err != nil {
				fail.set("claim: %v", err)
				return
			}
			if _, err := complete(runCtx, conn, cs); len(cs) > 0 && err != nil {
				fail.set("complete: %v", err)
				return
			}
			time.Sleep(20 * time.Millisecond)
		}
	})
	var samples []int64
	goSession(t, ctx, pool, &wg, func(conn *pgx.Conn) {
		for time.Now().Before(stopAt) && runCtx.Err() == nil {
			var n int64
			if err := conn.QueryRow(runCtx, `SELECT available FROM awa.queue_counts($1)`, queue).Scan(&n); err != nil &&
				!errors.Is(err, pgx.ErrNoRows) {
				fail.set("queue_counts: %v", err)
				return
			}
			samples = append(samples, n)
			time.Sleep(10 * time.Millisecond)
		}
	})
	wg.Wait()
	if err := fail.get(); err != nil {
		t.Fatal(err)
	}
	samples = append(samples, queueCounts(t, ctx, setup, queue).Available)
	sort.Slice(samples, func(i, j int) bool { return samples[i] > samples[j] })
	if samples[0] > bound {
		t.Fatalf("the queue held %d available jobs; max_depth %d plus the other producers' batches allow %d",
			samples[0], maxDepth, bound)
	}
	if refused.Load() == 0 || inserted.Load() < maxDepth {
		t.Fatalf("%d jobs inserted, %d batches refused: the limit was never reached", inserted.Load(), refused.Load())
	}
	t.Logf("%d jobs inserted, %d batches refused, at most %d available (bound %d)", inserted.Load(), refused.Load(),
		samples[0], bound)
}
