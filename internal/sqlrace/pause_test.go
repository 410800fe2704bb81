package sqlrace

import (
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// TestPauseStopsClaimsThatBeginAfterItCommits runs three claimers of one
// queue (claim, complete) while an operator pauses and resumes the queue over
// and over. A claim that began after a pause committed and ended before the
// resume was sent claims nothing; at the end (queue resumed, drained) every
// job was completed exactly once.
func TestPauseStopsClaimsThatBeginAfterItCommits(t *testing.T) {
	ctx, pool := newDB(t, 2*time.Minute)
	const queue, n = "pz", 3000
	setup := connect(t, ctx, pool)
	ids, err := insertBatch(ctx, setup, queue, 2, n)
	if err != nil {
		t.Fatal(err)
	}
	runCtx, cancel, fail := withErrOnce(ctx)
	defer cancel()
	stopAt := time.Now().Add(6 * time.Second)

	type span struct{ from, to time.Time }
	var mu sync.Mutex
	var pauses []span // committed pause .. resume sent
	var claims []span // claims that took jobs
	done := map[int64]int{}
	var wg sync.WaitGroup

	goSession(t, ctx, pool, &wg, func(conn *pgx.Conn) {
		for time.Now().Before(stopAt) && runCtx.Err() == nil {
			if _, err := conn.Exec(runCtx, `SELECT * FROM awa.pause_queue($1)`, queue); err != nil {
				fail.set("pause: %v", err)
				return
			}
			from := time.Now()
			time.Sleep(40 * time.Millisecond)
			to := time.Now()
			if _, err := conn.Exec(runCtx, `SELECT * FROM awa.resume_queue($1)`, queue); err != nil {
				fail.set("resume: %v", err)
				return
			}
			mu.Lock()
			pauses = append(pauses, span{from, to})
			mu.Unlock()
			time.Sleep(40 * time.Millisecond)
		}
	})
	for c := 0; c < 3; c++ {
		goSession(t, ctx, pool, &wg, func(conn *pgx.Conn) {
			for time.Now().Before(stopAt) && runCtx.Err() == nil {
				from := time.Now()
				cs, err := claim(runCtx, conn, queue, 10, nil)
				to := time.Now()
				if err != nil {
					fail.set("claim: %v", err)
					return
				}
				if len(cs) == 0 {
					time.Sleep(2 * time.Millisecond)
					continue
				}
				fs, err := complete(runCtx, conn, cs)
				if err != nil {
					fail.set("complete: %v", err)
					return
				}
				mu.Lock()
				claims = append(claims, span{from, to})
				for _, f := range fs {
					if f.Outcome == "applied" {
						done[f.JobID]++
					}
				}
				mu.Unlock()
				time.Sleep(5 * time.Millisecond)
			}
		})
	}
	wg.Wait()
	if err := fail.get(); err != nil {
		t.Fatal(err)
	}
	if len(pauses) < 10 || len(claims) < 10 {
		t.Fatalf("the run did not interleave: %d pauses, %d claims that took jobs", len(pauses), len(claims))
	}
	for _, c := range claims {
		for _, p := range pauses {
			if c.from.After(p.from) && c.to.Before(p.to) {
				t.Fatalf("a claim from %s to %s took jobs inside the pause %s .. %s", c.from.Format(time.StampMicro),
					c.to.Format(time.StampMicro), p.from.Format(time.StampMicro), p.to.Format(time.StampMicro))
			}
		}
	}
	// Drain: the queue is resumed; the rest is claimed and completed.
	for {
		cs, err := claim(ctx, setup, queue, 500, nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(cs) == 0 {
			break
		}
		fs, err := complete(ctx, setup, cs)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range fs {
			if f.Outcome == "applied" {
				done[f.JobID]++
			}
		}
	}
	lost, twice := lostAndTwice(ids, done)
	t.Logf("%d pauses, %d claims took jobs during the run; %d jobs", len(pauses), len(claims), len(ids))
	if len(lost) > 0 || len(twice) > 0 {
		t.Fatalf("lost %v, completed twice %v", firstN(lost, 10), firstN(twice, 10))
	}
}
