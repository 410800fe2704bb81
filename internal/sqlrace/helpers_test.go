// Package sqlrace holds concurrency and storage-contract tests of the awa SQL
// functions: several real connections to a real PostgreSQL database (one fresh
// database per test, from internal/pgtest), no mocks. Every write goes through
// the public SQL functions, as a worker or the maintenance leader would issue it.
package sqlrace

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/awa-queue/awa/internal/pgtest"
)

// newDB returns a context that ends with the test or after d (pgtest.Context) and
// a fresh migrated database.
func newDB(t *testing.T, d time.Duration) (context.Context, *pgxpool.Pool) {
	t.Helper()
	return pgtest.Context(t, d), pgtest.NewDB(t)
}

// connect opens a dedicated connection to the pool's database (one backend
// per simulated process). It is closed when the test ends.
func connect(t *testing.T, ctx context.Context, pool *pgxpool.Pool) *pgx.Conn {
	t.Helper()
	conn, err := pgx.ConnectConfig(ctx, pool.Config().ConnConfig.Copy())
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	return conn
}

// drainRings rotates and prunes the queue, claim and cursor rings until a
// whole round is idle (rotate skipped_idle, prune already_empty), at most 100
// rounds. Nothing may be live: any prune outcome but pruned or already_empty
// fails the test (the message starts with when). It returns the slots each
// ring pruned and whether the rings ended idle.
func drainRings(t *testing.T, ctx context.Context, conn *pgx.Conn, when string) (map[string]map[int32]bool, bool) {
	t.Helper()
	pruned := map[string]map[int32]bool{"queue": {}, "claim": {}, "cursor": {}}
	idle := false
	for i := 0; i < 100 && !idle; i++ {
		idle = true
		for _, ring := range []string{"queue", "claim", "cursor"} {
			r, err := ringOp(ctx, conn, "rotate", ring)
			if err != nil {
				t.Fatal(err)
			}
			p, err := ringOp(ctx, conn, "prune", ring)
			if err != nil {
				t.Fatal(err)
			}
			switch p.Outcome {
			case "pruned":
				pruned[ring][*p.Slot] = true
			case "already_empty":
			default:
				t.Fatalf("%s %v", when, p)
			}
			idle = idle && r.Outcome == "skipped_idle" && p.Outcome == "already_empty"
		}
	}
	return pruned, idle
}

// openProducer begins a transaction on db (rolled back when the test ends
// unless committed) and inserts one job into queue at priority in it: a
// producer that has not committed yet. It returns the transaction and the id.
func openProducer(t *testing.T, ctx context.Context, db interface {
	Begin(context.Context) (pgx.Tx, error)
}, queue string, priority int) (pgx.Tx, int64) {
	t.Helper()
	tx := mustBegin(t, ctx, db)
	t.Cleanup(func() { _ = tx.Rollback(context.Background()) })
	id, err := insertOne(ctx, tx, queue, priority)
	if err != nil {
		t.Fatal(err)
	}
	return tx, id
}

// goSession starts one simulated process: run gets a connection of its own
// (opened here, closed when the test ends) and runs in a goroutine counted by
// wg.
func goSession(t *testing.T, ctx context.Context, pool *pgxpool.Pool, wg *sync.WaitGroup, run func(conn *pgx.Conn)) {
	t.Helper()
	conn := connect(t, ctx, pool)
	wg.Add(1)
	go func() {
		defer wg.Done()
		run(conn)
	}()
}

// mustBegin begins a transaction on db and fails the test on an error.
func mustBegin(t *testing.T, ctx context.Context, db interface {
	Begin(context.Context) (pgx.Tx, error)
}) pgx.Tx {
	t.Helper()
	tx, err := db.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return tx
}

// mustInsertBatch is insertBatch that fails the test on an error.
func mustInsertBatch(t *testing.T, ctx context.Context, q rowQuerier, queue string, priority, n int) []int64 {
	t.Helper()
	ids, err := insertBatch(ctx, q, queue, priority, n)
	if err != nil {
		t.Fatal(err)
	}
	return ids
}

// rotateQueueRing rotates the queue ring and fails the test unless it rotated.
func rotateQueueRing(t *testing.T, ctx context.Context, conn *pgx.Conn) {
	t.Helper()
	if o, err := ringOp(ctx, conn, "rotate", "queue"); err != nil || o.Outcome != "rotated" {
		t.Fatalf("rotate: %v, %v", o, err)
	}
}

// sealedAndCurrent inserts nSealed jobs of queue (priority 2) into the
// current queue slot, rotates the ring so that slot is sealed, and inserts
// nCurrent more into the new current slot. Returns both id lists.
func sealedAndCurrent(t *testing.T, ctx context.Context, conn *pgx.Conn, queue string, nSealed, nCurrent int) (sealed, current []int64) {
	t.Helper()
	sealed = mustInsertBatch(t, ctx, conn, queue, 2, nSealed)
	rotateQueueRing(t, ctx, conn)
	return sealed, mustInsertBatch(t, ctx, conn, queue, 2, nCurrent)
}

// insertBatch inserts n jobs of kind "k" into queue with the given priority via
// awa.insert_jobs and returns their ids in input order.
func insertBatch(ctx context.Context, q rowQuerier, queue string, priority, n int) ([]int64, error) {
	return collectIDs(q.Query(ctx, `
		SELECT j.id FROM awa.insert_jobs(
			array_fill('k'::text, ARRAY[$3::int]),
			NULL,
			array_fill(jsonb_build_object('queue', $1::text, 'priority', $2::int), ARRAY[$3::int])) AS j`,
		queue, priority, n))
}

// insertMixed inserts one job per element of priorities (job i gets
// priorities[i]) in one awa.insert_jobs call; ids come back in input order.
func insertMixed(ctx context.Context, q rowQuerier, queue string, priorities []int32) ([]int64, error) {
	return collectIDs(q.Query(ctx, `
		SELECT j.id FROM awa.insert_jobs(
			array_fill('k'::text, ARRAY[cardinality($2::int[])]),
			NULL,
			ARRAY(SELECT jsonb_build_object('queue', $1::text, 'priority', p)
			      FROM unnest($2::int[]) WITH ORDINALITY AS u (p, o) ORDER BY o)) AS j`,
		queue, priorities))
}

// insertOne inserts one job through awa.insert_job.
func insertOne(ctx context.Context, q interface {
	QueryRow(context.Context, string, ...any) pgx.Row
}, queue string, priority int) (int64, error) {
	var id int64
	err := q.QueryRow(ctx, `SELECT j.id FROM awa.insert_job('k', '{}', jsonb_build_object('queue', $1::text, 'priority', $2::int)) AS j`,
		queue, priority).Scan(&id)
	return id, err
}

func collectIDs(rows pgx.Rows, err error) ([]int64, error) {
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, pgx.RowTo[int64])
}

// claimed is the part of awa.claimed_job the tests need.
type claimed struct {
	ID        int64
	RunLease  int64
	ClaimSlot int32
	ReceiptID int64
	Priority  int16
	Attempt   int32
	Queue     string // set by callers that need it; claim leaves it empty
}

type rowQuerier interface {
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
}

// claim calls awa.claim_ready_runtime(queue, max, instance) and returns the
// claimed jobs in the order the function returned them.
func claim(ctx context.Context, q rowQuerier, queue string, max int, instance any) ([]claimed, error) {
	return collectClaims(q.Query(ctx, `
		SELECT c.id, c.run_lease, c.claim_slot, c.receipt_id, c.priority, c.attempt
		FROM awa.claim_ready_runtime($1, $2, $3::uuid) AS c`, queue, max, instance))
}

// collectClaims scans claim rows (id, run_lease, claim_slot, receipt_id,
// priority, attempt).
func collectClaims(rows pgx.Rows, err error) ([]claimed, error) {
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (claimed, error) {
		var c claimed
		err := r.Scan(&c.ID, &c.RunLease, &c.ClaimSlot, &c.ReceiptID, &c.Priority, &c.Attempt)
		return c, err
	})
}

// finalized is one awa.finalize_result row.
type finalized struct {
	JobID    int64
	RunLease int64
	Outcome  string
	State    *string
}

func (f finalized) String() string {
	s := "<null>"
	if f.State != nil {
		s = *f.State
	}
	return fmt.Sprintf("job %d lease %d %s state %s", f.JobID, f.RunLease, f.Outcome, s)
}

// complete calls awa.complete_jobs for the given claims (one call).
func complete(ctx context.Context, q rowQuerier, cs []claimed) ([]finalized, error) {
	ids, leases, slots, receipts := receiptArrays(cs)
	return collectFinalized(q.Query(ctx, `
		SELECT f.job_id, f.run_lease, f.outcome::text, f.state::text
		FROM awa.complete_jobs($1::bigint[], $2::bigint[], $3::int[], $4::bigint[]) AS f`,
		ids, leases, slots, receipts))
}

// insertRolledBack inserts one job of queue (priority 2) in a transaction of
// b and rolls it back.
func insertRolledBack(t *testing.T, ctx context.Context, b interface {
	Begin(context.Context) (pgx.Tx, error)
}, queue string) {
	t.Helper()
	tx := mustBegin(t, ctx, b)
	if _, err := insertOne(ctx, tx, queue, 2); err != nil {
		t.Fatal(err)
	}
	if err := tx.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
}

// produceHeld runs insert in a transaction of conn, keeps it open for hold
// (a producer holding its lane), then rolls it back (rollBack: no ids) or
// commits it. On an error the transaction is rolled back.
func produceHeld(ctx context.Context, conn *pgx.Conn, hold time.Duration, rollBack bool,
	insert func(pgx.Tx) ([]int64, error)) ([]int64, error) {
	tx, err := conn.Begin(ctx)
	if err != nil {
		return nil, err
	}
	ids, err := insert(tx)
	if err == nil {
		time.Sleep(hold)
		if rollBack {
			return nil, tx.Rollback(ctx)
		}
		err = tx.Commit(ctx)
	}
	if err != nil {
		_ = tx.Rollback(context.Background())
		return nil, err
	}
	return ids, nil
}

// completeApplied completes cs (one call) and returns how many were applied;
// a failed call or an outcome other than applied is an error.
func completeApplied(ctx context.Context, q rowQuerier, cs []claimed) (int, error) {
	res, err := complete(ctx, q, cs)
	if err != nil {
		return 0, fmt.Errorf("complete_jobs: %w", err)
	}
	for _, r := range res {
		if r.Outcome != "applied" {
			return 0, fmt.Errorf("complete_jobs gave %v", r)
		}
	}
	return len(res), nil
}

func receiptArrays(cs []claimed) (ids, leases []int64, slots []int32, receipts []int64) {
	for _, c := range cs {
		ids = append(ids, c.ID)
		leases = append(leases, c.RunLease)
		slots = append(slots, c.ClaimSlot)
		receipts = append(receipts, c.ReceiptID)
	}
	return
}

func collectFinalized(rows pgx.Rows, err error) ([]finalized, error) {
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (finalized, error) {
		var f finalized
		err := r.Scan(&f.JobID, &f.RunLease, &f.Outcome, &f.State)
		return f, err
	})
}

// ringOutcome is one awa.ring_outcome row.
type ringOutcome struct {
	Ring, Action, Outcome string
	Slot                  *int32
	Generation            *int64
	Detail                *string
}

func (o ringOutcome) String() string {
	slot, det := "null", ""
	if o.Slot != nil {
		slot = fmt.Sprint(*o.Slot)
	}
	if o.Detail != nil {
		det = *o.Detail
	}
	return fmt.Sprintf("%s %s %s slot %s (%s)", o.Ring, o.Action, o.Outcome, slot, det)
}

// ringOp runs awa.rotate_ring(ring) or awa.prune_ring(ring) as one autocommit
// statement and returns its single outcome row.
func ringOp(ctx context.Context, conn *pgx.Conn, action, ring string) (ringOutcome, error) {
	fn := map[string]string{"rotate": "awa.rotate_ring($1)", "prune": "awa.prune_ring($1)"}[action]
	if fn == "" {
		return ringOutcome{}, fmt.Errorf("unknown ring action %q", action)
	}
	var o ringOutcome
	err := conn.QueryRow(ctx, "SELECT o.ring, o.action, o.outcome, o.slot, o.generation, o.detail FROM "+fn+" AS o", ring).
		Scan(&o.Ring, &o.Action, &o.Outcome, &o.Slot, &o.Generation, &o.Detail)
	return o, err
}

// queueCount is one awa.queue_counts row.
type queueCount struct {
	Available, Running, Scheduled, Retryable, Completed, Cancelled, Failed, DLQ int64
}

func queueCounts(t *testing.T, ctx context.Context, q interface {
	QueryRow(context.Context, string, ...any) pgx.Row
}, queue string) queueCount {
	t.Helper()
	var c queueCount
	err := q.QueryRow(ctx, `
		SELECT available, running, scheduled, retryable, completed, cancelled, failed, dlq
		FROM awa.queue_counts($1)`, queue).
		Scan(&c.Available, &c.Running, &c.Scheduled, &c.Retryable, &c.Completed, &c.Cancelled, &c.Failed, &c.DLQ)
	if errors.Is(err, pgx.ErrNoRows) {
		return c
	}
	if err != nil {
		t.Fatalf("awa.queue_counts(%q): %v", queue, err)
	}
	return c
}

// jobStates returns, per state, how many awa.jobs rows of queue are in it.
func jobStates(t *testing.T, ctx context.Context, pool *pgxpool.Pool, queue string) map[string]int64 {
	t.Helper()
	rows, err := pool.Query(ctx, `SELECT state::text, count(*) FROM awa.jobs WHERE queue = $1 GROUP BY 1`, queue)
	if err != nil {
		t.Fatalf("awa.jobs: %v", err)
	}
	out := map[string]int64{}
	var s string
	var n int64
	_, err = pgx.ForEachRow(rows, []any{&s, &n}, func() error { out[s] = n; return nil })
	if err != nil {
		t.Fatalf("awa.jobs: %v", err)
	}
	return out
}

// errOnce collects the first error of many goroutines and cancels the rest.
type errOnce struct {
	mu     sync.Mutex
	err    error
	cancel context.CancelFunc
}

// withErrOnce returns a context derived from ctx, its cancel, and an errOnce
// whose first failure cancels it (stopping every goroutine that watches it).
func withErrOnce(ctx context.Context) (context.Context, context.CancelFunc, *errOnce) {
	runCtx, cancel := context.WithCancel(ctx)
	return runCtx, cancel, &errOnce{cancel: cancel}
}

func (e *errOnce) set(format string, args ...any) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.err == nil {
		e.err = fmt.Errorf(format, args...)
		e.cancel()
	}
}

func (e *errOnce) get() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.err
}

// sortedKeys returns the keys of m in ascending order (stable failure output).
func sortedKeys[V any](m map[int64]V) []int64 {
	out := make([]int64, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

// lostAndTwice returns, in the order of ids, those that times counts never
// and those it counts more than once.
func lostAndTwice(ids []int64, times map[int64]int) (lost, twice []int64) {
	for _, id := range ids {
		switch n := times[id]; {
		case n == 0:
			lost = append(lost, id)
		case n > 1:
			twice = append(twice, id)
		}
	}
	return lost, twice
}

// pickRecent picks one of the last window ids of order (false when empty).
func pickRecent(order []int64, rng *rand.Rand, window int) (int64, bool) {
	if len(order) == 0 {
		return 0, false
	}
	return order[len(order)-1-rng.IntN(min(window, len(order)))], true
}

// result is what a call run by inBackground returned.
type result[T any] struct {
	v   T
	err error
}

// inBackground runs f in a goroutine; its result arrives on the channel.
func inBackground[T any](f func() (T, error)) <-chan result[T] {
	done := make(chan result[T], 1)
	go func() {
		v, err := f()
		done <- result[T]{v, err}
	}()
	return done
}

// firstN formats at most n elements of xs.
func firstN[T any](xs []T, n int) string {
	if len(xs) <= n {
		return fmt.Sprint(xs)
	}
	return fmt.Sprintf("%v ... (%d in all)", xs[:n], len(xs))
}

// drained reports whether queue has nothing left to claim (awa.queue_pending
// is false). An empty claim alone does not say so: a claim skips a lane that
// another claimer holds instead of waiting for it.
func drained(ctx context.Context, q interface {
	QueryRow(context.Context, string, ...any) pgx.Row
}, queue string) (bool, error) {
	var pending bool
	err := q.QueryRow(ctx, `SELECT pending FROM awa.queue_pending($1)`, queue).Scan(&pending)
	return !pending, err
}

// finalizeAs calls awa.<action>_jobs once for the claims: retry and fail
// with an error, retry and snooze due now (so a run's retried jobs come back
// at the next promotion).
func finalizeAs(ctx context.Context, q rowQuerier, action string, cs []claimed) ([]finalized, error) {
	extra, ok := map[string]string{
		"complete": "", "cancel": "",
		"retry":  ", array_fill('boom'::text, ARRAY[cardinality($1)]), array_fill(now(), ARRAY[cardinality($1)])",
		"fail":   ", array_fill('boom'::text, ARRAY[cardinality($1)])",
		"snooze": ", array_fill(now(), ARRAY[cardinality($1)])",
	}[action]
	if !ok {
		return nil, fmt.Errorf("unknown action %q", action)
	}
	ids, leases, slots, receipts := receiptArrays(cs)
	return collectFinalized(q.Query(ctx, fmt.Sprintf(`
		SELECT f.job_id, f.run_lease, f.outcome::text, f.state::text
		FROM awa.%s_jobs($1::bigint[], $2::bigint[], $3::int[], $4::bigint[]%s) AS f`, action, extra),
		ids, leases, slots, receipts))
}

// goRingTurner starts a session that rotates and prunes the queue, claim and
// cursor rings as fast as they may (every slot archived and truncated as
// soon as it can be) until stopAt, counting the queue ring's prunes in
// *prunes under mu.
func goRingTurner(t *testing.T, ctx, runCtx context.Context, pool *pgxpool.Pool, wg *sync.WaitGroup, fail *errOnce,
	stopAt time.Time, mu *sync.Mutex, prunes *int) {
	goTurnRings(t, ctx, runCtx, pool, wg, fail, stopAt, []string{"queue", "claim", "cursor"}, func(ring string, o ringOutcome) {
		if ring == "queue" && o.Outcome == "pruned" {
			mu.Lock()
			*prunes++
			mu.Unlock()
		}
	})
}

// goTurnRings starts a session that rotates and prunes each of rings in turn,
// as fast as they may, until stopAt (or a failure, reported to fail),
// handing every prune's outcome to pruned.
func goTurnRings(t *testing.T, ctx, runCtx context.Context, pool *pgxpool.Pool, wg *sync.WaitGroup, fail *errOnce,
	stopAt time.Time, rings []string, pruned func(ring string, o ringOutcome)) {
	goSession(t, ctx, pool, wg, func(conn *pgx.Conn) {
		for time.Now().Before(stopAt) && runCtx.Err() == nil {
			for _, ring := range rings {
				if _, err := ringOp(runCtx, conn, "rotate", ring); err != nil {
					fail.set("rotate %s: %v", ring, err)
					return
				}
				o, err := ringOp(runCtx, conn, "prune", ring)
				if err != nil {
					fail.set("prune %s: %v", ring, err)
					return
				}
				pruned(ring, o)
			}
			time.Sleep(15 * time.Millisecond)
		}
	})
}
