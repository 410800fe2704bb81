package sqlrace

import (
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// TestTwoClaimersNeverShareAJob: 8 claimers, each on its own connection, drain
// 5,000 jobs spread over the four priority lanes of one queue, 50 at a time,
// completing what they claim. Every job is claimed exactly once (first
// attempt, run_lease 1), every completion applies, and the queue ends with
// 5,000 completed and nothing available or running.
func TestTwoClaimersNeverShareAJob(t *testing.T) {
	const (
		queue    = "q"
		total    = 5000
		batch    = 500
		claimers = 8
		perClaim = 50
	)
	ctx, pool := newDB(t, 60*time.Second)

	inserted := map[int64]bool{}
	prod := connect(t, ctx, pool)
	for i := 0; i < total/batch; i++ {
		tx := mustBegin(t, ctx, prod)
		ids, err := insertBatch(ctx, tx, queue, 1+i%4, batch)
		if err != nil {
			t.Fatalf("insert_jobs batch %d: %v", i, err)
		}
		if err := tx.Commit(ctx); err != nil {
			t.Fatal(err)
		}
		for _, id := range ids {
			inserted[id] = true
		}
	}
	if len(inserted) != total {
		t.Fatalf("insert_jobs returned %d distinct ids, want %d", len(inserted), total)
	}

	conns := make([]claimConn, claimers)
	for i := range conns {
		conns[i].conn = connect(t, ctx, pool)
	}
	runCtx, cancel, fail := withErrOnce(ctx)
	defer cancel()
	start := make(chan struct{})
	var wg sync.WaitGroup
	for w := range conns {
		wg.Add(1)
		go func(c *claimConn) {
			defer wg.Done()
			<-start
			for runCtx.Err() == nil {
				got, err := claim(runCtx, c.conn, queue, perClaim, nil)
				if err != nil {
					fail.set("claimer %d: claim_ready_runtime: %v", w, err)
					return
				}
				if len(got) == 0 {
					if d, err := drained(runCtx, c.conn, queue); err != nil || d {
						if err != nil {
							fail.set("claimer %d: queue_pending: %v", w, err)
						}
						return
					}
					time.Sleep(time.Millisecond) // another claimer holds the lane with jobs
					continue
				}
				c.claims = append(c.claims, got...)
				res, err := complete(runCtx, c.conn, got)
				if err != nil {
					fail.set("claimer %d: complete_jobs: %v", w, err)
					return
				}
				c.results = append(c.results, res...)
			}
		}(&conns[w])
	}
	close(start)
	wg.Wait()
	if err := fail.get(); err != nil {
		t.Fatal(err)
	}

	claimedBy := map[int64][]int{}
	applied := map[int64]int{}
	for w, c := range conns {
		t.Logf("claimer %d claimed %d jobs", w, len(c.claims))
		for _, cl := range c.claims {
			claimedBy[cl.ID] = append(claimedBy[cl.ID], w)
			if cl.RunLease != 1 || cl.Attempt != 1 {
				t.Errorf("job %d claimed with run_lease %d attempt %d, want 1 and 1 (first claim)", cl.ID, cl.RunLease, cl.Attempt)
			}
		}
		if len(c.results) != len(c.claims) {
			t.Errorf("claimer %d: complete_jobs returned %d rows for %d claims", w, len(c.results), len(c.claims))
		}
		for _, r := range c.results {
			if r.Outcome != "applied" || r.State == nil || *r.State != "completed" {
				t.Errorf("claimer %d: complete_jobs gave %v, want applied/completed", w, r)
			}
			applied[r.JobID]++
		}
	}
	for _, id := range sortedKeys(claimedBy) {
		if n := len(claimedBy[id]); n != 1 {
			t.Errorf("job %d claimed %d times (by claimers %v), want exactly once", id, n, claimedBy[id])
		}
		if !inserted[id] {
			t.Errorf("job %d claimed but never inserted", id)
		}
	}
	var missing []int64
	for _, id := range sortedKeys(inserted) {
		if len(claimedBy[id]) == 0 {
			missing = append(missing, id)
		}
		if applied[id] != 1 {
			t.Errorf("job %d completed (applied) %d times, want 1", id, applied[id])
		}
	}
	if len(missing) > 0 {
		t.Errorf("%d of %d jobs were never claimed: %s", len(missing), total, firstN(missing, 20))
	}
	if len(claimedBy) != total {
		t.Errorf("%d distinct jobs claimed, want %d", len(claimedBy), total)
	}

	qc := queueCounts(t, ctx, pool, queue)
	if qc != (queueCount{Completed: total}) {
		t.Errorf("awa.queue_counts(%q) = %+v, want only completed = %d", queue, qc, total)
	}
	if st := jobStates(t, ctx, pool, queue); len(st) != 1 || st["completed"] != total {
		t.Errorf("awa.jobs states of %q = %v, want completed: %d only", queue, st, total)
	}
}

// claimConn is one claimer's connection and what it saw.
type claimConn struct {
	conn    *pgx.Conn
	claims  []claimed
	results []finalized
}
