package sqlrace

import (
	"context"
	"errors"
	"fmt"
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

// TestARateLimitedClaimNeverWaitsForAnotherClaimersBucket: one session
// claims from a rate-limited queue inside a transaction it keeps open 2 s
// (its bucket row stays locked until then); another claims meanwhile with a
// statement_timeout of 200 ms. The second claim returns at once, empty and
// without error, and awa.queue_readiness tells it to retry soon (ready, no
// token wait); once the first commits, the second claims the rest of the
// bucket, and the two never took more than its burst.
func TestARateLimitedClaimNeverWaitsForAnotherClaimersBucket(t *testing.T) {
	ctx, pool := newDB(t, time.Minute)
	const queue, burst = "rlhold", 5
	holder := connect(t, ctx, pool)
	other := connect(t, ctx, pool)
	if _, err := holder.Exec(ctx, `SELECT * FROM awa.configure_queue($1, jsonb_build_object('rate_limit',
		jsonb_build_object('per_second', 0.001, 'burst', $2::int)))`, queue, burst); err != nil {
		t.Fatal(err)
	}
	if _, err := insertBatch(ctx, holder, queue, 2, 20); err != nil {
		t.Fatal(err)
	}
	tx, err := holder.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = tx.Rollback(ctx) }()
	held, err := claim(ctx, tx, queue, 2, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(held) != 2 {
		t.Fatalf("the holder claimed %d jobs, want 2", len(held))
	}
	if _, err := other.Exec(ctx, `SET statement_timeout = '200ms'`); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	got, err := claim(ctx, other, queue, 8, nil)
	if err != nil {
		t.Fatalf("a claim while another claimer holds the bucket failed (it must not wait): %v", err)
	}
	if len(got) != 0 {
		t.Fatalf("a claim while another claimer holds the bucket took %d jobs, want none", len(got))
	}
	if took := time.Since(start); took > 150*time.Millisecond {
		t.Fatalf("the claim took %s while the bucket was held: it waited", took)
	}
	var pending, ready bool
	var waitFor *time.Duration
	if err := other.QueryRow(ctx, `SELECT pending, ready, wait_for FROM awa.queue_readiness($1)`, queue).
		Scan(&pending, &ready, &waitFor); err != nil {
		t.Fatal(err)
	}
	if !pending || !ready || waitFor != nil {
		t.Fatalf("queue_readiness while the bucket is held: pending %v ready %v wait_for %v; want a retry soon (true, true, none)",
			pending, ready, waitFor)
	}
	time.Sleep(2 * time.Second)
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	got, err = claim(ctx, other, queue, 8, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != burst-len(held) {
		t.Fatalf("after the holder committed the claim took %d jobs, want the %d tokens it left", len(got), burst-len(held))
	}
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

// openPerKey counts the open attempts of each key of a keyed queue, as the
// claim ring says (awa._open_receipts in one statement: one snapshot).
func openPerKey(ctx context.Context, q rowQuerier, queue string) (map[string]int, error) {
	rows, err := q.Query(ctx, `
		SELECT k.key, count(*)::int FROM awa._open_receipts o JOIN awa.key_lanes k USING (lane_id)
		WHERE k.queue = $1 GROUP BY k.key`, queue)
	if err != nil {
		return nil, err
	}
	out := map[string]int{}
	for rows.Next() {
		var k string
		var n int
		if err := rows.Scan(&k, &n); err != nil {
			return nil, err
		}
		out[k] = n
	}
	return out, rows.Err()
}

// TestKeyLimitHoldsAcrossClaimersWithFinalizersRescueAndMaintenance runs
// four claimers of a queue keyed by args.tenant (4 tenants, limit 3) that
// complete, retry, cancel or abandon what they claim, while a maintenance
// session rescues the abandoned attempts and turns the rings, and a sampler
// counts each key's open attempts in the claim ring. No sample, nor the
// end, sees more than 3 open attempts of a key, and the limit is reached.
func TestKeyLimitHoldsAcrossClaimersWithFinalizersRescueAndMaintenance(t *testing.T) {
	ctx, pool := newDB(t, 3*time.Minute)
	const queue, limit, perKey = "kl", 3, 150
	tenants := []string{"t0", "t1", "t2", "t3"}
	setup := connect(t, ctx, pool)
	if _, err := setup.Exec(ctx, `SELECT * FROM awa.configure_queue($1, jsonb_build_object('concurrency',
		jsonb_build_object('key', 'args.tenant', 'limit', $2::int)))`, queue, limit); err != nil {
		t.Fatal(err)
	}
	for _, tn := range tenants {
		if _, err := setup.Exec(ctx, `SELECT * FROM awa.insert_jobs(array_fill('k'::text, ARRAY[$3::int]),
			array_fill(jsonb_build_object('tenant', $2::text), ARRAY[$3::int]),
			array_fill(jsonb_build_object('queue', $1::text, 'max_attempts', 3), ARRAY[$3::int]))`, queue, tn, perKey); err != nil {
			t.Fatal(err)
		}
	}
	runCtx, cancel, fail := withErrOnce(ctx)
	defer cancel()
	stopAt := time.Now().Add(5 * time.Second)
	var wg sync.WaitGroup
	var claimedN atomic.Int64
	for c := 0; c < 4; c++ {
		goSession(t, ctx, pool, &wg, func(conn *pgx.Conn) {
			i := c
			for time.Now().Before(stopAt) && runCtx.Err() == nil {
				cs, err := claim(runCtx, conn, queue, 5, nil)
				if err != nil {
					fail.set("claim: %v", err)
					return
				}
				if len(cs) == 0 {
					time.Sleep(3 * time.Millisecond)
					continue
				}
				claimedN.Add(int64(len(cs)))
				time.Sleep(2 * time.Millisecond)
				i++
				action := []string{"complete", "complete", "retry", "cancel", "abandon"}[i%5]
				if action == "abandon" {
					continue // the maintenance session rescues it
				}
				if _, err := finalizeAs(runCtx, conn, action, cs); err != nil {
					fail.set("%s: %v", action, err)
					return
				}
			}
		})
	}
	goSession(t, ctx, pool, &wg, func(conn *pgx.Conn) {
		for time.Now().Before(stopAt) && runCtx.Err() == nil {
			if _, err := conn.Exec(runCtx, `SELECT * FROM awa.rescue_stale_claims(interval '100 ms')`); err != nil {
				fail.set("rescue: %v", err)
				return
			}
			if _, err := conn.Exec(runCtx, `SELECT * FROM awa.promote_due_jobs()`); err != nil {
				fail.set("promote: %v", err)
				return
			}
			time.Sleep(20 * time.Millisecond)
		}
	})
	goTurnRings(t, ctx, runCtx, pool, &wg, fail, stopAt, []string{"queue", "claim", "cursor"}, func(string, ringOutcome) {})
	var samples, worst atomic.Int64
	goSession(t, ctx, pool, &wg, func(conn *pgx.Conn) {
		for time.Now().Before(stopAt) && runCtx.Err() == nil {
			open, err := openPerKey(runCtx, conn, queue)
			if err != nil {
				fail.set("sample: %v", err)
				return
			}
			for k, n := range open {
				if int64(n) > worst.Load() {
					worst.Store(int64(n))
				}
				if n > limit {
					fail.set("key %s has %d open attempts, limit %d", k, n, limit)
					return
				}
			}
			samples.Add(1)
			time.Sleep(3 * time.Millisecond)
		}
	})
	wg.Wait()
	if err := fail.get(); err != nil {
		t.Fatal(err)
	}
	open, err := openPerKey(ctx, setup, queue)
	if err != nil {
		t.Fatal(err)
	}
	for k, n := range open {
		if n > limit {
			t.Fatalf("at the end key %s has %d open attempts, limit %d", k, n, limit)
		}
	}
	if worst.Load() < limit || claimedN.Load() < 100 {
		t.Fatalf("the run never reached the limit (at most %d open of a key, %d claimed): it proved nothing",
			worst.Load(), claimedN.Load())
	}
	t.Logf("%d claimed, %d samples, at most %d open attempts of a key (limit %d)", claimedN.Load(), samples.Load(),
		worst.Load(), limit)
}

// TestTwoSessionsRaceForTheLastSlotOfAKey: a key with limit 1 and two jobs,
// claimed by two sessions at once, over and over (each round completes what
// it got): never both get one.
func TestTwoSessionsRaceForTheLastSlotOfAKey(t *testing.T) {
	ctx, pool := newDB(t, 2*time.Minute)
	const queue = "ls"
	a, b, setup := connect(t, ctx, pool), connect(t, ctx, pool), connect(t, ctx, pool)
	if _, err := setup.Exec(ctx, `SELECT * FROM awa.configure_queue($1, '{"concurrency": {"key": "args.k", "limit": 1}}')`,
		queue); err != nil {
		t.Fatal(err)
	}
	both := 0
	for round := 0; round < 200; round++ {
		if _, err := setup.Exec(ctx, `SELECT * FROM awa.insert_jobs(ARRAY['k', 'k'], ARRAY['{"k": "x"}', '{"k": "x"}']::jsonb[],
			ARRAY['{"queue": "ls"}', '{"queue": "ls"}']::jsonb[])`); err != nil {
			t.Fatal(err)
		}
		ra := inBackground(func() ([]claimed, error) { return claim(ctx, a, queue, 2, nil) })
		rb := inBackground(func() ([]claimed, error) { return claim(ctx, b, queue, 2, nil) })
		ga, gb := <-ra, <-rb
		if ga.err != nil || gb.err != nil {
			t.Fatalf("claims: %v, %v", ga.err, gb.err)
		}
		if len(ga.v)+len(gb.v) > 1 {
			t.Fatalf("round %d: the two sessions got %d and %d jobs of a key limited to 1", round, len(ga.v), len(gb.v))
		}
		if len(ga.v)+len(gb.v) == 1 {
			both++
		}
		// Drain: complete what was claimed, then the second job, one at a time.
		for _, cs := range [][]claimed{ga.v, gb.v} {
			if _, err := complete(ctx, setup, cs); len(cs) > 0 && err != nil {
				t.Fatal(err)
			}
		}
		for {
			cs, err := claim(ctx, setup, queue, 2, nil)
			if err != nil {
				t.Fatal(err)
			}
			if len(cs) > 1 {
				t.Fatalf("round %d: a claim took %d jobs of a key limited to 1", round, len(cs))
			}
			if len(cs) == 0 {
				break
			}
			if _, err := complete(ctx, setup, cs); err != nil {
				t.Fatal(err)
			}
		}
	}
	if both == 0 {
		t.Fatal("no round claimed anything: the race proved nothing")
	}
}

// TestProducersOfFreshKeysRacingTheKeyLaneSweeperStrandNoJob: three
// producers insert jobs of fresh keys, two a key, the second in a
// transaction that holds its lane a moment before it commits (some roll
// back), while a sweeper retires every drained key lane it can
// (awa.retire_idle_key_lanes, idle 0) over and over and two claimers claim
// and complete. A retired lane is visited by no claim, so a job appended to
// a lane the sweeper took off the list would never be claimed: at the end,
// every committed job has been claimed.
func TestProducersOfFreshKeysRacingTheKeyLaneSweeperStrandNoJob(t *testing.T) {
	ctx, pool := newDB(t, 3*time.Minute)
	const queue = "ks"
	setup := connect(t, ctx, pool)
	if _, err := setup.Exec(ctx, `SELECT * FROM awa.configure_queue($1, '{"concurrency": {"key": "args.k", "limit": 1000}}')`,
		queue); err != nil {
		t.Fatal(err)
	}
	runCtx, cancel, fail := withErrOnce(ctx)
	defer cancel()
	stopAt := time.Now().Add(4 * time.Second)
	var wg sync.WaitGroup
	var mu sync.Mutex
	inserted, claimedIDs := map[int64]bool{}, map[int64]bool{}
	for p := 0; p < 3; p++ {
		goSession(t, ctx, pool, &wg, func(conn *pgx.Conn) {
			// Each key twice: its first job commits and is soon claimed (the
			// lane, listed, drains); its second is appended while the sweeper
			// may be testing that lane, the producer holding it 5 ms.
			for i := 0; time.Now().Before(stopAt) && runCtx.Err() == nil; i++ {
				key := fmt.Sprintf("p%d-%d", p, i/2)
				tx, err := conn.Begin(runCtx)
				if err != nil {
					fail.set("begin: %v", err)
					return
				}
				var id int64
				if err := tx.QueryRow(runCtx, `SELECT id FROM awa.insert_job('k', jsonb_build_object('k', $1::text),
					jsonb_build_object('queue', $2::text))`, key, queue).Scan(&id); err != nil {
					fail.set("insert: %v", err)
					return
				}
				if i%2 == 1 {
					if _, err := tx.Exec(runCtx, `SELECT pg_sleep(0.005)`); err != nil {
						fail.set("sleep: %v", err)
						return
					}
				}
				if i%20 == 19 {
					if err := tx.Rollback(runCtx); err != nil {
						fail.set("rollback: %v", err)
					}
					continue
				}
				if err := tx.Commit(runCtx); err != nil {
					fail.set("commit: %v", err)
					return
				}
				mu.Lock()
				inserted[id] = true
				mu.Unlock()
				if i%2 == 0 {
					time.Sleep(3 * time.Millisecond)
				}
			}
		})
	}
	var retired, sweeps atomic.Int64
	goSession(t, ctx, pool, &wg, func(conn *pgx.Conn) {
		for time.Now().Before(stopAt) && runCtx.Err() == nil {
			var n int64
			if err := conn.QueryRow(runCtx, `SELECT count(*) FROM awa.retire_idle_key_lanes(1000, interval '0')`).Scan(&n); err != nil {
				fail.set("retire: %v", err)
				return
			}
			retired.Add(n)
			sweeps.Add(1)
		}
	})
	drain := func(ctx context.Context, conn *pgx.Conn) (int, error) {
		cs, err := claim(ctx, conn, queue, 20, nil)
		if err != nil || len(cs) == 0 {
			return 0, err
		}
		mu.Lock()
		for _, c := range cs {
			claimedIDs[c.ID] = true
		}
		mu.Unlock()
		_, err = complete(ctx, conn, cs)
		return len(cs), err
	}
	for c := 0; c < 2; c++ {
		goSession(t, ctx, pool, &wg, func(conn *pgx.Conn) {
			for time.Now().Before(stopAt) && runCtx.Err() == nil {
				n, err := drain(runCtx, conn)
				if err != nil {
					fail.set("claim: %v", err)
					return
				}
				if n == 0 {
					time.Sleep(time.Millisecond)
				}
			}
		})
	}
	wg.Wait()
	if err := fail.get(); err != nil {
		t.Fatal(err)
	}
	// What is left is claimed by one session (no sweeper any more).
	for {
		n, err := drain(ctx, setup)
		if err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			break
		}
	}
	missing := 0
	for id := range inserted {
		if !claimedIDs[id] {
			missing++
		}
	}
	if missing > 0 {
		t.Fatalf("%d of %d committed jobs were never claimed (stranded in a retired lane)", missing, len(inserted))
	}
	if retired.Load() < 50 || len(inserted) < 100 {
		t.Fatalf("the sweeper retired %d lanes over %d committed jobs: the race proved nothing", retired.Load(), len(inserted))
	}
	t.Logf("%d jobs committed and claimed; %d sweeps retired %d lanes", len(inserted), sweeps.Load(), retired.Load())
}
