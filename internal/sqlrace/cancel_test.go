package sqlrace

import (
	"errors"
	"math/rand"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// An operator cancelling jobs while workers claim and complete them: every
// job ends with exactly one terminal record, completed or cancelled, never
// both. A cancel that wins against an available job (tombstone) keeps the job
// from ever being claimed; one that wins against a running job makes the
// worker's completion stale; one that loses (the job already finished) is
// refused with AW021 and changes nothing.
func TestCancelRacingClaimsEndsEachJobOnce(t *testing.T) {
	ctx, pool := newDB(t, time.Minute)

	const n = 1500
	ids, err := collectIDs(pool.Query(ctx, `SELECT j.id FROM awa.insert_jobs(
		array_fill('k'::text, ARRAY[$1::int]), NULL, array_fill('{"queue": "c"}'::jsonb, ARRAY[$1::int])) AS j`, n))
	if err != nil || len(ids) != n {
		t.Fatalf("insert: %d ids, %v", len(ids), err)
	}

	var mu sync.Mutex
	claimedIDs := map[int64]int{}
	completedApplied := map[int64]bool{}
	cancelApplied := map[int64]bool{}
	staleCompletions := 0
	var wg sync.WaitGroup
	errs := make(chan error, 8)

	for w := 0; w < 3; w++ {
		conn := connect(t, ctx, pool)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				cs, err := claim(ctx, conn, "c", 20, nil)
				if err != nil {
					errs <- err
					return
				}
				if len(cs) == 0 {
					// A claim skips a lane whose head another transaction
					// holds (here: a cancel in progress), so an empty claim
					// is not the end: that is when nothing is pending.
					var pending bool
					if err := conn.QueryRow(ctx, `SELECT pending FROM awa.queue_pending('c')`).Scan(&pending); err != nil {
						errs <- err
						return
					}
					if !pending {
						return
					}
					continue
				}
				time.Sleep(time.Millisecond) // hold the attempts open a moment: cancels land on running jobs
				fs, err := complete(ctx, conn, cs)
				if err != nil {
					errs <- err
					return
				}
				mu.Lock()
				for _, c := range cs {
					claimedIDs[c.ID]++
				}
				for _, f := range fs {
					if f.Outcome == "applied" {
						completedApplied[f.JobID] = true
					} else {
						staleCompletions++
					}
				}
				mu.Unlock()
			}
		}()
	}

	canceller := connect(t, ctx, pool)
	wg.Add(1)
	go func() {
		defer wg.Done()
		rng := rand.New(rand.NewSource(1))
		for _, i := range rng.Perm(n)[:n/3] {
			var outcome string
			err := canceller.QueryRow(ctx, `SELECT outcome::text FROM awa.cancel_job($1)`, ids[i]).Scan(&outcome)
			var pgErr *pgconn.PgError
			if errors.As(err, &pgErr) && pgErr.Code == "AW021" {
				continue // already finished: refused, nothing changed
			}
			if err != nil {
				errs <- err
				return
			}
			if outcome == "applied" {
				mu.Lock()
				cancelApplied[ids[i]] = true
				mu.Unlock()
			}
		}
	}()
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatalf("worker or canceller failed: %v", err)
	}

	for id, k := range claimedIDs {
		if k != 1 {
			t.Fatalf("job %d was claimed %d times", id, k)
		}
	}
	for id := range cancelApplied {
		if completedApplied[id] {
			t.Fatalf("job %d was both cancelled and completed", id)
		}
	}
	if len(completedApplied)+len(cancelApplied) != n {
		t.Fatalf("%d completed + %d cancelled = %d, want %d jobs", len(completedApplied), len(cancelApplied),
			len(completedApplied)+len(cancelApplied), n)
	}
	rows, err := pool.Query(ctx, `SELECT id, count(*), min(state::text) FROM awa.terminal_jobs WHERE queue = 'c' GROUP BY id`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	seen := 0
	for rows.Next() {
		var id int64
		var k int
		var state string
		if err := rows.Scan(&id, &k, &state); err != nil {
			t.Fatal(err)
		}
		seen++
		want := "completed"
		if cancelApplied[id] {
			want = "cancelled"
		}
		if k != 1 || state != want {
			t.Fatalf("job %d has %d terminal records, state %s; want one, %s", id, k, state, want)
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if seen != n {
		t.Fatalf("%d jobs have a terminal record, want %d", seen, n)
	}
	if len(cancelApplied) == 0 {
		t.Fatalf("no cancel won: the race did not happen")
	}
	t.Logf("completed %d, cancelled %d (of which %d while running: stale completions)",
		len(completedApplied), len(cancelApplied), staleCompletions)
}

// TestClaimThenCancelInOppositeLanesDeadlocksCleanly: a transaction that
// claims holds its lanes' claim locks until it commits, and cancel_job of an
// available job waits for its lane's claim lock. So two transactions that
// each claim from one queue and then cancel an available job of the other's
// queue close a cycle (docs/storage.md, the multi-call deadlocks): PostgreSQL
// aborts exactly one with 40P01, the other commits its claim and its cancel,
// and the aborted one's claim is undone (its job available again).
func TestClaimThenCancelInOppositeLanesDeadlocksCleanly(t *testing.T) {
	ctx, pool := newDB(t, 30*time.Second)
	ids := map[string][]int64{}
	for _, q := range []string{"qa", "qb"} {
		for range 2 {
			id, err := insertOne(ctx, pool, q, 2)
			if err != nil {
				t.Fatal(err)
			}
			ids[q] = append(ids[q], id)
		}
	}
	c1, c2 := connect(t, ctx, pool), connect(t, ctx, pool)
	tx1, tx2 := mustBegin(t, ctx, c1), mustBegin(t, ctx, c2)
	for _, s := range []struct {
		tx    pgx.Tx
		queue string
	}{{tx1, "qa"}, {tx2, "qb"}} {
		if got, err := claim(ctx, s.tx, s.queue, 1, nil); err != nil || len(got) != 1 || got[0].ID != ids[s.queue][0] {
			t.Fatalf("claim of %s: %s, %v; want job %d", s.queue, describeClaims(got), err, ids[s.queue][0])
		}
	}
	cancel := func(tx pgx.Tx, id int64) error {
		_, err := tx.Exec(ctx, `SELECT * FROM awa.cancel_job($1)`, id)
		return err
	}
	r1 := make(chan error, 1)
	go func() { r1 <- cancel(tx1, ids["qb"][1]) }()
	waitForLockWait(t, ctx, pool, c1.PgConn().PID())
	err2 := cancel(tx2, ids["qa"][1])
	err1 := <-r1

	var survivor, victim pgx.Tx
	var cancelled, undone int64 // the survivor's cancelled job; the victim's claimed job
	switch {
	case err1 == nil && isDeadlock(err2):
		survivor, victim, cancelled, undone = tx1, tx2, ids["qb"][1], ids["qb"][0]
	case err2 == nil && isDeadlock(err1):
		survivor, victim, cancelled, undone = tx2, tx1, ids["qa"][1], ids["qa"][0]
	default:
		t.Fatalf("want exactly one transaction to fail with 40P01: tx1 %v; tx2 %v", describeErr(err1), describeErr(err2))
	}
	_ = victim.Rollback(ctx)
	if err := survivor.Commit(ctx); err != nil {
		t.Fatalf("the surviving transaction does not commit: %v", err)
	}
	for id, want := range map[int64]string{cancelled: "cancelled", undone: "available"} {
		var states []string
		rows, err := pool.Query(ctx, `SELECT state::text FROM awa.jobs WHERE id = $1`, id)
		if err == nil {
			states, err = pgx.CollectRows(rows, pgx.RowTo[string])
		}
		if err != nil || len(states) != 1 || states[0] != want {
			t.Fatalf("job %d: states %v (%v), want exactly [%s]", id, states, err, want)
		}
	}
}
