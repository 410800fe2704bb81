package sqlrace

import (
	"crypto/rand"
	"fmt"
	"sync"
	"testing"
	"time"
)

// TestStaleCompletionAfterRescueChangesNothing races, round after round, a
// worker completing its claimed jobs (one complete_jobs call per job, on its
// own connection) against the maintenance leader rescuing them as stale
// (awa.rescue_stale_claims with p_now past the staleness, on another
// connection). The claims name an instance that never heartbeats. For every
// job exactly one of {completion applied, rescue applied} wins. When the
// rescue wins, the late completion is 'stale', the job is retryable and no
// completion is recorded for it. Finally the rescued jobs are promoted,
// reclaimed (run_lease higher than the rescued attempt's, attempt 2) and
// completed; the old receipts stay stale.
func TestStaleCompletionAfterRescueChangesNothing(t *testing.T) {
	const (
		queue    = "q"
		rounds   = 80
		perRound = 4
	)
	staleness := "1 hour"
	ctx, pool := newDB(t, 60*time.Second)
	worker := connect(t, ctx, pool)
	leader := connect(t, ctx, pool)

	var instance [16]byte
	if _, err := rand.Read(instance[:]); err != nil {
		t.Fatal(err)
	}
	instance[6] = instance[6]&0x0f | 0x40
	instance[8] = instance[8]&0x3f | 0x80
	instanceID := fmt.Sprintf("%x-%x-%x-%x-%x", instance[0:4], instance[4:6], instance[6:8], instance[8:10], instance[10:])

	firstAttempt := map[int64]claimed{}
	var rescued []int64
	completedWins, rescueWins := 0, 0

	for round := 0; round < rounds; round++ {
		if _, err := insertBatch(ctx, worker, queue, 2, perRound); err != nil {
			t.Fatalf("round %d: insert_jobs: %v", round, err)
		}
		got, err := claim(ctx, worker, queue, perRound, instanceID)
		if err != nil || len(got) != perRound {
			t.Fatalf("round %d: claimed %d jobs (%v), want %d", round, len(got), err, perRound)
		}
		for _, g := range got {
			firstAttempt[g.ID] = g
		}

		var (
			wg         sync.WaitGroup
			barrier    = make(chan struct{})
			completion = map[int64]finalized{}
			rescue     = map[int64]finalized{}
			errC, errR error
		)
		// Alternate who gets a small head start so both outcomes occur.
		headStart := time.Duration(round%5) * 300 * time.Microsecond
		wg.Add(2)
		go func() {
			defer wg.Done()
			<-barrier
			if round%2 == 0 {
				time.Sleep(headStart)
			}
			for _, g := range got {
				res, err := complete(ctx, worker, []claimed{g})
				if err != nil {
					errC = err
					return
				}
				for _, r := range res {
					completion[r.JobID] = r
				}
			}
		}()
		go func() {
			defer wg.Done()
			<-barrier
			if round%2 == 1 {
				time.Sleep(headStart)
			}
			res, err := collectFinalized(leader.Query(ctx, `
				SELECT f.job_id, f.run_lease, f.outcome::text, f.state::text
				FROM awa.rescue_stale_claims($1::interval, 1000, now() + $1::interval + interval '1 second') AS f`,
				staleness))
			if err != nil {
				errR = err
				return
			}
			for _, r := range res {
				rescue[r.JobID] = r
			}
		}()
		close(barrier)
		wg.Wait()
		if errC != nil || errR != nil {
			t.Fatalf("round %d: complete_jobs error %v, rescue_stale_claims error %v", round, errC, errR)
		}

		for _, g := range got {
			c, okC := completion[g.ID]
			r, okR := rescue[g.ID]
			if !okC {
				t.Fatalf("round %d: complete_jobs returned no row for job %d", round, g.ID)
			}
			cApplied := c.Outcome == "applied"
			rApplied := okR && r.Outcome == "applied"
			if cApplied == rApplied {
				t.Errorf("round %d, job %d: completion %v, rescue %v (present %v): want exactly one applied", round, g.ID, c, r, okR)
				continue
			}
			var state string
			var recorded int64
			if err := pool.QueryRow(ctx, `
				SELECT (SELECT string_agg(state::text, ',') FROM awa.jobs WHERE id = $1),
				       (SELECT count(*) FROM awa.done_completions WHERE $1 = ANY (job_ids))`, g.ID).
				Scan(&state, &recorded); err != nil {
				t.Fatal(err)
			}
			if cApplied {
				completedWins++
				if c.State == nil || *c.State != "completed" {
					t.Errorf("round %d, job %d: applied completion reports state %v", round, g.ID, c)
				}
				if state != "completed" || recorded != 1 {
					t.Errorf("round %d, job %d: completion won but awa.jobs says %q and %d completion records (want completed, 1)", round, g.ID, state, recorded)
				}
				continue
			}
			rescueWins++
			rescued = append(rescued, g.ID)
			if r.State == nil || *r.State != "retryable" || r.RunLease != g.RunLease {
				t.Errorf("round %d, job %d: rescue result %v, want applied retryable with run_lease %d", round, g.ID, r, g.RunLease)
			}
			if c.Outcome != "stale" || c.State != nil {
				t.Errorf("round %d, job %d: late completion after the rescue gave %v, want stale with no state", round, g.ID, c)
			}
			if state != "retryable" || recorded != 0 {
				t.Errorf("round %d, job %d: rescued, then awa.jobs says %q and %d completion records (want retryable, 0)", round, g.ID, state, recorded)
			}
		}
	}
	t.Logf("%d rounds x %d jobs: completion won %d, rescue won %d", rounds, perRound, completedWins, rescueWins)
	if completedWins == 0 || rescueWins == 0 {
		t.Fatalf("the race always went one way (completion %d, rescue %d): the test did not exercise both outcomes", completedWins, rescueWins)
	}

	qc := queueCounts(t, ctx, pool, queue)
	if qc != (queueCount{Retryable: int64(rescueWins), Completed: int64(completedWins)}) {
		t.Errorf("after the races awa.queue_counts = %+v, want retryable %d, completed %d and nothing else", qc, rescueWins, completedWins)
	}

	// Promote the rescued jobs (their backoff is relative to the rescue's p_now),
	// reclaim and complete them.
	var promoted int
	if err := leader.QueryRow(ctx, `SELECT count(*) FROM awa.promote_due_jobs(100000, now() + interval '3 hours')`).
		Scan(&promoted); err != nil {
		t.Fatalf("promote_due_jobs: %v", err)
	}
	if promoted != len(rescued) {
		t.Fatalf("promote_due_jobs promoted %d jobs, want the %d rescued", promoted, len(rescued))
	}
	again, err := claim(ctx, worker, queue, 1024, instanceID)
	if err != nil {
		t.Fatal(err)
	}
	if len(again) != len(rescued) {
		t.Fatalf("reclaimed %d jobs, want the %d rescued", len(again), len(rescued))
	}
	for _, g := range again {
		first, ok := firstAttempt[g.ID]
		if !ok {
			t.Errorf("reclaimed job %d was never claimed before", g.ID)
			continue
		}
		if g.RunLease <= first.RunLease || g.Attempt != 2 {
			t.Errorf("job %d reclaimed with run_lease %d attempt %d, want run_lease > %d and attempt 2", g.ID, g.RunLease, g.Attempt, first.RunLease)
		}
	}
	res, err := complete(ctx, worker, again)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res {
		if r.Outcome != "applied" || r.State == nil || *r.State != "completed" {
			t.Errorf("completing reclaimed job: %v, want applied/completed", r)
		}
	}
	// The first attempts' receipts are closed for good.
	var old []claimed
	for _, id := range rescued {
		old = append(old, firstAttempt[id])
	}
	res, err = complete(ctx, worker, old)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res {
		if r.Outcome != "stale" {
			t.Errorf("completing a rescued first attempt again: %v, want stale", r)
		}
	}

	total := int64(rounds * perRound)
	if qc := queueCounts(t, ctx, pool, queue); qc != (queueCount{Completed: total}) {
		t.Errorf("at the end awa.queue_counts = %+v, want only completed = %d", qc, total)
	}
	var doubles int64
	if err := pool.QueryRow(ctx, `
		SELECT count(*) FROM (SELECT j FROM awa.done_completions, unnest(job_ids) AS j
		                      GROUP BY j HAVING count(*) > 1) AS d`).Scan(&doubles); err != nil {
		t.Fatal(err)
	}
	if doubles != 0 {
		t.Errorf("%d jobs have more than one completion record", doubles)
	}
}
