package sqlrace

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Deterministic interleavings of the callback functions with the timeout
// rescue and an operator's cancel: each test holds one session at a lock
// (pg_stat_activity says it waits) before the next step, so the order that
// used to deadlock or lose the cancel is reproduced every run.

// advRegister calls awa.register_callback for c with timeout, its clock at
// now, and returns the token; anything but applied fails the test.
func advRegister(t *testing.T, ctx context.Context, q pgx.Tx, c claimed, timeout time.Duration, now time.Time) string {
	t.Helper()
	var outcome, token string
	if err := q.QueryRow(ctx, `SELECT outcome::text, callback_id::text FROM awa.register_callback($1, $2, $3, $4, $5, $6)`,
		c.ID, c.RunLease, c.ClaimSlot, c.ReceiptID, timeout, now).Scan(&outcome, &token); err != nil || outcome != "applied" {
		t.Fatalf("register_callback of job %d: %s, %v", c.ID, outcome, err)
	}
	return token
}

// advTx begins a transaction on a connection of its own and returns it with
// the backend's pid; it is rolled back when the test ends unless committed.
func advTx(t *testing.T, ctx context.Context, pool *pgxpool.Pool) (pgx.Tx, uint32) {
	t.Helper()
	conn := connect(t, ctx, pool)
	tx := mustBegin(t, ctx, conn)
	t.Cleanup(func() { _ = tx.Rollback(context.Background()) })
	return tx, conn.PgConn().PID()
}

// advWaitsOn waits until backend pid waits for a lock of kind (pg_locks'
// locktype: advisory, relation, transactionid, tuple).
func advWaitsOn(t *testing.T, ctx context.Context, pool *pgxpool.Pool, pid uint32, kind string) {
	t.Helper()
	waitForBackend(t, ctx, pool, pid, `SELECT EXISTS (SELECT 1 FROM pg_stat_activity
			WHERE pid = $1 AND wait_event_type = 'Lock' AND wait_event = '`+kind+`')`,
		2*time.Millisecond, "waited for a lock of kind "+kind)
}

// advRescueUntilDoneOrWaiting runs awa.rescue_expired_callbacks in tx (and
// commits) in the background, and returns once it has finished or waits for
// an advisory lock (an attempt's): a channel that delivers its result.
func advRescueUntilDoneOrWaiting(t *testing.T, ctx context.Context, pool *pgxpool.Pool, tx pgx.Tx, pid uint32) <-chan result[[]finalized] {
	t.Helper()
	rescued := inBackground(func() ([]finalized, error) { return advRescue(ctx, tx) })
	out := make(chan result[[]finalized], 1)
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(2 * time.Millisecond) {
		select {
		case r := <-rescued:
			out <- r
			return out
		default:
		}
		var waits bool
		if err := pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_stat_activity
				WHERE pid = $1 AND wait_event_type = 'Lock' AND wait_event = 'advisory')`, int32(pid)).Scan(&waits); err != nil {
			t.Fatal(err)
		}
		if waits {
			return rescued
		}
	}
	t.Fatalf("rescue_expired_callbacks neither finished nor waited for an attempt's lock")
	return nil
}

// advRescueNow runs awa.rescue_expired_callbacks on the pool.
func advRescueNow(t *testing.T, ctx context.Context, pool *pgxpool.Pool) []finalized {
	t.Helper()
	got, err := collectFinalized(pool.Query(ctx, `
		SELECT f.job_id, f.run_lease, f.outcome::text, f.state::text FROM awa.rescue_expired_callbacks(1000) AS f`))
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// advRetried returns the ids of the applied retryable rows of rescues.
func advRetried(rescues ...[]finalized) []int64 {
	var ids []int64
	for _, rs := range rescues {
		for _, f := range rs {
			if f.Outcome == "applied" && f.State != nil && *f.State == "retryable" {
				ids = append(ids, f.JobID)
			}
		}
	}
	return ids
}

// advRescue runs awa.rescue_expired_callbacks in tx and commits.
func advRescue(ctx context.Context, tx pgx.Tx) ([]finalized, error) {
	got, err := collectFinalized(tx.Query(ctx, `
		SELECT f.job_id, f.run_lease, f.outcome::text, f.state::text FROM awa.rescue_expired_callbacks(1000) AS f`))
	if err != nil {
		return nil, err
	}
	return got, tx.Commit(ctx)
}

// advClaimTwo inserts two jobs of queue and claims them in one claim batch;
// returns the claims in job id order.
func advClaimTwo(t *testing.T, ctx context.Context, tx pgx.Tx, queue string) (claimed, claimed) {
	t.Helper()
	mustInsertBatch(t, ctx, tx, queue, 2, 2)
	cs, err := claim(ctx, tx, queue, 2, nil)
	if err != nil || len(cs) != 2 {
		t.Fatalf("claim: %v, %v", cs, err)
	}
	if cs[0].ID > cs[1].ID {
		cs[0], cs[1] = cs[1], cs[0]
	}
	return cs[0], cs[1]
}

// A job whose earlier attempt registered and then ended otherwise (the
// handler's retry_jobs) is claimed again in one claim batch with job k, whose
// registration has timed out. The timeout rescue deletes the earlier
// attempt's lingering registration, then wants the batch's lock, which the
// job's handler holds (set_progress in its transaction); the handler then
// registers, superseding the earlier registration. On main the rescue waited
// for the batch holding that row's lock: 40P01. Both must succeed, and k be
// retried once (the rescue skips a busy attempt until its next call).
func TestTimeoutRescueAndASupersedingRegistrationDoNotDeadlock(t *testing.T) {
	const queue = "adv_supersede"
	ctx, pool := newDB(t, 60*time.Second)
	past := time.Now().Add(-time.Hour)

	setup, _ := advTx(t, ctx, pool)
	mustInsertBatch(t, ctx, setup, queue, 2, 1)
	first, err := claim(ctx, setup, queue, 1, nil)
	if err != nil || len(first) != 1 {
		t.Fatalf("claim: %v, %v", first, err)
	}
	advRegister(t, ctx, setup, first[0], time.Second, past)
	if got, err := finalizeAs(ctx, setup, "retry", first); err != nil || got[0].Outcome != "applied" {
		t.Fatalf("retry_jobs: %v, %v", got, err)
	}
	if _, err := setup.Exec(ctx, `SELECT count(*) FROM awa.promote_due_jobs(1000, now() + interval '1 hour')`); err != nil {
		t.Fatal(err)
	}
	job, k := advClaimTwo(t, ctx, setup, queue)
	if job.ID != first[0].ID {
		t.Fatalf("claimed %d and %d, want job %d again", job.ID, k.ID, first[0].ID)
	}
	advRegister(t, ctx, setup, k, time.Second, past)
	if err := setup.Commit(ctx); err != nil {
		t.Fatal(err)
	}

	handler, _ := advTx(t, ctx, pool)
	var outcome string
	if err := handler.QueryRow(ctx, `SELECT outcome::text FROM awa.set_progress($1, $2, $3, $4, '{"step": 1}')`,
		job.ID, job.RunLease, job.ClaimSlot, job.ReceiptID).Scan(&outcome); err != nil || outcome != "applied" {
		t.Fatalf("set_progress: %s, %v", outcome, err)
	}
	rescuer, rescuerPID := advTx(t, ctx, pool)
	rescued := advRescueUntilDoneOrWaiting(t, ctx, pool, rescuer, rescuerPID)

	advRegister(t, ctx, handler, job, time.Hour, time.Now())
	if err := handler.Commit(ctx); err != nil {
		t.Fatalf("the handler's transaction: %v", err)
	}
	r := <-rescued
	if r.err != nil {
		t.Fatalf("rescue_expired_callbacks: %v", r.err)
	}
	// k's attempt was busy (the handler held its batch): this call or the next retries it.
	if got := advRetried(r.v, advRescueNow(t, ctx, pool)); len(got) != 1 || got[0] != k.ID {
		t.Fatalf("rescue_expired_callbacks retried %v, want job %d once", got, k.ID)
	}
	var rows, current int
	if err := pool.QueryRow(ctx, `SELECT count(*), count(*) FILTER (WHERE run_lease = $2) FROM awa.callbacks WHERE job_id = $1`,
		job.ID, job.RunLease).Scan(&rows, &current); err != nil || rows != 1 || current != 1 {
		t.Fatalf("job %d has %d registrations (%d of its attempt), %v: want its new one only", job.ID, rows, current, err)
	}
}

// A parked job's resolver raced the park: it read the registration before
// the park committed, so it holds the claim batch's lock when it turns to the
// parked row. If the timeout rescue took that parked row first (its timeout
// passed) and then waited for the same batch's lock (another job of the
// batch timed out while waiting in sequence), the two deadlocked on main. A
// session holding the claim ring's tables (as a prune's truncate does) makes
// the resolver pause between the two, so the rescue comes in between. Both
// must succeed: exactly one of them resolves the parked job, and the other
// job is retried once.
func TestTimeoutRescueAndAResolverThatRacedTheParkDoNotDeadlock(t *testing.T) {
	const queue = "adv_park"
	ctx, pool := newDB(t, 60*time.Second)
	past := time.Now().Add(-time.Hour)

	setup, _ := advTx(t, ctx, pool)
	parked, k := advClaimTwo(t, ctx, setup, queue)
	token := advRegister(t, ctx, setup, parked, time.Second, past)
	advRegister(t, ctx, setup, k, time.Second, past)
	if err := setup.Commit(ctx); err != nil {
		t.Fatal(err)
	}

	handler, _ := advTx(t, ctx, pool)
	ids, leases, slots, receipts := receiptArrays([]claimed{parked})
	if got, err := collectFinalized(handler.Query(ctx, `
		SELECT f.job_id, f.run_lease, f.outcome::text, f.state::text
		FROM awa.park_jobs($1::bigint[], $2::bigint[], $3::int[], $4::bigint[]) AS f`,
		ids, leases, slots, receipts)); err != nil || len(got) != 1 || got[0].Outcome != "applied" {
		t.Fatalf("park_jobs: %v, %v", got, err)
	}
	resolver, resolverPID := advTx(t, ctx, pool)
	resolved := inBackground(func() (callbackResult, error) {
		var o callbackResult
		err := resolver.QueryRow(ctx, `SELECT outcome::text, state::text FROM awa.fail_external($1::uuid, 'no')`, token).
			Scan(&o.Outcome, &o.State)
		if err == nil {
			err = resolver.Commit(ctx)
		}
		return o, err
	})
	advWaitsOn(t, ctx, pool, resolverPID, "advisory")

	truncater, truncaterPID := advTx(t, ctx, pool)
	locked := inBackground(func() (struct{}, error) {
		_, err := truncater.Exec(ctx, `LOCK TABLE awa.claim_closures IN ACCESS EXCLUSIVE MODE`)
		return struct{}{}, err
	})
	advWaitsOn(t, ctx, pool, truncaterPID, "relation")
	if err := handler.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	if r := <-locked; r.err != nil {
		t.Fatal(r.err)
	}
	advWaitsOn(t, ctx, pool, resolverPID, "relation")

	rescuer, rescuerPID := advTx(t, ctx, pool)
	rescued := advRescueUntilDoneOrWaiting(t, ctx, pool, rescuer, rescuerPID)
	if err := truncater.Rollback(ctx); err != nil {
		t.Fatal(err)
	}

	o, r := <-resolved, <-rescued
	if o.err != nil || r.err != nil {
		t.Fatalf("fail_external: %v; rescue_expired_callbacks: %v", o.err, r.err)
	}
	// One of the two resolves the parked job; k (its batch busy) is retried
	// by this call or the next.
	retried := advRetried(r.v, advRescueNow(t, ctx, pool))
	times := map[int64]int{}
	for _, id := range retried {
		times[id]++
	}
	parkedRetried := times[parked.ID] == 1
	if (o.v.Outcome == "applied") == parkedRetried || times[k.ID] != 1 || len(retried) != len(times) || len(times) > 2 {
		t.Fatalf("fail_external of the parked job = %s %v; the rescues retried %v: want one of them to resolve job %d, and job %d retried",
			o.v.Outcome, o.v.State, retried, parked.ID, k.ID)
	}
	want := "failed"
	if parkedRetried {
		want = "retryable"
	}
	var state string
	if err := pool.QueryRow(ctx, `SELECT state::text FROM awa.job($1)`, parked.ID).Scan(&state); err != nil || state != want {
		t.Fatalf("the parked job is %s (%v), want %s", state, err, want)
	}
}

// callbackResult is the outcome and state of an awa.callback_outcome row.
type callbackResult struct {
	Outcome string
	State   *string
}

// An operator cancels a job whose handler is parking it: the cancel finds the
// attempt open, waits for its lock, and finds it closed by the park. On main
// it reported stale and the job stayed parked (until its callback or its
// timeout, up to a year). The cancel must apply: the parked job ends
// cancelled, once.
func TestCancelRacingTheParkCancelsTheParkedJob(t *testing.T) {
	const queue = "adv_cancel"
	ctx, pool := newDB(t, 60*time.Second)

	setup, _ := advTx(t, ctx, pool)
	mustInsertBatch(t, ctx, setup, queue, 2, 1)
	cs, err := claim(ctx, setup, queue, 1, nil)
	if err != nil || len(cs) != 1 {
		t.Fatalf("claim: %v, %v", cs, err)
	}
	token := advRegister(t, ctx, setup, cs[0], time.Hour, time.Now())
	if err := setup.Commit(ctx); err != nil {
		t.Fatal(err)
	}

	handler, _ := advTx(t, ctx, pool)
	ids, leases, slots, receipts := receiptArrays(cs)
	if _, err := handler.Exec(ctx, `SELECT count(*) FROM awa.park_jobs($1::bigint[], $2::bigint[], $3::int[], $4::bigint[])`,
		ids, leases, slots, receipts); err != nil {
		t.Fatal(err)
	}
	operator, operatorPID := advTx(t, ctx, pool)
	cancelled := inBackground(func() ([]finalized, error) {
		got, err := collectFinalized(operator.Query(ctx, `
			SELECT f.job_id, f.run_lease, f.outcome::text, f.state::text FROM awa.cancel_job($1) AS f`, cs[0].ID))
		if err == nil {
			err = operator.Commit(ctx)
		}
		return got, err
	})
	advWaitsOn(t, ctx, pool, operatorPID, "advisory")
	if err := handler.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	r := <-cancelled
	if r.err != nil || len(r.v) != 1 || r.v[0].Outcome != "applied" || r.v[0].State == nil || *r.v[0].State != "cancelled" {
		t.Fatalf("cancel_job racing the park = %v, %v; want applied cancelled", r.v, r.err)
	}
	var state string
	var parkedRows int
	if err := pool.QueryRow(ctx, `SELECT (SELECT state::text FROM awa.job($1)), (SELECT count(*) FROM awa.external_waits)`,
		cs[0].ID).Scan(&state, &parkedRows); err != nil || state != "cancelled" || parkedRows != 0 {
		t.Fatalf("after the cancel: job %s, %d parked rows, %v; want cancelled and none", state, parkedRows, err)
	}
	var outcome string
	if err := pool.QueryRow(ctx, `SELECT outcome::text FROM awa.resume_external($1::uuid)`, token).Scan(&outcome); err != nil || outcome != "stale" {
		t.Fatalf("resume_external after the cancel: %s, %v; want stale", outcome, err)
	}
}
