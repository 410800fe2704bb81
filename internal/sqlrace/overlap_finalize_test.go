package sqlrace

import (
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// TestOverlappingMultiBatchFinalizersCloseEachAttemptOnce has three
// finalizer sessions present overlapping sets of receipts of the same claim
// batches at once (each call up to 60 receipts drawn from the open attempts
// of many batches, shuffled, some repeated, through a random verb: complete,
// fail, retry, snooze or cancel), while a rescuer rescues every attempt
// older than 40 ms (every fourth claim is kept from the finalizers for
// 150 ms, so the rescuer races them), an operator cancels random jobs by id, and the
// maintenance session rotates and prunes the claim, queue and cursor rings
// (carrying open batches forward). awa._close_claims tests each batch once
// per call (its closures merged into one multirange at the statement's
// snapshot, after the batch locks): no attempt may be closed twice, whoever
// closed it, and at the end every job has ended exactly once.
func TestOverlappingMultiBatchFinalizersCloseEachAttemptOnce(t *testing.T) {
	ctx, pool := newDB(t, 2*time.Minute)
	const queue = "overlap"
	runCtx, cancel, fail := withErrOnce(ctx)
	defer cancel()
	stopAt := time.Now().Add(6 * time.Second)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var open []claimed // attempts claimed and not yet seen closed
	var held []claimed // every fourth claim, kept from the finalizers until heldUntil
	var heldUntil []time.Time
	closes := map[[2]int64]string{} // (job, run_lease) -> who closed it
	ends := map[int64]int{}         // job -> times it reached a final state
	var jobs []int64
	final := map[string]bool{"completed": true, "failed": true, "cancelled": true}

	// record notes the applied rows of one call by who: an attempt closed
	// twice or a job ended twice fails the run.
	record := func(who string, res []finalized, attempt bool) {
		mu.Lock()
		defer mu.Unlock()
		for _, r := range res {
			if r.Outcome != "applied" {
				continue
			}
			if attempt {
				k := [2]int64{r.JobID, r.RunLease}
				if prev, dup := closes[k]; dup {
					fail.set("attempt (job %d, lease %d) closed twice: by %s and by %s", r.JobID, r.RunLease, prev, who)
					return
				}
				closes[k] = who
			}
			if r.State != nil && final[*r.State] {
				ends[r.JobID]++
				if ends[r.JobID] > 1 {
					fail.set("job %d ended twice (last by %s: %v)", r.JobID, who, r)
					return
				}
			}
		}
	}

	// The claimer: inserts and claims batches of 1 to 12 into the open pool.
	goSession(t, ctx, pool, &wg, func(conn *pgx.Conn) {
		rng := rand.New(rand.NewPCG(1, 1))
		for time.Now().Before(stopAt) && runCtx.Err() == nil {
			ids, err := insertBatch(runCtx, conn, queue, 2, 2+rng.IntN(30))
			if err != nil {
				fail.set("insert: %v", err)
				return
			}
			mu.Lock()
			jobs = append(jobs, ids...)
			mu.Unlock()
			for i := 0; i < 4; i++ {
				cs, err := claim(runCtx, conn, queue, 1+rng.IntN(12), nil)
				if err != nil {
					fail.set("claim: %v", err)
					return
				}
				mu.Lock()
				if i == 3 {
					// Held 150 ms: the rescuer (40 ms) races the finalizers for these.
					for range cs {
						heldUntil = append(heldUntil, time.Now().Add(150*time.Millisecond))
					}
					held = append(held, cs...)
				} else {
					open = append(open, cs...)
				}
				for len(held) > 0 && time.Now().After(heldUntil[0]) {
					open = append(open, held[0])
					held, heldUntil = held[1:], heldUntil[1:]
				}
				mu.Unlock()
			}
			if _, err := conn.Exec(runCtx, `SELECT count(*) FROM awa.promote_due_jobs(1000, now() + interval '1 day')`); err != nil {
				fail.set("promote: %v", err)
				return
			}
			time.Sleep(5 * time.Millisecond)
		}
	})

	verbs := []string{"complete", "complete", "fail", "retry", "snooze", "cancel"}
	for w := 0; w < 3; w++ {
		seed := uint64(w + 10)
		goSession(t, ctx, pool, &wg, func(conn *pgx.Conn) {
			rng := rand.New(rand.NewPCG(seed, seed))
			for time.Now().Before(stopAt) && runCtx.Err() == nil {
				mu.Lock()
				n := min(len(open), 60)
				from := 0
				if len(open) > n {
					from = rng.IntN(len(open) - n + 1)
				}
				pick := append([]claimed(nil), open[from:from+n]...)
				mu.Unlock()
				if len(pick) == 0 {
					time.Sleep(2 * time.Millisecond)
					continue
				}
				rng.Shuffle(len(pick), func(i, j int) { pick[i], pick[j] = pick[j], pick[i] })
				for i := 0; i < 3 && i < len(pick); i++ {
					pick = append(pick, pick[rng.IntN(len(pick))])
				}
				verb := verbs[rng.IntN(len(verbs))]
				res, err := finalizeAs(runCtx, conn, verb, pick)
				if err != nil {
					fail.set("%s_jobs: %v", verb, err)
					return
				}
				if len(res) != len(pick) {
					fail.set("%s_jobs returned %d rows for %d items", verb, len(res), len(pick))
					return
				}
				record(verb, res, true)
				// Every item presented is closed now (by this call or another):
				// drop them from the pool.
				done := map[[2]int64]bool{}
				for _, c := range pick {
					done[[2]int64{c.ID, c.RunLease}] = true
				}
				mu.Lock()
				kept := open[:0]
				for _, c := range open {
					if !done[[2]int64{c.ID, c.RunLease}] {
						kept = append(kept, c)
					}
				}
				open = kept
				mu.Unlock()
			}
		})
	}

	// The rescuer closes attempts older than 40 ms.
	goSession(t, ctx, pool, &wg, func(conn *pgx.Conn) {
		for time.Now().Before(stopAt) && runCtx.Err() == nil {
			res, err := collectFinalized(conn.Query(runCtx, `
				SELECT f.job_id, f.run_lease, f.outcome::text, f.state::text
				FROM awa.rescue_stale_claims(interval '40 milliseconds', 200) AS f`))
			if err != nil {
				fail.set("rescue_stale_claims: %v", err)
				return
			}
			record("rescue", res, true)
			time.Sleep(20 * time.Millisecond)
		}
	})

	// The operator cancels random jobs by id (running or waiting: a running
	// job's attempt is closed by the cancel; counted as an end only).
	goSession(t, ctx, pool, &wg, func(conn *pgx.Conn) {
		rng := rand.New(rand.NewPCG(7, 7))
		for time.Now().Before(stopAt) && runCtx.Err() == nil {
			mu.Lock()
			var id int64
			if len(jobs) > 0 {
				id = jobs[rng.IntN(len(jobs))]
			}
			mu.Unlock()
			if id != 0 {
				res, err := collectFinalized(conn.Query(runCtx, `
					SELECT f.job_id, f.run_lease, f.outcome::text, f.state::text FROM awa.cancel_job($1) AS f`, id))
				if err != nil && sqlState(err) != "AW021" {
					fail.set("cancel_job(%d): %v", id, err)
					return
				}
				record("cancel_job", res, false)
			}
			time.Sleep(10 * time.Millisecond)
		}
	})

	claimPrunes := 0
	goTurnRings(t, ctx, runCtx, pool, &wg, fail, stopAt, []string{"claim", "queue", "cursor"}, func(ring string, o ringOutcome) {
		if ring == "claim" && o.Outcome == "pruned" {
			mu.Lock()
			claimPrunes++
			mu.Unlock()
		}
	})
	wg.Wait()
	if err := fail.get(); err != nil {
		t.Fatal(err)
	}

	// Drain: close what is still open, then claim and complete the rest.
	conn := connect(t, ctx, pool)
	open = append(open, held...)
	if len(open) > 0 {
		res, err := complete(ctx, conn, open)
		if err != nil {
			t.Fatalf("complete_jobs (drain): %v", err)
		}
		record("drain", res, true)
	}
	for round := 0; round < 200; round++ {
		if _, err := conn.Exec(ctx, `SELECT count(*) FROM awa.promote_due_jobs(100000, now() + interval '1 day')`); err != nil {
			t.Fatal(err)
		}
		cs, err := claim(ctx, conn, queue, 500, nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(cs) == 0 {
			if d, err := drained(ctx, conn, queue); err != nil || d {
				break
			}
			continue
		}
		res, err := complete(ctx, conn, cs)
		if err != nil {
			t.Fatal(err)
		}
		record("drain", res, true)
	}
	if err := fail.get(); err != nil {
		t.Fatal(err)
	}
	lost, twice := lostAndTwice(jobs, ends)
	if len(lost) > 0 || len(twice) > 0 {
		t.Fatalf("of %d jobs, never ended: %s; ended twice: %s", len(jobs), firstN(lost, 10), firstN(twice, 10))
	}
	states := jobStates(t, ctx, pool, queue)
	if got := states["completed"] + states["failed"] + states["cancelled"]; got != int64(len(jobs)) {
		t.Fatalf("%d jobs inserted, awa.jobs holds %v", len(jobs), states)
	}
	counts := map[string]int{}
	for _, who := range closes {
		counts[who]++
	}
	t.Logf("%d jobs, %d attempts closed: %v; states %v; %d claim slots pruned", len(jobs), len(closes), counts, states, claimPrunes)
	if claimPrunes == 0 {
		t.Fatal("the claim ring was never pruned: no batch was carried")
	}
	for _, who := range []string{"complete", "rescue"} {
		if counts[who] == 0 {
			t.Fatalf("no attempt was closed by %s: the race did not happen (%v)", who, counts)
		}
	}
}
