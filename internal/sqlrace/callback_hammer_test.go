package sqlrace

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// hammerLog records what every session saw applied: per token, its applied
// resolutions; per job, its terminal events (an applied outcome whose state is
// completed, cancelled or failed, from whichever session).
type hammerLog struct {
	mu       sync.Mutex
	tokens   []string
	resolved map[string][]string
	terminal map[int64][]string
}

func (h *hammerLog) addToken(tok string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.tokens = append(h.tokens, tok)
}

func (h *hammerLog) pickToken(rng *rand.Rand) (string, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if len(h.tokens) == 0 {
		return "", false
	}
	return h.tokens[len(h.tokens)-1-rng.IntN(min(40, len(h.tokens)))], true
}

func (h *hammerLog) saw(who string, id int64, outcome string, state *string) {
	if outcome != "applied" || state == nil || (*state != "completed" && *state != "cancelled" && *state != "failed") {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	h.terminal[id] = append(h.terminal[id], who+":"+*state)
}

// Workers register callbacks and park, wait in sequence (take), complete or
// retry on their own; resolvers resolve recent tokens at random (complete,
// fail, retry, resume); an operator cancels at random; maintenance rescues
// timed-out callbacks and stale claims, promotes and rotates and prunes every
// ring; a reader checks that awa.jobs never shows a job twice. No call may fail
// (40P01 included), no token may apply twice, no job may end twice, and every
// job that did not end is still shown once.
func TestCallbackHammerResolvesOnceAndLosesNothing(t *testing.T) {
	const (
		queue = "hammer"
		jobs  = 400
		run   = 8 * time.Second
	)
	ctx, pool := newDB(t, 90*time.Second)
	// No history archive for this queue: the check at rest compares
	// queue_counts, which counts the terminal jobs the queue ring retains,
	// with awa.jobs, which also shows archived ones.
	if _, err := pool.Exec(ctx, `SELECT awa.configure_archive(
			'{"completed_seconds": 0, "failed_seconds": 0, "cancelled_seconds": 0}', $1)`, queue); err != nil {
		t.Fatal(err)
	}
	ids := mustInsertBatch(t, ctx, pool, queue, 2, jobs)
	runCtx, stop, fail := withErrOnce(ctx)
	defer stop()
	deadline := time.Now().Add(run)
	h := &hammerLog{resolved: map[string][]string{}, terminal: map[int64][]string{}}
	var wg sync.WaitGroup
	isDone := func() bool { return time.Now().After(deadline) || runCtx.Err() != nil }
	check := func(who string, err error) bool {
		if err == nil {
			return true
		}
		var pgErr *pgconn.PgError
		if errors.As(err, &pgErr) && (pgErr.Code == "AW020" || pgErr.Code == "AW021") && who == "cancel_job" {
			return false
		}
		if runCtx.Err() == nil {
			fail.set("%s: %v", who, err)
		}
		return false
	}
	finalizeRow := func(conn *pgx.Conn, who, sql string, args ...any) {
		got, err := collectFinalized(conn.Query(runCtx, sql, args...))
		if check(who, err) {
			for _, f := range got {
				h.saw(who, f.JobID, f.Outcome, f.State)
			}
		}
	}

	for w := 0; w < 3; w++ {
		rng := rand.New(rand.NewPCG(uint64(w), 1))
		goSession(t, ctx, pool, &wg, func(conn *pgx.Conn) {
			for !isDone() {
				cs, err := claim(runCtx, conn, queue, 1+rng.IntN(3), nil)
				if !check("claim", err) {
					return
				}
				if len(cs) == 0 {
					time.Sleep(5 * time.Millisecond)
				}
				for _, c := range cs {
					ids, leases, slots, receipts := receiptArrays([]claimed{c})
					mode := rng.IntN(6)
					if mode >= 4 {
						action := map[int]string{4: "complete", 5: "retry"}[mode]
						got, err := finalizeAs(runCtx, conn, action, []claimed{c})
						if check(action+"_jobs", err) {
							for _, f := range got {
								h.saw(action+"_jobs", f.JobID, f.Outcome, f.State)
							}
						}
						continue
					}
					var outcome string
					var tok *string
					err := conn.QueryRow(runCtx, `SELECT outcome::text, callback_id::text FROM awa.register_callback($1, $2, $3, $4, $5)`,
						c.ID, c.RunLease, c.ClaimSlot, c.ReceiptID, time.Duration(1+rng.IntN(2))*time.Second).Scan(&outcome, &tok)
					if !check("register_callback", err) || tok == nil {
						continue
					}
					h.addToken(*tok)
					if mode < 2 {
						finalizeRow(conn, "park_jobs", `SELECT f.job_id, f.run_lease, f.outcome::text, f.state::text
							FROM awa.park_jobs($1::bigint[], $2::bigint[], $3::int[], $4::bigint[]) AS f`, ids, leases, slots, receipts)
						continue
					}
					for i := 0; i < 10 && !isDone(); i++ {
						var status string
						err := conn.QueryRow(runCtx, `SELECT status FROM awa.take_callback_result($1, $2, $3, $4, $5::uuid)`,
							c.ID, c.RunLease, c.ClaimSlot, c.ReceiptID, *tok).Scan(&status)
						if !check("take_callback_result", err) || status == "stale" {
							break
						}
						if status == "resumed" {
							got, err := complete(runCtx, conn, []claimed{c})
							if check("complete_jobs", err) {
								for _, f := range got {
									h.saw("complete_jobs_after_resume", f.JobID, f.Outcome, f.State)
								}
							}
							break
						}
						time.Sleep(10 * time.Millisecond)
					}
				}
			}
		})
	}
	for r := 0; r < 2; r++ {
		rng := rand.New(rand.NewPCG(uint64(r), 2))
		goSession(t, ctx, pool, &wg, func(conn *pgx.Conn) {
			for !isDone() {
				time.Sleep(3 * time.Millisecond)
				tok, ok := h.pickToken(rng)
				if !ok {
					continue
				}
				action := []string{"complete", "fail", "retry", "resume"}[rng.IntN(4)]
				var outcome string
				var id *int64
				var state *string
				err := conn.QueryRow(runCtx, `SELECT outcome::text, job_id, state::text FROM awa.`+action+`_external($1::uuid)`, tok).
					Scan(&outcome, &id, &state)
				if !check(action+"_external", err) {
					continue
				}
				if outcome == "applied" {
					h.mu.Lock()
					h.resolved[tok] = append(h.resolved[tok], action)
					h.mu.Unlock()
					h.saw(action+"_external", *id, outcome, state)
				}
			}
		})
	}
	goSession(t, ctx, pool, &wg, func(conn *pgx.Conn) {
		rng := rand.New(rand.NewPCG(9, 3))
		for !isDone() {
			time.Sleep(20 * time.Millisecond)
			finalizeRow(conn, "cancel_job", `SELECT f.job_id, f.run_lease, f.outcome::text, f.state::text FROM awa.cancel_job($1) AS f`,
				ids[rng.IntN(len(ids))])
		}
	})
	goSession(t, ctx, pool, &wg, func(conn *pgx.Conn) {
		for !isDone() {
			finalizeRow(conn, "rescue_expired_callbacks", `SELECT f.job_id, f.run_lease, f.outcome::text, f.state::text
				FROM awa.rescue_expired_callbacks(1000) AS f`)
			finalizeRow(conn, "rescue_stale_claims", `SELECT f.job_id, f.run_lease, f.outcome::text, f.state::text
				FROM awa.rescue_stale_claims(interval '1 second', 1000, now() + interval '1 second') AS f`)
			if _, err := conn.Exec(runCtx, `SELECT count(*) FROM awa.promote_due_jobs(1000, now() + interval '1 hour')`); !check("promote", err) {
				return
			}
			for _, ring := range []string{"queue", "claim", "lease", "cursor"} {
				for _, op := range []string{"rotate", "prune"} {
					if _, err := ringOp(runCtx, conn, op, ring); !check(op+" "+ring, err) {
						return
					}
				}
			}
			time.Sleep(30 * time.Millisecond)
		}
	})
	goSession(t, ctx, pool, &wg, func(conn *pgx.Conn) {
		for !isDone() {
			var twice int64
			if err := conn.QueryRow(runCtx, `SELECT count(*) FROM (SELECT id FROM awa.jobs GROUP BY id HAVING count(*) > 1) d`).
				Scan(&twice); !check("awa.jobs", err) {
				return
			}
			if twice > 0 {
				fail.set("awa.jobs shows %d jobs twice", twice)
			}
			time.Sleep(20 * time.Millisecond)
		}
	})
	wg.Wait()
	if err := fail.get(); err != nil {
		t.Fatal(err)
	}

	for tok, as := range h.resolved {
		if len(as) > 1 {
			t.Errorf("token %s applied %d times: %v", tok, len(as), as)
		}
	}
	shown := map[int64]int{}
	rows, err := pool.Query(ctx, `SELECT id FROM awa.jobs WHERE queue = $1`, queue)
	if err != nil {
		t.Fatal(err)
	}
	var id int64
	if _, err := pgx.ForEachRow(rows, []any{&id}, func() error { shown[id]++; return nil }); err != nil {
		t.Fatal(err)
	}
	ended := 0
	for _, id := range ids {
		if ev := h.terminal[id]; len(ev) > 1 {
			t.Errorf("job %d ended %d times: %v", id, len(ev), ev)
		} else if len(ev) == 1 {
			ended++
		} else if shown[id] != 1 {
			t.Errorf("job %d did not end and awa.jobs shows it %d times", id, shown[id])
		}
	}
	t.Logf("%d tokens, %d resolved, %d of %d jobs ended", len(h.tokens), len(h.resolved), ended, len(ids))

	// At rest, queue_counts and awa.jobs agree state by state (waiting_external:
	// parked jobs and open attempts waiting for their callback).
	states := jobStates(t, ctx, pool, queue)
	counts := map[string]int64{}
	var c [9]int64
	if err := pool.QueryRow(ctx, `SELECT available, running, scheduled, retryable, completed, cancelled, failed, dlq,
			waiting_external FROM awa.queue_counts($1)`, queue).Scan(&c[0], &c[1], &c[2], &c[3], &c[4], &c[5], &c[6], &c[7], &c[8]); err != nil {
		t.Fatal(err)
	}
	for i, s := range []string{"available", "running", "scheduled", "retryable", "completed", "cancelled", "failed", "", "waiting_external"} {
		if s != "" && c[i] > 0 {
			counts[s] = c[i]
		}
	}
	if fmt.Sprint(states) != fmt.Sprint(counts) {
		t.Errorf("at rest awa.jobs says %v, queue_counts %v", states, counts)
	}
	t.Logf("at rest: %v", states)

	// Settle: every open attempt rescued as stale, then every callback timed
	// out: no registration and no parked job may be left behind.
	var left, parked int
	if err := pool.QueryRow(ctx, `
		WITH s AS (SELECT count(*) FROM awa.rescue_stale_claims(interval '1 second', 100000, now() + interval '1 day'))
		SELECT (SELECT count(*) FROM s)`).Scan(&left); err != nil {
		t.Fatal(err)
	}
	if err := pool.QueryRow(ctx, `
		WITH r AS (SELECT count(*) FROM awa.rescue_expired_callbacks(100000, now() + interval '1 day'))
		SELECT (SELECT count(*) FROM r)`).Scan(&left); err != nil {
		t.Fatal(err)
	}
	if err := pool.QueryRow(ctx, `SELECT (SELECT count(*) FROM awa.callbacks), (SELECT count(*) FROM awa.external_waits)`).
		Scan(&left, &parked); err != nil || left != 0 || parked != 0 {
		t.Fatalf("after every attempt closed and every timeout passed: %d registrations and %d parked jobs left (%v), want none",
			left, parked, err)
	}
}
