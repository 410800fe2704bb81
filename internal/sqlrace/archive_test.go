package sqlrace

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// TestArchivedJobsStayVisibleOnceWhileSlotsPruneAndCohortsDrop runs workers
// whose completions land late (a claim is completed after the queue ring has
// moved on, so its history goes into a sealed slot), queue-ring maintenance
// with no sealed slot kept (every slot is archived and truncated as soon as it
// may be), archive maintenance dropping cohorts on a clock two days ahead,
// and readers of awa.terminal_jobs, all at once. Queue "keep" has a completed
// retention of 7 days, queue "gone" of 1 day: on the clock of the drops, every
// cohort of "gone" has expired and none of "keep". Every read must show each
// job at most once, and every "keep" job completed before the read began
// exactly once; at the end every "keep" job is there once, no "gone" job is
// left once its cohorts are dropped, and the DEFAULT partition is empty.
func TestArchivedJobsStayVisibleOnceWhileSlotsPruneAndCohortsDrop(t *testing.T) {
	ctx, pool := newDB(t, 3*time.Minute)
	if _, err := pool.Exec(ctx, `SELECT awa.configure_archive('{"completed_seconds": 604800}', 'keep'),
	                                    awa.configure_archive('{"completed_seconds": 86400}', 'gone'),
	                                    awa.maintain_archive()`); err != nil {
		t.Fatal(err)
	}
	const runFor = 12 * time.Second
	runCtx, cancel, fail := withErrOnce(ctx)
	defer cancel()

	var mu sync.Mutex
	done := map[string][]int64{} // queue -> completed (committed) job ids, in order
	var dropped, reads, prunes, goneArchived int
	var wg sync.WaitGroup
	stopAt := time.Now().Add(runFor)

	// Workers: insert, claim, wait (the queue ring turns meanwhile), complete.
	for _, queue := range []string{"keep", "gone"} {
		goSession(t, ctx, pool, &wg, func(conn *pgx.Conn) {
			for time.Now().Before(stopAt) && runCtx.Err() == nil {
				if _, err := insertBatch(runCtx, conn, queue, 2, 20); err != nil {
					fail.set("insert %s: %v", queue, err)
					return
				}
				cs, err := claim(runCtx, conn, queue, 20, nil)
				if err != nil {
					fail.set("claim %s: %v", queue, err)
					return
				}
				time.Sleep(30 * time.Millisecond)
				fs, err := complete(runCtx, conn, cs)
				if err != nil {
					fail.set("complete %s: %v", queue, err)
					return
				}
				mu.Lock()
				for _, f := range fs {
					if f.Outcome != "applied" {
						fail.set("complete %s: %v", queue, f)
					}
					done[queue] = append(done[queue], f.JobID)
				}
				mu.Unlock()
			}
		})
	}

	// Ring maintenance: every slot archived and truncated as soon as it may be.
	goSession(t, ctx, pool, &wg, func(conn *pgx.Conn) {
		for time.Now().Before(stopAt) && runCtx.Err() == nil {
			for _, ring := range []string{"queue", "claim", "cursor"} {
				if _, err := ringOp(runCtx, conn, "rotate", ring); err != nil {
					fail.set("rotate %s: %v", ring, err)
					return
				}
				o, err := ringOp(runCtx, conn, "prune", ring)
				if err != nil {
					fail.set("prune %s: %v", ring, err)
					return
				}
				if ring == "queue" && o.Outcome == "pruned" {
					mu.Lock()
					prunes++
					mu.Unlock()
				}
			}
			time.Sleep(20 * time.Millisecond)
		}
	})

	// Archive maintenance: cohorts ahead on the real clock, drops two days on.
	goSession(t, ctx, pool, &wg, func(conn *pgx.Conn) {
		for time.Now().Before(stopAt) && runCtx.Err() == nil {
			g, n, err := dropPass(runCtx, conn)
			if err != nil {
				fail.set("maintain_archive: %v", err)
				return
			}
			mu.Lock()
			goneArchived += g
			dropped += n
			mu.Unlock()
			time.Sleep(50 * time.Millisecond)
		}
	})

	// Readers: nothing twice, nothing of "keep" completed before the read missing.
	for r := 0; r < 2; r++ {
		goSession(t, ctx, pool, &wg, func(conn *pgx.Conn) {
			for time.Now().Before(stopAt) && runCtx.Err() == nil {
				mu.Lock()
				want := append([]int64(nil), done["keep"]...)
				mu.Unlock()
				seen := map[int64]int{}
				rows, err := conn.Query(runCtx, `SELECT id FROM awa.terminal_jobs`)
				if err != nil {
					fail.set("read: %v", err)
					return
				}
				var id int64
				if _, err := pgx.ForEachRow(rows, []any{&id}, func() error { seen[id]++; return nil }); err != nil {
					fail.set("read: %v", err)
					return
				}
				for id, n := range seen {
					if n > 1 {
						fail.set("job %d shown %d times", id, n)
						return
					}
				}
				for _, id := range want {
					if seen[id] != 1 {
						fail.set("keep job %d, completed before the read, shown %d times", id, seen[id])
						return
					}
				}
				mu.Lock()
				reads++
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if err := fail.get(); err != nil {
		t.Fatal(err)
	}

	// Settle: every slot archived, every expired cohort dropped.
	conn := connect(t, ctx, pool)
	drainRings(t, ctx, conn, "settling")
	g, n, err := dropPass(ctx, conn)
	if err != nil {
		t.Fatal(err)
	}
	goneArchived += g
	dropped += n
	t.Logf("%d queue-ring prunes, %d cohorts dropped (%d gone jobs archived before a pass), %d reads; completed: keep %d, gone %d",
		prunes, dropped, goneArchived, reads, len(done["keep"]), len(done["gone"]))
	if prunes == 0 || dropped == 0 || goneArchived == 0 || reads == 0 || len(done["keep"]) == 0 || len(done["gone"]) == 0 {
		t.Fatalf("the run did not exercise every path: %d prunes, %d drops, %d gone jobs archived, %d reads, %d and %d jobs",
			prunes, dropped, goneArchived, reads, len(done["keep"]), len(done["gone"]))
	}
	shown := map[string]map[int64]int{"keep": {}, "gone": {}}
	rows, err := conn.Query(ctx, `SELECT queue, id FROM awa.terminal_jobs`)
	if err != nil {
		t.Fatal(err)
	}
	var queue string
	var id int64
	if _, err := pgx.ForEachRow(rows, []any{&queue, &id}, func() error { shown[queue][id]++; return nil }); err != nil {
		t.Fatal(err)
	}
	for _, id := range done["keep"] {
		if shown["keep"][id] != 1 {
			t.Errorf("keep job %d shown %d times at the end", id, shown["keep"][id])
		}
	}
	if len(shown["keep"]) != len(done["keep"]) || len(shown["gone"]) != 0 {
		t.Errorf("at the end: %d keep jobs shown of %d completed, %d gone jobs shown (want 0)",
			len(shown["keep"]), len(done["keep"]), len(shown["gone"]))
	}
	var inDefault int
	if err := conn.QueryRow(ctx, `SELECT count(*) FROM awa.archived_chunks_default`).Scan(&inDefault); err != nil {
		t.Fatal(err)
	}
	if inDefault != 0 {
		t.Errorf("%d rows in the DEFAULT partition", inDefault)
	}
}

// dropPass runs awa.maintain_archive on the real clock (cohorts ahead), then
// on a clock two days ahead (every cohort of a 1-day retention expired). It
// returns how many archived jobs of queue "gone" there were before, and how
// many cohorts the second pass dropped.
func dropPass(ctx context.Context, conn *pgx.Conn) (gone, dropped int, err error) {
	if _, err := conn.Exec(ctx, `SELECT * FROM awa.maintain_archive(20)`); err != nil {
		return 0, 0, err
	}
	if err := conn.QueryRow(ctx, `SELECT coalesce(sum(n), 0) FROM awa.archived_chunks WHERE queue = 'gone'`).Scan(&gone); err != nil {
		return 0, 0, err
	}
	err = conn.QueryRow(ctx, `
		SELECT count(*) FROM awa.maintain_archive(20, 1000, now() + interval '2 days') AS o
		WHERE o.outcome = 'dropped'`).Scan(&dropped)
	return gone, dropped, err
}
