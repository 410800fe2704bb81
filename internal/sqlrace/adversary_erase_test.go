package sqlrace

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// unerasedRows counts the rows of the jobs ids, in every plane that holds a
// job's body, that still hold data an erasure removes (args other than {},
// or metadata without erased_at).
func unerasedRows(t *testing.T, ctx context.Context, pool *pgxpool.Pool, ids []int64) int64 {
	t.Helper()
	var n int64
	if err := pool.QueryRow(ctx, `
		SELECT (SELECT count(*) FROM awa.ready_entries WHERE job_id = ANY ($1) AND (args <> '{}' OR NOT metadata ? 'erased_at'))
		     + (SELECT count(*) FROM awa.done_entries WHERE job_id = ANY ($1) AND (args <> '{}' OR NOT metadata ? 'erased_at'))
		     + (SELECT count(*) FROM awa.deferred_jobs WHERE job_id = ANY ($1) AND (args <> '{}' OR NOT metadata ? 'erased_at'))
		     + (SELECT count(*) FROM awa.external_waits WHERE job_id = ANY ($1) AND (args <> '{}' OR NOT metadata ? 'erased_at'))
		     + (SELECT count(*) FROM awa.dlq_entries WHERE job_id = ANY ($1) AND (args <> '{}' OR NOT metadata ? 'erased_at'))
		     + (SELECT count(*) FROM awa._archived_jobs_now WHERE id = ANY ($1) AND (args <> '{}' OR NOT metadata ? 'erased_at'))`,
		ids).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// insertWithData inserts n jobs with data an erasure removes (args
// {"secret": "pii-<i>"}, metadata {"who": "pii"}) and the options opts, in
// one awa.insert_jobs call, and returns their ids.
func insertWithData(ctx context.Context, q rowQuerier, n int, opts string) ([]int64, error) {
	return collectIDs(q.Query(ctx, `
		SELECT j.id FROM awa.insert_jobs(array_fill('k'::text, ARRAY[$1::int]),
			ARRAY(SELECT jsonb_build_object('secret', 'pii-' || g) FROM generate_series(1, $1::int) AS g),
			array_fill($2::jsonb || '{"metadata": {"who": "pii"}}', ARRAY[$1::int])) AS j`, n, opts))
}

// dlqJob inserts a job with data into queue (its DLQ turned on), claims it
// and fails it for good: the job is in the DLQ. Returns its id.
func dlqJob(t *testing.T, ctx context.Context, pool *pgxpool.Pool, queue string) int64 {
	t.Helper()
	if _, err := pool.Exec(ctx, `SELECT awa.configure_queue($1, '{"dlq": true}')`, queue); err != nil {
		t.Fatal(err)
	}
	var id int64
	if err := pool.QueryRow(ctx, `SELECT j.id FROM awa.insert_job('k', '{"secret": "pii"}',
			jsonb_build_object('queue', $1::text, 'metadata', '{"who": "pii"}'::jsonb)) AS j`, queue).Scan(&id); err != nil {
		t.Fatal(err)
	}
	cs, err := claim(ctx, pool, queue, 1, nil)
	if err != nil || len(cs) != 1 || cs[0].ID != id {
		t.Fatalf("claim: %v, %v", cs, err)
	}
	if fs, err := finalizeAs(ctx, pool, "fail", cs); err != nil || fs[0].Outcome != "applied" {
		t.Fatalf("fail: %v, %v", fs, err)
	}
	var inDLQ bool
	if err := pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM awa.dlq_entries WHERE job_id = $1)`, id).Scan(&inDLQ); err != nil || !inDLQ {
		t.Fatalf("job %d not in the DLQ (fixture): %v", id, err)
	}
	return id
}

// TestErasureRacingADLQRetryLeavesNoUnerasedCopy erases a DLQ job while an
// operator retries it out of the DLQ with awa.retry_dlq_job, the retry
// arriving in the middle of the erasure: after the erasure rewrote the queue
// ring's rows and before it reached the DLQ (held there by a session that
// holds SHARE on awa.deferred_jobs, which the erasure's UPDATE of the backlog
// waits for). The retry moves the DLQ row into a new ready row: had it
// committed then, that row would keep the job's data (the erasure had passed
// the ring, and found the DLQ row gone). Whatever order the two end in, no
// row of the job may keep its data, and the job shows once, erased.
func TestErasureRacingADLQRetryLeavesNoUnerasedCopy(t *testing.T) {
	ctx, pool := newDB(t, time.Minute)
	id := dlqJob(t, ctx, pool, "erase_dlq")

	hold, _ := advTx(t, ctx, pool)
	if _, err := hold.Exec(ctx, `LOCK TABLE awa.deferred_jobs IN SHARE MODE`); err != nil {
		t.Fatal(err)
	}
	eraser := connect(t, ctx, pool)
	erased := inBackground(func() ([]string, error) {
		return collectStrings(eraser.Query(ctx, `SELECT plane FROM awa.erase_job($1)`, id))
	})
	waitForLockWait(t, ctx, pool, eraser.PgConn().PID())

	retrier := connect(t, ctx, pool)
	retried := inBackground(func() (string, error) {
		var state string
		err := retrier.QueryRow(ctx, `SELECT state::text FROM awa.retry_dlq_job($1)`, id).Scan(&state)
		return state, err
	})
	// The retry commits now if it does not wait for the erasure: give it the
	// time to, then let the erasure go on.
	var r result[string]
	select {
	case r = <-retried:
	case <-time.After(300 * time.Millisecond):
		if err := hold.Rollback(ctx); err != nil {
			t.Fatal(err)
		}
		r = <-retried
	}
	_ = hold.Rollback(ctx)
	if e := <-erased; e.err != nil {
		t.Fatalf("erase_job: %v", e.err)
	}
	if r.err != nil || r.v != "available" {
		t.Fatalf("retry_dlq_job: state %q, %v; want available", r.v, r.err)
	}

	if n := unerasedRows(t, ctx, pool, []int64{id}); n != 0 {
		t.Errorf("%d rows of the erased job still hold its data", n)
	}
	var shown int
	var args *string
	if err := pool.QueryRow(ctx, `SELECT count(*), min(args::text) FROM awa.jobs WHERE id = $1`, id).Scan(&shown, &args); err != nil {
		t.Fatal(err)
	}
	if shown != 1 || args == nil || *args != "{}" {
		t.Errorf("awa.jobs shows the job %d times (args %v); want once, erased", shown, args)
	}
}

// collectStrings scans one text column.
func collectStrings(rows pgx.Rows, err error) ([]string, error) {
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, pgx.RowTo[string])
}

// eraseRun is what the randomized erasure run records, under its mutex.
type eraseRun struct {
	mu      sync.Mutex
	all     []int64
	tokens  []string
	erases  map[int64][][2]time.Time // each applied erase_job of the job: when it began and returned
	retries map[int64][]time.Time    // when each applied operator retry of the job returned
	claims  []eraseClaim
	counts  map[string]int
}

// eraseClaim is one claim of a job: when the claim call began, and the args
// the worker was handed.
type eraseClaim struct {
	id    int64
	at    time.Time
	args  string
	erase bool // args were the erasure's {}
}

func (r *eraseRun) count(what string) {
	r.mu.Lock()
	r.counts[what]++
	r.mu.Unlock()
}

// TestErasureRacingEveryMoverLeavesNoDataAndRunsNothingAgain erases jobs at
// random while they move through every plane at once: two workers claim and
// complete, retry, snooze, fail (a DLQ queue), report progress, or register a
// callback and park; a resolver completes, fails, retries or resumes the
// parked and waiting jobs by token; operators erase a job while retrying it
// at the same moment (awa.retry_job, awa.retry_dlq_job; often a DLQ job);
// the leader promotes the
// backlog and turns every ring (archive copies included). After the run: no
// row of an erased job anywhere keeps its args or metadata, every job shows
// once in awa.jobs, and no claim that began after a job's erasure returned
// was handed its old args, nor ran it at all unless an operator retry of it
// ended after the erasure began (one that may have come after it).
func TestErasureRacingEveryMoverLeavesNoDataAndRunsNothingAgain(t *testing.T) {
	ctx, pool := newDB(t, 3*time.Minute)
	const queue = "erase_mix"
	if _, err := pool.Exec(ctx, `SELECT awa.configure_queue($1, '{"dlq": true}')`, queue); err != nil {
		t.Fatal(err)
	}
	const runFor = 8 * time.Second
	runCtx, cancel, fail := withErrOnce(ctx)
	defer cancel()
	stopAt := time.Now().Add(runFor)
	run := &eraseRun{erases: map[int64][][2]time.Time{}, retries: map[int64][]time.Time{}, counts: map[string]int{}}
	var wg sync.WaitGroup
	var prunes int

	for w := 0; w < 2; w++ {
		seed := uint64(w + 1)
		goSession(t, ctx, pool, &wg, func(conn *pgx.Conn) {
			rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), seed))
			for time.Now().Before(stopAt) && runCtx.Err() == nil {
				ids, err := insertWithData(runCtx, conn, 6, `{"queue": "erase_mix", "max_attempts": 2}`)
				if err != nil {
					fail.set("insert: %v", err)
					return
				}
				run.mu.Lock()
				run.all = append(run.all, ids...)
				run.mu.Unlock()
				if err := eraseMixWork(runCtx, conn, rng, run); err != nil {
					fail.set("worker: %v", err)
					return
				}
			}
		})
	}

	// The resolver: resolves recent tokens, each way.
	goSession(t, ctx, pool, &wg, func(conn *pgx.Conn) {
		rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 7))
		for time.Now().Before(stopAt) && runCtx.Err() == nil {
			run.mu.Lock()
			var token string
			if n := len(run.tokens); n > 0 {
				token = run.tokens[n-1-rng.IntN(min(n, 20))]
			}
			run.mu.Unlock()
			if token == "" {
				time.Sleep(5 * time.Millisecond)
				continue
			}
			action := resolutions[rng.IntN(len(resolutions))]
			if _, err := resolveCallback(runCtx, conn, action, token, "resolver"); err != nil {
				fail.set("%s_external: %v", action, err)
				return
			}
			time.Sleep(time.Duration(rng.IntN(5)) * time.Millisecond)
		}
	})

	// The operator, in pairs: each round one session erases a job while the
	// other retries it at the same moment (retry_job or retry_dlq_job),
	// half the time a job in the DLQ, else a recent one (most retries are
	// refused then: the job is not failed or cancelled).
	ops := [2]*pgx.Conn{connect(t, ctx, pool), connect(t, ctx, pool)}
	wg.Add(1)
	go func() {
		defer wg.Done()
		rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 9))
		for time.Now().Before(stopAt) && runCtx.Err() == nil {
			var id int64
			ok := false
			if rng.IntN(2) == 0 {
				err := ops[0].QueryRow(runCtx, `SELECT job_id FROM awa.dlq_entries ORDER BY failed_at DESC LIMIT 1 OFFSET $1`,
					rng.IntN(5)).Scan(&id)
				ok = err == nil
			}
			if !ok {
				run.mu.Lock()
				id, ok = pickRecent(run.all, rng, 60)
				run.mu.Unlock()
			}
			if !ok {
				time.Sleep(5 * time.Millisecond)
				continue
			}
			fn := "awa.retry_job($1)"
			if rng.IntN(2) == 0 {
				fn = "awa.retry_dlq_job($1)"
			}
			var pair sync.WaitGroup
			pair.Add(2)
			go func() {
				defer pair.Done()
				began := time.Now()
				_, err := ops[0].Exec(runCtx, `SELECT count(*) FROM awa.erase_job($1)`, id)
				switch sqlState(err) {
				case "":
					run.mu.Lock()
					run.erases[id] = append(run.erases[id], [2]time.Time{began, time.Now()})
					run.mu.Unlock()
					run.count("erased")
				case "AW021":
					// Five stale cancels in a row: the job moved five times
					// while the erasure held the ring lock. The cancel that
					// took a retried job's spent ready row did this.
					fail.set("erase_job(%d) gave up: %v", id, err)
				default:
					fail.set("erase_job(%d): %v", id, err)
				}
			}()
			go func() {
				defer pair.Done()
				time.Sleep(time.Duration(rng.IntN(3)) * time.Millisecond)
				_, err := ops[1].Exec(runCtx, "SELECT count(*) FROM "+fn, id)
				switch sqlState(err) {
				case "":
					run.mu.Lock()
					run.retries[id] = append(run.retries[id], time.Now())
					run.mu.Unlock()
					run.count("retried")
				case "AW021", "AW020":
				default:
					fail.set("%s of %d: %v", fn, id, err)
				}
			}()
			pair.Wait()
			time.Sleep(time.Duration(rng.IntN(5)) * time.Millisecond)
		}
	}()

	// The leader: promotion, and every ring turned as fast as it may.
	goSession(t, ctx, pool, &wg, func(conn *pgx.Conn) {
		for time.Now().Before(stopAt) && runCtx.Err() == nil {
			if _, err := conn.Exec(runCtx, `SELECT count(*) FROM awa.promote_due_jobs(1000)`); err != nil {
				fail.set("promote: %v", err)
				return
			}
			time.Sleep(10 * time.Millisecond)
		}
	})
	var ringMu sync.Mutex
	goRingTurner(t, ctx, runCtx, pool, &wg, fail, stopAt, &ringMu, &prunes)
	wg.Wait()
	if err := fail.get(); err != nil {
		t.Fatal(err)
	}

	conn := connect(t, ctx, pool)
	drainRings(t, ctx, conn, "settling")
	erased := sortedKeys(run.erases)
	t.Logf("%d jobs, %d claims, %d queue-ring prunes, %v", len(run.all), len(run.claims), prunes, run.counts)
	if len(erased) < 20 || run.counts["retried"] < 5 || prunes == 0 {
		t.Fatalf("the run did not exercise erasure: %d erased, %d retried, %d prunes", len(erased), run.counts["retried"], prunes)
	}
	if n := unerasedRows(t, ctx, pool, erased); n != 0 {
		t.Errorf("%d rows of erased jobs still hold their data", n)
	}
	shown, err := jobRows(ctx, conn, run.all)
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range run.all {
		if len(shown[id]) != 1 {
			t.Errorf("job %d shown %d times: %v", id, len(shown[id]), shown[id])
		}
	}
	for _, c := range run.claims {
		// The job's last erasure that returned before this claim began.
		var last [2]time.Time
		for _, e := range run.erases[c.id] {
			if e[1].Before(c.at) {
				last = e
			}
		}
		if last[1].IsZero() {
			continue
		}
		if !c.erase {
			t.Errorf("job %d claimed after its erasure with its old args %s", c.id, c.args)
		}
		retried := false
		for _, r := range run.retries[c.id] {
			retried = retried || r.After(last[0])
		}
		if !retried {
			t.Errorf("job %d claimed after its erasure, and no operator retry of it ended after the erasure began", c.id)
		}
	}
}

// eraseMixWork claims up to 6 jobs of erase_mix, records each claim, and ends
// each attempt one way at random (some late): complete, retry, snooze, fail,
// progress then complete, or a callback registration, then parked or waited
// for in sequence. A stale outcome is fine (an erasure cancelled the job).
func eraseMixWork(ctx context.Context, conn *pgx.Conn, rng *rand.Rand, run *eraseRun) error {
	began := time.Now()
	rows, err := conn.Query(ctx, `
		SELECT c.id, c.run_lease, c.claim_slot, c.receipt_id, c.priority, c.attempt, c.args::text
		FROM awa.claim_ready_runtime('erase_mix', 6, NULL) AS c`)
	if err != nil {
		return err
	}
	var cs []claimed
	var c claimed
	var args string
	if _, err := pgx.ForEachRow(rows, []any{&c.ID, &c.RunLease, &c.ClaimSlot, &c.ReceiptID, &c.Priority, &c.Attempt, &args},
		func() error {
			cs = append(cs, c)
			run.mu.Lock()
			run.claims = append(run.claims, eraseClaim{id: c.ID, at: began, args: args, erase: args == "{}"})
			run.mu.Unlock()
			return nil
		}); err != nil {
		return fmt.Errorf("claim: %w", err)
	}
	if rng.IntN(3) == 0 {
		time.Sleep(time.Duration(rng.IntN(30)) * time.Millisecond)
	}
	for _, c := range cs {
		var err error
		switch k := rng.IntN(8); k {
		case 0, 1:
			_, err = finalizeAs(ctx, conn, "complete", []claimed{c})
		case 2:
			_, err = finalizeAs(ctx, conn, "retry", []claimed{c})
		case 3:
			_, err = finalizeAs(ctx, conn, "snooze", []claimed{c})
		case 4:
			_, err = finalizeAs(ctx, conn, "fail", []claimed{c})
		case 5:
			_, err = conn.Exec(ctx, `SELECT count(*) FROM awa.set_progress($1, $2, $3, $4, '{"step": "pii"}')`,
				c.ID, c.RunLease, c.ClaimSlot, c.ReceiptID)
			if err == nil {
				_, err = finalizeAs(ctx, conn, "complete", []claimed{c})
			}
		default:
			var outcome, token string
			outcome, token, err = registerCallback(ctx, conn, c, time.Hour, nil)
			if err == nil && outcome == "applied" {
				run.mu.Lock()
				run.tokens = append(run.tokens, token)
				run.mu.Unlock()
				if k == 6 {
					_, err = parkJobs(ctx, conn, []claimed{c})
				}
				// k == 7: the attempt stays open, waiting in sequence, until
				// a resolution or an erasure closes it.
			}
		}
		if err != nil {
			return err
		}
	}
	return nil
}
