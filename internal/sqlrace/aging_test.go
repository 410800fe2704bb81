package sqlrace

import (
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// TestAgingLetsALowPriorityJobThroughAFloodOfHigherOnes: producers keep a
// queue's priority-1 lanes full (every claim finds priority-1 jobs waiting)
// while claimers take 5 jobs at a time; one priority-4 job waits among them.
// With 1 s aging it is claimed within about 3 intervals (4 -> 1), then ahead
// of the younger priority-1 jobs: the test allows 3 s + 1.5 s. Without aging
// (a second queue, the same flood) it is still waiting when the run ends.
func TestAgingLetsALowPriorityJobThroughAFloodOfHigherOnes(t *testing.T) {
	ctx, pool := newDB(t, 2*time.Minute)
	setup := connect(t, ctx, pool)
	if _, err := setup.Exec(ctx, `SELECT awa.configure_queue('aged', '{"aging_seconds": 1}')`); err != nil {
		t.Fatal(err)
	}
	type run struct {
		queue   string
		low     int64
		claimed time.Duration // when the priority-4 job was claimed (0: never)
	}
	runs := []*run{{queue: "aged"}, {queue: "unaged"}}
	for _, r := range runs {
		if _, err := insertBatch(ctx, setup, r.queue, 1, 50); err != nil {
			t.Fatal(err)
		}
		ids, err := insertBatch(ctx, setup, r.queue, 4, 1)
		if err != nil {
			t.Fatal(err)
		}
		r.low = ids[0]
	}
	runCtx, cancel, fail := withErrOnce(ctx)
	defer cancel()
	const runFor = 6 * time.Second
	start := time.Now()
	var mu sync.Mutex
	var wg sync.WaitGroup
	for _, r := range runs {
		goSession(t, ctx, pool, &wg, func(conn *pgx.Conn) { // the flood: always ahead of the claimer
			for time.Since(start) < runFor && runCtx.Err() == nil {
				if _, err := insertBatch(runCtx, conn, r.queue, 1, 10); err != nil {
					fail.set("flood %s: %v", r.queue, err)
					return
				}
				time.Sleep(5 * time.Millisecond)
			}
		})
		goSession(t, ctx, pool, &wg, func(conn *pgx.Conn) {
			for time.Since(start) < runFor && runCtx.Err() == nil {
				cs, err := claim(runCtx, conn, r.queue, 5, nil)
				if err != nil {
					fail.set("claim %s: %v", r.queue, err)
					return
				}
				for _, c := range cs {
					if c.ID == r.low {
						mu.Lock()
						r.claimed = time.Since(start)
						mu.Unlock()
					}
					if c.Priority != 1 && c.ID != r.low {
						fail.set("queue %s: job %d of priority %d claimed", r.queue, c.ID, c.Priority)
					}
				}
				if len(cs) > 0 {
					if _, err := complete(runCtx, conn, cs); err != nil {
						fail.set("complete %s: %v", r.queue, err)
						return
					}
				}
				time.Sleep(10 * time.Millisecond)
			}
		})
	}
	wg.Wait()
	if err := fail.get(); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	var waiting int64
	if err := setup.QueryRow(ctx, `SELECT available FROM awa.queue_counts('unaged')`).Scan(&waiting); err != nil {
		t.Fatal(err)
	}
	t.Logf("aged: priority-4 job claimed after %s; unaged: %v (%d priority-1 jobs still waiting there)",
		runs[0].claimed, runs[1].claimed, waiting)
	if runs[0].claimed == 0 || runs[0].claimed > 4500*time.Millisecond {
		t.Errorf("with 1 s aging the priority-4 job was claimed after %s, want within 4.5 s", runs[0].claimed)
	}
	if runs[1].claimed != 0 || waiting == 0 {
		t.Errorf("without aging the flood should starve the priority-4 job for the whole run: claimed after %s, %d waiting",
			runs[1].claimed, waiting)
	}
}
