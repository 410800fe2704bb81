package sqlrace

import (
	"errors"
	"math/rand"
	"sync"
	"testing"
	"time"

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
