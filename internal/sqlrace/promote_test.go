package sqlrace

import (
	"sync"
	"testing"
	"time"
)

// Several maintenance processes promoting at once (a leader change, or a
// second leader for a moment): each due job is promoted exactly once (one
// ready row per job), none is lost, and a job not yet due stays scheduled.
func TestConcurrentPromotersPromoteEachJobOnce(t *testing.T) {
	ctx, pool := newDB(t, time.Minute)

	const due, promoters = 2000, 4
	if _, err := pool.Exec(ctx, `SELECT count(*) FROM awa.insert_jobs(
		array_fill('k'::text, ARRAY[$1::int]), NULL,
		array_fill(jsonb_build_object('queue', 'p', 'run_at', to_char(now() + interval '1 minute',
		           'YYYY-MM-DD"T"HH24:MI:SS.USOF')), ARRAY[$1::int]))`, due); err != nil {
		t.Fatalf("insert due jobs: %v", err)
	}
	if _, err := pool.Exec(ctx, `SELECT * FROM awa.insert_job('k', '{}',
		jsonb_build_object('queue', 'p', 'run_at', to_char(now() + interval '1 day', 'YYYY-MM-DD"T"HH24:MI:SS.USOF')))`); err != nil {
		t.Fatalf("insert later job: %v", err)
	}

	promoted := make([]int, promoters)
	errs := make([]error, promoters)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := 0; i < promoters; i++ {
		conn := connect(t, ctx, pool)
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			for {
				// small batches, so the promoters interleave
				var n int
				err := conn.QueryRow(ctx, `SELECT count(*) FROM awa.promote_due_jobs(50, now() + interval '2 minutes')`).Scan(&n)
				if err != nil {
					errs[i] = err
					return
				}
				if n == 0 {
					return
				}
				promoted[i] += n
			}
		}()
	}
	close(start)
	wg.Wait()
	total := 0
	for i, err := range errs {
		if err != nil {
			t.Fatalf("promoter %d: %v", i, err)
		}
		total += promoted[i]
	}
	if total != due {
		t.Fatalf("promoters returned %d promotions in all (%v), want %d", total, promoted, due)
	}
	active := 0
	for _, n := range promoted {
		if n > 0 {
			active++
		}
	}
	if active < 2 {
		t.Fatalf("only %d promoter(s) promoted anything (%v): the race did not happen", active, promoted)
	}
	t.Logf("promotions per promoter: %v", promoted)
	var readyRows, distinct, scheduled int
	if err := pool.QueryRow(ctx, `SELECT count(*), count(DISTINCT job_id) FROM awa.ready_entries WHERE queue = 'p'`).
		Scan(&readyRows, &distinct); err != nil {
		t.Fatal(err)
	}
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM awa.deferred_jobs WHERE queue = 'p'`).Scan(&scheduled); err != nil {
		t.Fatal(err)
	}
	if readyRows != due || distinct != due || scheduled != 1 {
		t.Fatalf("%d ready rows for %d jobs and %d still deferred; want %d ready rows, one per job, and 1 deferred",
			readyRows, distinct, scheduled, due)
	}
}
