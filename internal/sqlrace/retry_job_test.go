package sqlrace

import (
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// TestRetryJobRacingASecondRetryAndPrunesRunsTheJobOnce runs a worker that
// fails every job it claims for good (max_attempts 1, so each ends with a
// terminal snapshot in the queue ring, later copied to the archive and
// truncated by the queue-ring maintenance running at the same time), but
// completes a job once it has been picked for retry, and two operators that
// retry the same recently failed job at the same moment, many times. A job
// fails once, so a retry of it applies at most once over the whole run (the
// other of its pair, and any later pair, is refused with AW021 naming its new
// state), and at the end every job shows exactly once in awa.jobs: none
// lost, none in two planes.
func TestRetryJobRacingASecondRetryAndPrunesRunsTheJobOnce(t *testing.T) {
	ctx, pool := newDB(t, 3*time.Minute)
	const runFor = 8 * time.Second
	runCtx, cancel, fail := withErrOnce(ctx)
	defer cancel()
	stopAt := time.Now().Add(runFor)

	var mu sync.Mutex
	var failed, all []int64
	picked := map[int64]bool{} // jobs picked for retry: the worker completes them
	applies := map[int64]int{}
	var prunes, pairs int
	var wg sync.WaitGroup

	goSession(t, ctx, pool, &wg, func(conn *pgx.Conn) {
		for time.Now().Before(stopAt) && runCtx.Err() == nil {
			ids, err := collectIDs(conn.Query(runCtx, `
				SELECT j.id FROM awa.insert_jobs(array_fill('k'::text, ARRAY[10]), NULL,
					array_fill('{"queue": "retry_race", "max_attempts": 1}'::jsonb, ARRAY[10])) AS j`))
			if err != nil {
				fail.set("insert: %v", err)
				return
			}
			cs, err := claim(runCtx, conn, "retry_race", 20, nil)
			if err != nil {
				fail.set("claim: %v", err)
				return
			}
			var toFail, toComplete []claimed
			mu.Lock()
			for _, c := range cs {
				if picked[c.ID] {
					toComplete = append(toComplete, c)
				} else {
					toFail = append(toFail, c)
				}
			}
			mu.Unlock()
			var fs []finalized
			if len(toFail) > 0 {
				fs, err = finalizeAs(runCtx, conn, "fail", toFail)
			}
			if err == nil && len(toComplete) > 0 {
				_, err = finalizeAs(runCtx, conn, "complete", toComplete)
			}
			if err != nil {
				fail.set("finalize: %v", err)
				return
			}
			mu.Lock()
			all = append(all, ids...)
			for _, f := range fs {
				if f.Outcome == "applied" {
					failed = append(failed, f.JobID)
				}
			}
			mu.Unlock()
			time.Sleep(10 * time.Millisecond)
		}
	})

	goRingTurner(t, ctx, runCtx, pool, &wg, fail, stopAt, &mu, &prunes)

	// Two operators, paired: each round both retry the same job at once.
	conns := [2]*pgx.Conn{connect(t, ctx, pool), connect(t, ctx, pool)}
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 5))
	for time.Now().Before(stopAt) && runCtx.Err() == nil {
		mu.Lock()
		id, ok := pickRecent(failed, rng, 60)
		if ok {
			picked[id] = true
		}
		mu.Unlock()
		if !ok {
			time.Sleep(5 * time.Millisecond)
			continue
		}
		var applied, refused int
		var rw sync.WaitGroup
		var rmu sync.Mutex
		for _, c := range conns {
			rw.Add(1)
			go func(c *pgx.Conn) {
				defer rw.Done()
				var state string
				err := c.QueryRow(runCtx, `SELECT state::text FROM awa.retry_job($1)`, id).Scan(&state)
				rmu.Lock()
				defer rmu.Unlock()
				switch sqlState(err) {
				case "":
					applied++
				case "AW021":
					refused++
				default:
					fail.set("retry_job(%d): %v", id, err)
				}
			}(c)
		}
		rw.Wait()
		applies[id] += applied
		if applies[id] > 1 {
			fail.set("retry_job(%d) applied %d times (%d in this pair)", id, applies[id], applied)
		}
		pairs++
	}
	wg.Wait()
	if err := fail.get(); err != nil {
		t.Fatal(err)
	}

	conn := connect(t, ctx, pool)
	drainRings(t, ctx, conn, "settling")
	retried := 0
	for _, n := range applies {
		retried += n
	}
	t.Logf("%d jobs, %d failures, %d retry pairs (%d jobs retried), %d queue-ring prunes", len(all), len(failed), pairs,
		retried, prunes)
	if prunes == 0 || retried < 20 {
		t.Fatalf("the run did not exercise retries against prunes: %d prunes, %d jobs retried", prunes, retried)
	}
	shown := map[int64]int{}
	rows, err := conn.Query(ctx, `SELECT id FROM awa.jobs WHERE queue = 'retry_race'`)
	if err != nil {
		t.Fatal(err)
	}
	var id int64
	if _, err := pgx.ForEachRow(rows, []any{&id}, func() error { shown[id]++; return nil }); err != nil {
		t.Fatal(err)
	}
	for _, id := range all {
		if shown[id] != 1 {
			t.Errorf("job %d shown %d times", id, shown[id])
		}
	}
	if len(shown) != len(all) {
		t.Errorf("%d jobs shown, %d inserted", len(shown), len(all))
	}
}
