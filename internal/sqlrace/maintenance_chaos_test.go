package sqlrace

import (
	"context"
	"math/rand"
	"os"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// TestConcurrentAndKilledRunMaintenanceLoseNothingAndNeverDeadlock: three
// schedulers call awa.run_maintenance at once with the same (default)
// holder, so all three lead together, with 100 ms ring intervals, no sealed
// slot kept and a 20 ms lock budget, while a killer terminates one of their
// backends every 20-120 ms (mid-prune, mid-carry, mid-rescue), 3 producers
// insert one to twenty jobs per call at random priorities (at READ
// COMMITTED, or in a REPEATABLE READ or SERIALIZABLE transaction whose
// snapshot is up to 300 ms old: rings turn meanwhile) and 2 claimers
// complete what they claim (claims without an instance: rescued after 1 s
// when a claimer is slow). An orphan job waits in another queue throughout.
// Then everything is drained: every job, the orphan too, is completed
// exactly once; no session saw an error other than its own termination;
// pg_stat_database counts no deadlock. Runs AWA_MAINT_CHAOS_SECONDS (12).
func TestConcurrentAndKilledRunMaintenanceLoseNothingAndNeverDeadlock(t *testing.T) {
	run := 12 * time.Second
	if s := os.Getenv("AWA_MAINT_CHAOS_SECONDS"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			t.Fatalf("AWA_MAINT_CHAOS_SECONDS=%q", s)
		}
		run = time.Duration(n) * time.Second
	}
	ctx, pool := newDB(t, run+2*time.Minute)
	orphan, err := insertOne(ctx, pool, "orphan", 2)
	if err != nil {
		t.Fatal(err)
	}
	var deadlocksBefore int64
	if err := pool.QueryRow(ctx, `SELECT deadlocks FROM pg_stat_database WHERE datname = current_database()`).Scan(&deadlocksBefore); err != nil {
		t.Fatal(err)
	}

	runCtx, stop := context.WithTimeout(ctx, run)
	defer stop()
	var mu sync.Mutex
	inserted := map[int64]bool{}
	applied := map[int64]int{}
	var failures []string
	fail := func(who string, err error) {
		mu.Lock()
		defer mu.Unlock()
		if len(failures) < 20 {
			failures = append(failures, who+": "+err.Error())
		}
	}
	var wg sync.WaitGroup
	for p := 0; p < 3; p++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			conn := connect(t, ctx, pool)
			for runCtx.Err() == nil {
				var ids []int64
				var err error
				if level := isoLevels[rand.Intn(len(isoLevels))]; level == pgx.ReadCommitted {
					ids, err = insertBatch(ctx, conn, "m", 1+rand.Intn(4), 1+rand.Intn(20))
				} else {
					// An app transaction at another level: its snapshot is
					// taken, then rotations and prunes go by before it enqueues.
					var tx pgx.Tx
					if tx, err = conn.BeginTx(ctx, pgx.TxOptions{IsoLevel: level}); err == nil {
						if _, err = tx.Exec(ctx, `SELECT count(*) FROM pg_class`); err == nil {
							time.Sleep(time.Duration(rand.Intn(300)) * time.Millisecond)
							if ids, err = insertBatch(ctx, tx, "m", 1+rand.Intn(4), 1+rand.Intn(20)); err == nil {
								err = tx.Commit(ctx)
							}
						}
						_ = tx.Rollback(ctx)
					}
					if sqlState(err) == "40001" {
						continue // the caller retries a serialization failure
					}
				}
				if err != nil {
					fail("producer", err)
					return
				}
				mu.Lock()
				for _, id := range ids {
					inserted[id] = true
				}
				mu.Unlock()
			}
		}()
	}
	record := func(fs []finalized) {
		mu.Lock()
		defer mu.Unlock()
		for _, f := range fs {
			if f.Outcome == "applied" {
				applied[f.JobID]++
			}
		}
	}
	for c := 0; c < 2; c++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			conn := connect(t, ctx, pool)
			for runCtx.Err() == nil {
				cs, err := claim(ctx, conn, "m", 10, nil)
				if err == nil && len(cs) > 0 {
					var fs []finalized
					fs, err = complete(ctx, conn, cs)
					record(fs)
				}
				if err != nil {
					fail("claimer", err)
					return
				}
				if len(cs) == 0 {
					time.Sleep(2 * time.Millisecond)
				}
			}
		}()
	}
	var pidMu sync.Mutex
	pids := map[int]uint32{}
	var calls, killed int
	for m := 0; m < 3; m++ {
		wg.Add(1)
		go func(m int) {
			defer wg.Done()
			for runCtx.Err() == nil {
				conn, err := pgx.ConnectConfig(ctx, pool.Config().ConnConfig.Copy())
				if err != nil {
					fail("maintenance connect", err)
					return
				}
				pidMu.Lock()
				pids[m] = conn.PgConn().PID()
				pidMu.Unlock()
				for runCtx.Err() == nil {
					var raw []byte
					err := conn.QueryRow(ctx, `CALL awa.run_maintenance(p_lock_timeout_ms => 20`+quickTick+`)`).Scan(&raw)
					if err != nil {
						if code := sqlState(err); code == "57P01" || conn.IsClosed() || code == "" {
							pidMu.Lock()
							killed++
							pidMu.Unlock()
							break
						}
						fail("run_maintenance", err)
						break
					}
					pidMu.Lock()
					calls++
					pidMu.Unlock()
				}
				conn.Close(context.Background())
			}
		}(m)
	}
	killer := connect(t, ctx, pool)
	for runCtx.Err() == nil {
		time.Sleep(time.Duration(20+rand.Intn(100)) * time.Millisecond)
		pidMu.Lock()
		pid := pids[rand.Intn(3)]
		pidMu.Unlock()
		if pid != 0 {
			if _, err := killer.Exec(ctx, `SELECT pg_terminate_backend($1)`, int(pid)); err != nil {
				t.Fatalf("terminate: %v", err)
			}
		}
	}
	wg.Wait()
	var gens string
	if err := pool.QueryRow(ctx, `SELECT string_agg(ring || ' ' || g, ', ' ORDER BY ring)
		FROM (SELECT ring, max(generation) AS g FROM awa.ring_rotations GROUP BY ring) AS r`).Scan(&gens); err != nil {
		t.Fatal(err)
	}
	t.Logf("%d jobs inserted, %d run_maintenance calls completed, %d killed mid-call; ring generations: %s",
		len(inserted), calls, killed, gens)
	for _, f := range failures {
		t.Errorf("%s", f)
	}

	// Drain: promote what rescue retried (whatever its backoff), claim, complete.
	conn := connect(t, ctx, pool)
	inserted[orphan] = true
	for round := 0; round < 200; round++ {
		if _, err := conn.Exec(ctx, `SELECT count(*) FROM awa.promote_due_jobs(100000, now() + interval '1 day')`); err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, q := range []string{"m", "orphan"} {
			cs, err := claim(ctx, conn, q, 1000, nil)
			if err != nil {
				t.Fatal(err)
			}
			if len(cs) == 0 {
				continue
			}
			fs, err := complete(ctx, conn, cs)
			if err != nil {
				t.Fatal(err)
			}
			record(fs)
			n += len(cs)
		}
		if n == 0 {
			break
		}
	}
	var open int64
	if err := conn.QueryRow(ctx, `SELECT count(*) FROM awa.jobs WHERE queue IN ('m', 'orphan') AND state NOT IN ('completed')`).Scan(&open); err != nil {
		t.Fatal(err)
	}
	if open != 0 {
		t.Errorf("%d jobs still not completed after the drain", open)
	}
	lost, twice := lostAndTwice(sortedKeys(inserted), applied)
	if len(lost) > 0 || len(twice) > 0 {
		t.Errorf("of %d jobs, never completed: %s; completed more than once: %s", len(inserted), firstN(lost, 10), firstN(twice, 10))
	}
	var deadlocks int64
	if err := conn.QueryRow(ctx, `SELECT deadlocks FROM pg_stat_database WHERE datname = current_database()`).Scan(&deadlocks); err != nil {
		t.Fatal(err)
	}
	if deadlocks != deadlocksBefore {
		t.Errorf("pg_stat_database counts %d deadlocks during the run", deadlocks-deadlocksBefore)
	}
}
