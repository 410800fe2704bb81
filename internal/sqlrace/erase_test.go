package sqlrace

import (
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// TestErasureRacingPrunesLeavesNoUnerasedCopy runs workers that insert jobs
// with data in args and metadata, claim them and complete them late (the
// queue ring has moved on), queue-ring maintenance that archives and
// truncates every slot as soon as it may (the copy to the archive is made
// before prune's locks), and an eraser that erases recently completed jobs
// (and now and then one not yet claimed, which erasure cancels), all at once.
// An erasure that commits while a prune has already copied the job's slot
// must still leave no copy with the job's data: at the end no row of any
// plane holding an erased job has args or metadata other than the erasure's,
// and every erased job is shown exactly once, by awa.jobs, erased.
func TestErasureRacingPrunesLeavesNoUnerasedCopy(t *testing.T) {
	ctx, pool := newDB(t, 3*time.Minute)
	const runFor = 10 * time.Second
	runCtx, cancel, fail := withErrOnce(ctx)
	defer cancel()
	stopAt := time.Now().Add(runFor)

	var mu sync.Mutex
	var completed, fresh, erased []int64
	var prunes, archivedCopies int
	var wg sync.WaitGroup

	for w := 0; w < 2; w++ {
		goSession(t, ctx, pool, &wg, func(conn *pgx.Conn) {
			for time.Now().Before(stopAt) && runCtx.Err() == nil {
				ids, err := insertWithData(runCtx, conn, 20, `{"queue": "erase"}`)
				if err != nil {
					fail.set("insert: %v", err)
					return
				}
				mu.Lock()
				fresh = append(fresh, ids...)
				mu.Unlock()
				cs, err := claim(runCtx, conn, "erase", 20, nil)
				if err != nil {
					fail.set("claim: %v", err)
					return
				}
				if len(cs) == 0 {
					continue
				}
				time.Sleep(25 * time.Millisecond)
				fs, err := complete(runCtx, conn, cs)
				if err != nil {
					fail.set("complete: %v", err)
					return
				}
				mu.Lock()
				for _, f := range fs {
					if f.Outcome == "applied" {
						completed = append(completed, f.JobID)
					}
				}
				mu.Unlock()
			}
		})
	}

	goRingTurner(t, ctx, runCtx, pool, &wg, fail, stopAt, &mu, &prunes)

	goSession(t, ctx, pool, &wg, func(conn *pgx.Conn) {
		rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 11))
		done := map[int64]bool{}
		for time.Now().Before(stopAt) && runCtx.Err() == nil {
			mu.Lock()
			from := completed
			if rng.IntN(8) == 0 {
				from = fresh
			}
			id, ok := pickRecent(from, rng, 40)
			mu.Unlock()
			if !ok || done[id] {
				time.Sleep(5 * time.Millisecond)
				continue
			}
			rows, err := conn.Query(runCtx, `SELECT plane, rows FROM awa.erase_job($1)`, id)
			if err != nil {
				fail.set("erase %d: %v", id, err)
				return
			}
			var plane string
			var n int64
			if _, err := pgx.ForEachRow(rows, []any{&plane, &n}, func() error {
				if plane == "archive" {
					archivedCopies++
				}
				return nil
			}); err != nil {
				fail.set("erase %d: %v", id, err)
				return
			}
			done[id] = true
			mu.Lock()
			erased = append(erased, id)
			mu.Unlock()
			time.Sleep(time.Duration(rng.IntN(10)) * time.Millisecond)
		}
	})
	wg.Wait()
	if err := fail.get(); err != nil {
		t.Fatal(err)
	}

	conn := connect(t, ctx, pool)
	drainRings(t, ctx, conn, "settling")
	t.Logf("%d jobs completed, %d erased (%d found in the archive), %d queue-ring prunes",
		len(completed), len(erased), archivedCopies, prunes)
	if prunes == 0 || len(erased) < 20 || archivedCopies == 0 {
		t.Fatalf("the run did not exercise erasure against prunes: %d prunes, %d erased, %d archived", prunes, len(erased), archivedCopies)
	}
	var unerased int64
	if err := conn.QueryRow(ctx, `
		SELECT (SELECT count(*) FROM awa.ready_entries WHERE job_id = ANY ($1) AND (args <> '{}' OR NOT metadata ? 'erased_at'))
		     + (SELECT count(*) FROM awa.done_entries WHERE job_id = ANY ($1) AND (args <> '{}' OR NOT metadata ? 'erased_at'))
		     + (SELECT count(*) FROM awa._archived_jobs_now WHERE id = ANY ($1) AND (args <> '{}' OR NOT metadata ? 'erased_at'))`,
		erased).Scan(&unerased); err != nil {
		t.Fatal(err)
	}
	if unerased != 0 {
		t.Errorf("%d rows of erased jobs still hold their data", unerased)
	}
	shown := map[int64]int{}
	rows, err := conn.Query(ctx, `SELECT id FROM awa.jobs WHERE id = ANY ($1) AND args = '{}' AND metadata ? 'erased_at'`, erased)
	if err != nil {
		t.Fatal(err)
	}
	var id int64
	if _, err := pgx.ForEachRow(rows, []any{&id}, func() error { shown[id]++; return nil }); err != nil {
		t.Fatal(err)
	}
	for _, id := range erased {
		if shown[id] != 1 {
			t.Errorf("erased job %d shown %d times, erased", id, shown[id])
		}
	}
}
