package sqlrace

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// Attempts' own deadlines (issue 8, docs/storage.md "Attempt leases"): a
// worker's awa.set_attempt_deadline races the leader's deadline rescue and
// the attempt's closer on separate real sessions, at READ COMMITTED.

// claimWithDeadline inserts one job of queue and claims it on q with an
// attempt deadline of d (the claim batch's deadline_at: the database's now + d).
func claimWithDeadline(t *testing.T, ctx context.Context, q querier, queue string, d time.Duration) claimed {
	t.Helper()
	if _, err := insertOne(ctx, q, queue, 2); err != nil {
		t.Fatal(err)
	}
	got, err := collectClaims(q.Query(ctx, `
		SELECT c.id, c.run_lease, c.claim_slot, c.receipt_id, c.priority, c.attempt
		FROM awa.claim_ready_runtime($1, 1, NULL, NULL, $2::interval) AS c`, queue, d))
	if err != nil || len(got) != 1 {
		t.Fatalf("claim: %v, %v; want one job", got, err)
	}
	return got[0]
}

// setAttemptDeadline calls awa.set_attempt_deadline for c: the deadline at
// the database's now + in. It returns the outcome and the deadline recorded.
func setAttemptDeadline(ctx context.Context, q querier, c claimed, in time.Duration) (string, *time.Time, error) {
	var outcome string
	var at *time.Time
	err := q.QueryRow(ctx, `SELECT outcome::text, deadline_at FROM awa.set_attempt_deadline($1, $2, $3, $4, now() + $5::interval)`,
		c.ID, c.RunLease, c.ClaimSlot, c.ReceiptID, in).Scan(&outcome, &at)
	return outcome, at, err
}

// rescueDeadlines calls awa.rescue_expired_deadlines with its clock ahead
// of the database's by ahead.
func rescueDeadlines(ctx context.Context, q rowQuerier, ahead time.Duration) ([]finalized, error) {
	return collectFinalized(q.Query(ctx, `
		SELECT f.job_id, f.run_lease, f.outcome::text, f.state::text
		FROM awa.rescue_expired_deadlines(1000, now() + $1::interval) AS f`, ahead))
}

// deadlineRows counts the attempt_state rows of job id.
func deadlineRows(t *testing.T, ctx context.Context, q querier, id int64) int {
	t.Helper()
	var n int
	if err := q.QueryRow(ctx, `SELECT count(*) FROM awa.attempt_state WHERE job_id = $1`, id).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestSetAttemptDeadlineRacingTheDeadlineRescueAndCompleteHasOneCloser
// releases together, round after round, three sessions on one attempt whose
// claim deadline is a minute: the worker's set_attempt_deadline (to an hour,
// or to 30 seconds, at random), the leader's deadline rescue with its clock 2
// minutes ahead (the claim's deadline has passed for it), and the worker's
// complete_jobs, each after a random delay. Every round: exactly one of the
// rescue and the completion applies, and the job's state is that closer's; a
// deadline applied to an hour is never followed by a rescue of the attempt
// (the rescue reads the deadline again under the attempt's lock); a deadline
// call after the closer is stale; and no attempt_state row is left.
func TestSetAttemptDeadlineRacingTheDeadlineRescueAndCompleteHasOneCloser(t *testing.T) {
	const (
		queue  = "deadline_race"
		rounds = 120
	)
	ctx, pool := newDB(t, 2*time.Minute)
	worker, leader, completer := connect(t, ctx, pool), connect(t, ctx, pool), connect(t, ctx, pool)
	rng := rand.New(rand.NewPCG(8, uint64(time.Now().UnixNano())))
	wins := map[string]int{}
	extended := 0

	for round := 0; round < rounds; round++ {
		c := claimWithDeadline(t, ctx, worker, queue, time.Minute)
		in := []time.Duration{time.Hour, 30 * time.Second}[rng.IntN(2)]
		delays := [3]time.Duration{}
		for i := range delays {
			delays[i] = time.Duration(rng.IntN(1500)) * time.Microsecond
		}

		var (
			wg                 sync.WaitGroup
			barrier            = make(chan struct{})
			setOutcome         string
			rescued, completed []finalized
			errS, errR, errC   error
		)
		wg.Add(3)
		go func() {
			defer wg.Done()
			<-barrier
			time.Sleep(delays[0])
			setOutcome, _, errS = setAttemptDeadline(ctx, worker, c, in)
		}()
		go func() {
			defer wg.Done()
			<-barrier
			time.Sleep(delays[1])
			rescued, errR = rescueDeadlines(ctx, leader, 2*time.Minute)
		}()
		go func() {
			defer wg.Done()
			<-barrier
			time.Sleep(delays[2])
			completed, errC = complete(ctx, completer, []claimed{c})
		}()
		close(barrier)
		wg.Wait()
		if errS != nil || errR != nil || errC != nil {
			t.Fatalf("round %d: set_attempt_deadline %v, rescue %v, complete %v", round, errS, errR, errC)
		}

		applied := func(fs []finalized) bool {
			for _, f := range fs {
				if f.JobID == c.ID && f.Outcome == "applied" {
					return true
				}
			}
			return false
		}
		byRescue, byComplete := applied(rescued), applied(completed)
		if byRescue == byComplete {
			t.Fatalf("round %d: rescue %v, complete %v; want exactly one closer", round, rescued, completed)
		}
		if byRescue && setOutcome == "applied" && in == time.Hour {
			t.Fatalf("round %d: the deadline moved an hour ahead applied, yet the rescue (2 minutes ahead) closed the attempt", round)
		}
		if setOutcome == "applied" {
			extended++
		}
		want, closer := "completed", "complete"
		if byRescue {
			want, closer = "retryable", "rescue"
		}
		wins[closer]++
		if got := stateOf(t, ctx, worker, c.ID); got != want {
			t.Fatalf("round %d: closed by %s, the job is %s; want %s", round, closer, got, want)
		}
		if o, _, err := setAttemptDeadline(ctx, worker, c, time.Hour); err != nil || o != "stale" {
			t.Fatalf("round %d: a deadline after the %s = %q, %v; want stale", round, closer, o, err)
		}
		if n := deadlineRows(t, ctx, worker, c.ID); n != 0 {
			t.Fatalf("round %d (set_attempt_deadline %s to %s, closed by %s): %d attempt_state rows left, want none",
				round, setOutcome, in, closer, n)
		}
	}
	t.Logf("closers: %v; deadlines applied before the closer: %d of %d", wins, extended, rounds)
	if wins["rescue"] == 0 || wins["complete"] == 0 {
		t.Logf("note: one closer never won (%v): the delays did not interleave both ways this run", wins)
	}
}

// TestDeadlineRescueHonoursADeadlineMovedUnderTheAttemptsLock replays the
// decisive interleaving: the worker's set_attempt_deadline holds the
// attempt's lock in an open transaction when the rescue, 2 minutes ahead
// (past the claim's one-minute deadline), comes for the attempt. The rescue
// waits; when the worker commits a deadline an hour ahead, the rescue
// leaves the attempt alone; when the worker rolls back instead, the rescue
// closes it.
func TestDeadlineRescueHonoursADeadlineMovedUnderTheAttemptsLock(t *testing.T) {
	for _, commit := range []bool{true, false} {
		t.Run(fmt.Sprintf("commit=%v", commit), func(t *testing.T) {
			ctx, pool := newDB(t, time.Minute)
			worker, leader := connect(t, ctx, pool), connect(t, ctx, pool)
			c := claimWithDeadline(t, ctx, worker, "deadline_held", time.Minute)
			tx := mustBegin(t, ctx, worker)
			if o, _, err := setAttemptDeadline(ctx, tx, c, time.Hour); err != nil || o != "applied" {
				t.Fatalf("set_attempt_deadline in the open transaction = %q, %v", o, err)
			}
			done := inBackground(func() ([]finalized, error) { return rescueDeadlines(ctx, leader, 2*time.Minute) })
			select {
			case r := <-done:
				t.Fatalf("the rescue returned %v, %v while the worker held the attempt's lock; want it to wait", r.v, r.err)
			case <-time.After(300 * time.Millisecond):
			}
			end := tx.Commit
			if !commit {
				end = tx.Rollback
			}
			if err := end(ctx); err != nil {
				t.Fatal(err)
			}
			r := <-done
			if r.err != nil {
				t.Fatal(r.err)
			}
			switch {
			case commit && len(r.v) != 0:
				t.Fatalf("after the committed deadline the rescue returned %v, want nothing", r.v)
			case !commit && (len(r.v) != 1 || r.v[0].Outcome != "applied"):
				t.Fatalf("after the rolled-back deadline the rescue returned %v, want the attempt closed", r.v)
			}
			want := map[bool]string{true: "running", false: "retryable"}[commit]
			if got := stateOf(t, ctx, leader, c.ID); got != want {
				t.Fatalf("the job is %s, want %s", got, want)
			}
		})
	}
}

// TestSetAttemptDeadlineOutsideReadCommittedIsRefused: in a REPEATABLE READ
// or SERIALIZABLE transaction, set_attempt_deadline of an open attempt is
// refused with AW040 naming it and the level, and writes nothing (no lease,
// no attempt_state row); the same session then applies it in a READ
// COMMITTED transaction of its own.
func TestSetAttemptDeadlineOutsideReadCommittedIsRefused(t *testing.T) {
	for _, level := range isoLevels[1:] {
		t.Run(levelName(level), func(t *testing.T) {
			ctx, pool := newDB(t, 30*time.Second)
			conn, other := connect(t, ctx, pool), connect(t, ctx, pool)
			c := claimWithDeadline(t, ctx, other, "deadline_iso", time.Minute)
			tx := beginAt(t, ctx, conn, level)
			_, _, err := setAttemptDeadline(ctx, tx, c, time.Hour)
			wantRefused(t, err, "awa.set_attempt_deadline", level)
			_ = tx.Rollback(ctx)
			var written int
			if err := other.QueryRow(ctx, `SELECT (SELECT count(*) FROM awa.leases) + (SELECT count(*) FROM awa.attempt_state)`).
				Scan(&written); err != nil || written != 0 {
				t.Fatalf("after the refusal %d lease and attempt_state rows (%v), want none", written, err)
			}
			err = pgx.BeginTxFunc(ctx, conn, pgx.TxOptions{IsoLevel: pgx.ReadCommitted}, func(tx pgx.Tx) error {
				o, _, err := setAttemptDeadline(ctx, tx, c, time.Hour)
				if err == nil && o != "applied" {
					err = fmt.Errorf("at read committed = %s", o)
				}
				return err
			})
			if err != nil {
				t.Fatal(err)
			}
			if n := deadlineRows(t, ctx, other, c.ID); n != 1 {
				t.Fatalf("after the call at read committed %d attempt_state rows, want 1", n)
			}
		})
	}
}
