package sqlrace

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// flowKeyLimits are the per-key limits of the queue the key-limit hammer
// uses: args.t "a" (limit 3), "b" (2, and lowered to 1 now and then) and 7,
// written as the number 7 by some producers and the string "7" by others
// (one key: the key is read as text).
var flowKeyLimits = map[string]int{"a": 3, "b": 2, "7": 3}

// awaOperatorRace says whether err is an awa error an operator call may meet
// when it races the job's other paths (the job moved on: not found, not in
// the state the call needs); anything else is a failure.
func awaOperatorRace(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && len(pe.Code) == 5 && pe.Code[:2] == "AW"
}

// finalizeOne closes (or tries to close) the attempt c as action says, on
// conn: complete, retry (backoff 40 ms), snooze (30 ms), fail (to the DLQ),
// cancel, or one of the callback forms: park (register, then park_jobs; the
// token goes to parked) and wait (register, stay open a moment, then
// complete_external from this session).
func finalizeOne(ctx context.Context, conn *pgx.Conn, action string, c claimed, parked chan<- string) error {
	args := []any{[]int64{c.ID}, []int64{c.RunLease}, []int32{c.ClaimSlot}, []int64{c.ReceiptID}}
	switch action {
	case "complete", "cancel":
		_, err := finalizeAs(ctx, conn, action, []claimed{c})
		return err
	case "retry":
		_, err := conn.Exec(ctx, `SELECT * FROM awa.retry_jobs($1, $2, $3, $4, ARRAY['boom'],
			ARRAY[now() + interval '40 ms'])`, args...)
		return err
	case "snooze":
		_, err := conn.Exec(ctx, `SELECT * FROM awa.snooze_jobs($1, $2, $3, $4, ARRAY[now() + interval '30 ms'])`, args...)
		return err
	case "fail":
		_, err := finalizeAs(ctx, conn, "fail", []claimed{c})
		return err
	case "park", "wait":
		var token *string
		if err := conn.QueryRow(ctx, `SELECT callback_id::text FROM awa.register_callback($1, $2, $3, $4, interval '1 hour')`,
			c.ID, c.RunLease, c.ClaimSlot, c.ReceiptID).Scan(&token); err != nil {
			return err
		}
		if token == nil {
			return nil // stale: rescued or cancelled meanwhile
		}
		if action == "wait" {
			time.Sleep(10 * time.Millisecond)
			_, err := conn.Exec(ctx, `SELECT * FROM awa.complete_external($1::uuid, '{}')`, *token)
			return err
		}
		if _, err := conn.Exec(ctx, `SELECT * FROM awa.park_jobs($1, $2, $3, $4)`, args...); err != nil {
			return err
		}
		select {
		case parked <- *token:
		default: // left for the callback timeout of the final drain
		}
		return nil
	}
	return fmt.Errorf("unknown action %q", action)
}

// TestKeyLimitHoldsOnEveryPathThatOpensOrClosesAnAttempt runs a keyed queue
// (limits a 3, b 2, 7 3; dlq on; deadline_seconds 1; aging 1 s; two
// priorities; weights 1, 2 and one of 5, which counts as its key's limit)
// through every path that opens or closes an attempt at once: four claimers
// complete, retry with backoff, snooze, fail to the DLQ, cancel, park on a
// callback or wait on one (an open attempt: it counts), hand jobs to an
// operator who cancels them while they run, or abandon them (deadline and
// stale rescue); a maintenance session promotes, rescues, resolves parked
// callbacks (resume or complete) and retries DLQ jobs; a config session
// pauses and resumes the queue and lowers b's limit to 1 and back; the
// queue, claim, cursor and lease rings turn. A sampler sums the weights of
// each key's open attempts in the claim ring: never above its limit.
// Then everything is rescued and drained, and a fresh job of every key is
// claimable: no path leaked a slot.
func TestKeyLimitHoldsOnEveryPathThatOpensOrClosesAnAttempt(t *testing.T) {
	ctx, pool := newDB(t, 4*time.Minute)
	const queue = "kx"
	setup := connect(t, ctx, pool)
	if _, err := setup.Exec(ctx, `SELECT * FROM awa.configure_queue($1, '{"dlq": true, "deadline_seconds": 1, "aging_seconds": 1,
		"concurrency": {"key": "args.t", "limit": 3, "limits": {"b": 2}}}')`, queue); err != nil {
		t.Fatal(err)
	}
	// weight of every job (capped at its key's limit, as the claim counts it)
	weight := map[int64]int{}
	insert := func(n int) {
		t.Helper()
		args, opts := make([]string, n), make([]string, n)
		for i := range n {
			tenant := []string{`"a"`, `"b"`, `7`, `"7"`}[i%4]
			w := 1
			if i%5 == 0 {
				w = 2
			}
			args[i] = `{"t": ` + tenant + `}`
			opts[i] = fmt.Sprintf(`{"queue": %q, "priority": %d, "weight": %d, "max_attempts": 4}`, queue, 1+i%2, w)
		}
		args[0], opts[0] = `{"t": "a"}`, fmt.Sprintf(`{"queue": %q, "weight": 5, "max_attempts": 4}`, queue)
		ids, err := collectIDs(setup.Query(ctx, `SELECT id FROM awa.insert_jobs(array_fill('k'::text, ARRAY[$1::int]),
			$2::jsonb[], $3::jsonb[])`, n, args, opts))
		if err != nil {
			t.Fatal(err)
		}
		for i, id := range ids {
			w := 1
			if i == 0 {
				w = 3
			} else if i%5 == 0 {
				w = 2
			}
			weight[id] = w
		}
	}
	insert(600)

	runCtx, cancel, fail := withErrOnce(ctx)
	defer cancel()
	stopAt := time.Now().Add(6 * time.Second)
	var wg sync.WaitGroup
	parked := make(chan string, 1000)
	toCancel := make(chan int64, 1000)
	var claimedN, opCancelled, dlqRetried, resolved atomic.Int64
	actions := []string{"complete", "complete", "complete", "retry", "snooze", "fail", "cancel", "operator", "park", "wait", "abandon"}
	for w := range 4 {
		goSession(t, ctx, pool, &wg, func(conn *pgx.Conn) {
			rng := rand.New(rand.NewPCG(uint64(w), 11))
			for time.Now().Before(stopAt) && runCtx.Err() == nil {
				cs, err := claim(runCtx, conn, queue, 4, nil)
				if err != nil {
					fail.set("claim: %v", err)
					return
				}
				if len(cs) == 0 {
					time.Sleep(2 * time.Millisecond)
					continue
				}
				claimedN.Add(int64(len(cs)))
				time.Sleep(time.Duration(rng.IntN(4)) * time.Millisecond)
				for _, c := range cs {
					switch a := actions[rng.IntN(len(actions))]; a {
					case "abandon":
					case "operator":
						toCancel <- c.ID
					default:
						if err := finalizeOne(runCtx, conn, a, c, parked); err != nil {
							fail.set("%s job %d: %v", a, c.ID, err)
							return
						}
					}
				}
			}
		})
	}
	// The operator: cancels running jobs (they may have moved on).
	goSession(t, ctx, pool, &wg, func(conn *pgx.Conn) {
		for time.Now().Before(stopAt) && runCtx.Err() == nil {
			select {
			case id := <-toCancel:
				if _, err := conn.Exec(runCtx, `SELECT * FROM awa.cancel_job($1)`, id); err == nil {
					opCancelled.Add(1)
				} else if !awaOperatorRace(err) {
					fail.set("cancel_job %d: %v", id, err)
					return
				}
			case <-time.After(20 * time.Millisecond):
			}
		}
	})
	// Maintenance: rescues, promotion, callbacks resolved, DLQ retried.
	goSession(t, ctx, pool, &wg, func(conn *pgx.Conn) {
		for i := 0; time.Now().Before(stopAt) && runCtx.Err() == nil; i++ {
			for _, q := range []string{
				`SELECT count(*) FROM awa.rescue_stale_claims(interval '150 ms')`,
				`SELECT count(*) FROM awa.rescue_expired_deadlines()`,
				`SELECT count(*) FROM awa.promote_due_jobs()`,
			} {
				var n int64
				if err := conn.QueryRow(runCtx, q).Scan(&n); err != nil {
					fail.set("%s: %v", q, err)
					return
				}
			}
			for len(parked) > 0 {
				how := []string{"resume", "complete"}[i%2]
				if _, err := conn.Exec(runCtx, `SELECT * FROM awa.`+how+`_external($1::uuid, '{}')`, <-parked); err != nil {
					fail.set("%s_external: %v", how, err)
					return
				}
				resolved.Add(1)
			}
			ids, err := collectIDs(conn.Query(runCtx, `SELECT id FROM awa.list_dlq_jobs($1, NULL, NULL, NULL, 20)`, queue))
			if err != nil {
				fail.set("list_dlq_jobs: %v", err)
				return
			}
			for _, id := range ids {
				if _, err := conn.Exec(runCtx, `SELECT * FROM awa.retry_dlq_job($1)`, id); err == nil {
					dlqRetried.Add(1)
				} else if !awaOperatorRace(err) {
					fail.set("retry_dlq_job %d: %v", id, err)
					return
				}
			}
			time.Sleep(15 * time.Millisecond)
		}
	})
	// Config: pause and resume; b's limit lowered to 1 and raised back (the
	// sampler allows the higher: attempts open under it may still run).
	goSession(t, ctx, pool, &wg, func(conn *pgx.Conn) {
		for i := 0; time.Now().Before(stopAt) && runCtx.Err() == nil; i++ {
			stmts := []string{
				`SELECT 1 FROM awa.pause_queue('kx')`,
				`SELECT 1 FROM awa.resume_queue('kx')`,
				`SELECT 1 FROM awa.configure_queue('kx', '{"concurrency": {"key": "args.t", "limit": 3, "limits": {"b": 1}}}')`,
				`SELECT 1 FROM awa.configure_queue('kx', '{"concurrency": {"key": "args.t", "limit": 3, "limits": {"b": 2}}}')`,
			}
			if _, err := conn.Exec(runCtx, stmts[i%len(stmts)]); err != nil {
				fail.set("config: %v", err)
				return
			}
			time.Sleep(time.Duration(40+i%3*30) * time.Millisecond)
		}
	})
	goTurnRings(t, ctx, runCtx, pool, &wg, fail, stopAt, []string{"queue", "claim", "cursor", "lease"}, func(string, ringOutcome) {})
	var samples, slowest atomic.Int64
	worst := map[string]int{}
	var worstMu sync.Mutex
	goSession(t, ctx, pool, &wg, func(conn *pgx.Conn) {
		for time.Now().Before(stopAt) && runCtx.Err() == nil {
			t0 := time.Now()
			use, err := openWeightPerKey(runCtx, conn, queue, weight)
			slowest.Store(max(slowest.Load(), int64(time.Since(t0))))
			if err != nil {
				fail.set("sample: %v", err)
				return
			}
			worstMu.Lock()
			for k, u := range use {
				worst[k] = max(worst[k], u)
				if u > flowKeyLimits[k] {
					fail.set("key %s: open attempts weigh %d, its limit is %d", k, u, flowKeyLimits[k])
				}
			}
			worstMu.Unlock()
			samples.Add(1)
			time.Sleep(2 * time.Millisecond)
		}
	})
	wg.Wait()
	if err := fail.get(); err != nil {
		t.Fatal(err)
	}
	t.Logf("%d claimed, %d operator cancels, %d callbacks resolved, %d DLQ retries, %d samples (slowest %s), most weight open: %v",
		claimedN.Load(), opCancelled.Load(), resolved.Load(), dlqRetried.Load(), samples.Load(), time.Duration(slowest.Load()), worst)
	for k, l := range flowKeyLimits {
		if worst[k] < l-1 {
			t.Fatalf("key %s never came near its limit %d (at most %d open): the run proved little", k, l, worst[k])
		}
	}
	if opCancelled.Load() == 0 || resolved.Load() == 0 || dlqRetried.Load() == 0 {
		t.Fatal("a path never ran: the run proved little")
	}

	// Rescue and resolve everything, drain, then a fresh job of each key
	// must be claimable: a leaked slot would keep its key full for ever.
	// The config session may have stopped with the queue paused.
	if _, err := setup.Exec(ctx, `SELECT * FROM awa.resume_queue($1)`, queue); err != nil {
		t.Fatal(err)
	}
	later := time.Now().Add(2 * time.Hour)
	for _, q := range []string{
		`SELECT count(*) FROM awa.rescue_stale_claims(interval '1 second', 100000, $1)`,
		`SELECT count(*) FROM awa.rescue_expired_deadlines(100000, $1)`,
		`SELECT count(*) FROM awa.rescue_expired_callbacks(100000, $1)`,
	} {
		var n int64
		if err := setup.QueryRow(ctx, q, later).Scan(&n); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	drainDeadline := time.Now().Add(60 * time.Second)
	for {
		if time.Now().After(drainDeadline) {
			var attempts, open string
			if err := setup.QueryRow(ctx, `SELECT coalesce(string_agg(format('%s job %s lease %s slot %s weight %s open %s',
				a.key, b.job_ids[i.item], b.run_leases[i.item], a.claim_slot, coalesce(i.w, 1),
				awa._attempt_open(b.job_ids[i.item], b.run_leases[i.item], a.claim_slot, awa._receipt_id(a.batch_id, i.item))), '; '), '')
				FROM awa.key_attempts a CROSS JOIN LATERAL unnest(a.items, a.weights) AS i (item, w)
				LEFT JOIN awa.claim_batches b ON b.batch_id = a.batch_id AND b.issued_slot = a.claim_slot
				WHERE a.queue = $1`, queue).Scan(&attempts); err != nil {
				t.Fatal(err)
			}
			if err := setup.QueryRow(ctx, `SELECT coalesce(string_agg(o.job_id::text, ','), '') FROM awa._open_receipts o
				WHERE o.queue = $1`, queue).Scan(&open); err != nil {
				t.Fatal(err)
			}
			t.Fatalf("the queue did not drain: %+v; key_attempts: %s; open receipts: %s",
				queueCounts(t, ctx, setup, queue), attempts, open)
		}
		// a day past the rescues: their retries' backoff counts from then
		if _, err := setup.Exec(ctx, `SELECT * FROM awa.promote_due_jobs(100000, $1)`, later.Add(24*time.Hour)); err != nil {
			t.Fatal(err)
		}
		ids, err := collectIDs(setup.Query(ctx, `SELECT id FROM awa.list_dlq_jobs($1, NULL, NULL, NULL, 1000)`, queue))
		if err != nil {
			t.Fatal(err)
		}
		for _, id := range ids {
			if _, err := setup.Exec(ctx, `SELECT * FROM awa.retry_dlq_job($1)`, id); err != nil {
				t.Fatal(err)
			}
		}
		cs, err := claim(ctx, setup, queue, 50, nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(cs) > 0 {
			if _, err := complete(ctx, setup, cs); err != nil {
				t.Fatal(err)
			}
			continue
		}
		qc := queueCounts(t, ctx, setup, queue)
		if qc.Available+qc.Running+qc.Scheduled+qc.Retryable+qc.DLQ == 0 {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	fresh := map[string]int64{}
	for _, k := range []string{`"a"`, `"b"`, `7`} {
		var id int64
		if err := setup.QueryRow(ctx, `SELECT id FROM awa.insert_job('k', jsonb_build_object('t', $1::jsonb),
			jsonb_build_object('queue', $2::text))`, k, queue).Scan(&id); err != nil {
			t.Fatal(err)
		}
		fresh[k] = id
	}
	cs, err := claim(ctx, setup, queue, 10, nil)
	if err != nil {
		t.Fatal(err)
	}
	got := map[int64]bool{}
	for _, c := range cs {
		got[c.ID] = true
	}
	for k, id := range fresh {
		if !got[id] {
			t.Fatalf("after the drain a fresh job of key %s (job %d) is not claimable: a slot of its key leaked", k, id)
		}
	}
}

// openWeightPerKey sums, per key of a keyed queue, the weights (capped at the
// key's limit, as the claim counts them) of the attempts open in the claim
// ring (one statement: one snapshot).
func openWeightPerKey(ctx context.Context, q rowQuerier, queue string, weight map[int64]int) (map[string]int, error) {
	rows, err := q.Query(ctx, `SELECT k.key, o.job_id FROM awa._open_receipts o JOIN awa.key_lanes k USING (lane_id)
		WHERE k.queue = $1`, queue)
	if err != nil {
		return nil, err
	}
	out := map[string]int{}
	for rows.Next() {
		var k string
		var id int64
		if err := rows.Scan(&k, &id); err != nil {
			return nil, err
		}
		w, ok := weight[id]
		if !ok {
			return nil, fmt.Errorf("job %d of key %s is not one the test inserted", id, k)
		}
		out[k] += min(w, flowKeyLimits[k])
	}
	return out, rows.Err()
}

// TestANewKeyLaneCommittedAfterTheSnapshotRaises40001: a READ COMMITTED
// producer creates key "z"'s lane and holds it; a REPEATABLE READ and then a
// SERIALIZABLE producer whose snapshot predates that commit insert a job of
// "z": each waits for the lane's creation lock, cannot see the lane, and gets
// 40001 (retry the transaction, docs/errors.md), never a unique violation;
// retried, it lands in the lane.
func TestANewKeyLaneCommittedAfterTheSnapshotRaises40001(t *testing.T) {
	ctx, pool := newDB(t, time.Minute)
	const queue = "kz"
	a, b := connect(t, ctx, pool), connect(t, ctx, pool)
	if _, err := a.Exec(ctx, `SELECT * FROM awa.configure_queue($1, '{"concurrency": {"key": "args.t", "limit": 1}}')`,
		queue); err != nil {
		t.Fatal(err)
	}
	// The shard lanes exist: only the key lane is new.
	if _, err := a.Exec(ctx, `SELECT * FROM awa.insert_job('k', '{}', '{"queue": "kz"}')`); err != nil {
		t.Fatal(err)
	}
	for i, level := range []string{"repeatable read", "serializable"} {
		key := fmt.Sprintf(`{"t": "z%d"}`, i)
		txA := mustBegin(t, ctx, a)
		if _, err := txA.Exec(ctx, `SELECT * FROM awa.insert_job('k', $1::jsonb, '{"queue": "kz"}')`, key); err != nil {
			t.Fatal(err)
		}
		txB, err := b.BeginTx(ctx, pgx.TxOptions{IsoLevel: pgx.TxIsoLevel(level)})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := txB.Exec(ctx, `SELECT 1`); err != nil { // the snapshot
			t.Fatal(err)
		}
		done := inBackground(func() (int, error) {
			_, err := txB.Exec(ctx, `SELECT * FROM awa.insert_job('k', $1::jsonb, '{"queue": "kz"}')`, key)
			return 0, err
		})
		time.Sleep(100 * time.Millisecond)
		if err := txA.Commit(ctx); err != nil {
			t.Fatal(err)
		}
		r := <-done
		var pe *pgconn.PgError
		if !errors.As(r.err, &pe) || pe.Code != "40001" {
			t.Fatalf("%s: a key lane committed after the snapshot: %v, want 40001", level, r.err)
		}
		if err := txB.Rollback(ctx); err != nil {
			t.Fatal(err)
		}
		var n int
		if err := b.QueryRow(ctx, `SELECT count(*) FROM awa.insert_job('k', $1::jsonb, '{"queue": "kz"}')`, key).
			Scan(&n); err != nil || n != 1 {
			t.Fatalf("%s: the retry: %v", level, err)
		}
		if err := b.QueryRow(ctx, `SELECT count(*) FROM awa.key_lanes k JOIN awa.ready_entries r USING (lane_id)
			WHERE k.queue = $1 AND k.key = $2`, queue, fmt.Sprintf("z%d", i)).Scan(&n); err != nil || n != 2 {
			t.Fatalf("%s: the key's lane holds %d jobs, want 2 (%v)", level, n, err)
		}
	}
}

// TestADrainedKeyLaneAtItsLimitIsNotVisited: 200 keys (limit 1), one job
// each, all claimed and still running. A later claim finds nothing, and must
// find it without visiting the keys: their lanes hold nothing above their
// cursors (the consumed rows lie between floor and cursor until the cursor
// ring turns). Visiting meant, per key and claim, the lane and key claim
// locks and a read of the key's attempts (10,000 keys: 15 s a claim). The
// empty claim, in a transaction of its own, holds no advisory lock.
func TestADrainedKeyLaneAtItsLimitIsNotVisited(t *testing.T) {
	ctx, pool := newDB(t, time.Minute)
	const queue, keys = "kd", 200
	a, b := connect(t, ctx, pool), connect(t, ctx, pool)
	if _, err := a.Exec(ctx, `SELECT * FROM awa.configure_queue($1, '{"concurrency": {"key": "args.t", "limit": 1}}')`,
		queue); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Exec(ctx, `SELECT * FROM awa.insert_jobs(array_fill('k'::text, ARRAY[$2::int]),
		ARRAY(SELECT jsonb_build_object('t', 'u' || g) FROM generate_series(1, $2::int) AS g),
		array_fill(jsonb_build_object('queue', $1::text), ARRAY[$2::int]))`, queue, keys); err != nil {
		t.Fatal(err)
	}
	cs, err := claim(ctx, a, queue, keys, nil)
	if err != nil || len(cs) != keys {
		t.Fatalf("claim: %v (%d of %d)", err, len(cs), keys)
	}
	tx := mustBegin(t, ctx, b)
	got, err := claim(ctx, tx, queue, 10, nil)
	if err != nil || len(got) != 0 {
		t.Fatalf("a claim with every key at its limit: %v, %d jobs", err, len(got))
	}
	var locks int
	if err := tx.QueryRow(ctx, `SELECT count(*) FROM pg_locks WHERE pid = pg_backend_pid() AND locktype = 'advisory'`).
		Scan(&locks); err != nil {
		t.Fatal(err)
	}
	if err := tx.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	if locks != 0 {
		t.Fatalf("the empty claim took %d advisory locks: it visited drained key lanes", locks)
	}
}
