package sqlrace

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// Deterministic reproductions of lane-order and lane-lock behaviour that the
// concurrent tests can only hit by chance.

// TestClaimReturnsPriorityOrderAcrossReadySlots: awa.claim_ready_runtime
// promises "highest priority (1) first". A claim that draws from two ready
// slots must still return the priority-1 job before the priority-2 job.
func TestClaimReturnsPriorityOrderAcrossReadySlots(t *testing.T) {
	ctx, pool := newDB(t, 30*time.Second)
	conn := connect(t, ctx, pool)

	low, err := insertOne(ctx, conn, "q", 2) // ready slot 0
	if err != nil {
		t.Fatal(err)
	}
	if o, err := ringOp(ctx, conn, "rotate", "queue"); err != nil || o.Outcome != "rotated" {
		t.Fatalf("rotate_ring(queue): %v, %v", o, err)
	}
	high, err := insertOne(ctx, conn, "q", 1) // ready slot 1
	if err != nil {
		t.Fatal(err)
	}
	got, err := claim(ctx, conn, "q", 2, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].ID != high || got[1].ID != low {
		t.Fatalf("claim_ready_runtime('q', 2) returned %s; want job %d (priority 1) then job %d (priority 2)",
			describeClaims(got), high, low)
	}
}

// TestClaimReturnsLaneOrderAcrossRingWrap: within one lane claims come out in
// lane (FIFO) order, also when the lane's ready rows sit in the last queue
// slot and, after the ring wrapped, in slot 0.
func TestClaimReturnsLaneOrderAcrossRingWrap(t *testing.T) {
	ctx, pool := newDB(t, 30*time.Second)
	conn := connect(t, ctx, pool)

	var slots int
	if err := conn.QueryRow(ctx, `SELECT slot_count FROM awa.ring_config WHERE ring = 'queue'`).Scan(&slots); err != nil {
		t.Fatal(err)
	}
	// Walk the cursor to the last slot: traffic in another queue, rotate, prune.
	for i := 0; i < slots-1; i++ {
		if _, err := insertOne(ctx, conn, "filler", 2); err != nil {
			t.Fatal(err)
		}
		got, err := claim(ctx, conn, "filler", 10, nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := complete(ctx, conn, got); err != nil {
			t.Fatal(err)
		}
		if o, err := ringOp(ctx, conn, "rotate", "queue"); err != nil || o.Outcome != "rotated" {
			t.Fatalf("rotate_ring(queue) #%d: %v, %v", i+1, o, err)
		}
		if o, err := ringOp(ctx, conn, "prune", "queue"); err != nil || o.Outcome != "pruned" {
			t.Fatalf("prune_ring(queue) #%d: %v, %v", i+1, o, err)
		}
	}
	first, err := insertOne(ctx, conn, "q", 2) // last slot
	if err != nil {
		t.Fatal(err)
	}
	if o, err := ringOp(ctx, conn, "rotate", "queue"); err != nil || o.Outcome != "rotated" || *o.Slot != 0 {
		t.Fatalf("rotate_ring(queue) to wrap to slot 0: %v, %v", o, err)
	}
	second, err := insertOne(ctx, conn, "q", 2) // slot 0
	if err != nil {
		t.Fatal(err)
	}
	got, err := claim(ctx, conn, "q", 2, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].ID != first || got[1].ID != second {
		t.Fatalf("claim_ready_runtime('q', 2) returned %s; want lane order: job %d (inserted first, ready slot %d) then job %d (ready slot 0)",
			describeClaims(got), first, slots-1, second)
	}
}

// TestProducerTransactionsInOppositeLaneOrderDeadlockCleanly: two producer
// transactions, each enqueuing one job into each of two priorities of a queue
// with ONE enqueue shard (lanes already exist) with separate awa.insert_job
// calls, in opposite priority order.
// Lane locks are held until commit (that is what keeps a later lane position
// from committing before an earlier one). With every shard of both lanes held,
// two transactions that insert into them in opposite orders, in separate
// calls, deadlock: the documented contract (docs/storage.md, "Known limits")
// is that PostgreSQL breaks the cycle with 40P01, exactly one transaction
// fails, the other commits, and the failed one's jobs never existed.
// (With free shards the same pattern commits both: see
// TestShardedProducersInOppositeOrderBothCommit.)
func TestProducerTransactionsInOppositeLaneOrderDeadlockCleanly(t *testing.T) {
	ctx, pool := newDB(t, 30*time.Second)
	configureShards(t, ctx, pool, "q", 1)
	for _, prio := range []int{1, 2} { // create both lanes up front
		if _, err := insertOne(ctx, pool, "q", prio); err != nil {
			t.Fatal(err)
		}
	}
	c1, c2 := connect(t, ctx, pool), connect(t, ctx, pool)
	tx1 := mustBegin(t, ctx, c1)
	tx2 := mustBegin(t, ctx, c2)
	a1, err := insertOne(ctx, tx1, "q", 1)
	if err != nil {
		t.Fatal(err)
	}
	a2, err := insertOne(ctx, tx2, "q", 2)
	if err != nil {
		t.Fatal(err)
	}
	type res struct {
		id  int64
		err error
	}
	r1 := make(chan res, 1)
	go func() { id, err := insertOne(ctx, tx1, "q", 2); r1 <- res{id, err} }()
	waitForLockWait(t, ctx, pool, c1.PgConn().PID())
	b2, err2 := insertOne(ctx, tx2, "q", 1)
	got1 := <-r1
	b1, err1 := got1.id, got1.err

	var committed, lost []int64
	switch {
	case err1 == nil && err2 != nil:
		if !isDeadlock(err2) {
			t.Fatalf("tx2 failed with %v, want 40P01", describeErr(err2))
		}
		if err := tx1.Commit(ctx); err != nil {
			t.Fatalf("the surviving tx1 does not commit: %v", err)
		}
		_ = tx2.Rollback(ctx)
		committed, lost = []int64{a1, b1}, []int64{a2}
	case err2 == nil && err1 != nil:
		if !isDeadlock(err1) {
			t.Fatalf("tx1 failed with %v, want 40P01", describeErr(err1))
		}
		if err := tx2.Commit(ctx); err != nil {
			t.Fatalf("the surviving tx2 does not commit: %v", err)
		}
		_ = tx1.Rollback(ctx)
		committed, lost = []int64{a2, b2}, []int64{a1}
	default:
		t.Fatalf("want exactly one transaction to fail with 40P01: tx1 %v; tx2 %v", describeErr(err1), describeErr(err2))
	}
	for _, id := range committed {
		var n int
		if err := pool.QueryRow(ctx, `SELECT count(*) FROM awa.jobs WHERE id = $1 AND state = 'available'`, id).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n != 1 {
			t.Fatalf("committed job %d is not available (%d rows)", id, n)
		}
	}
	for _, id := range lost {
		var n int
		if err := pool.QueryRow(ctx, `SELECT count(*) FROM awa.jobs WHERE id = $1`, id).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n != 0 {
			t.Fatalf("job %d of the failed transaction exists (%d rows)", id, n)
		}
	}
}

// TestSingleInsertTransactionsDoNotDeadlockOnLaneCreation: two transactions
// that each make ONE awa.insert_jobs call (the documented safe way: lanes are
// locked in (queue, priority) order inside the call) while new lanes are being
// created. T1 inserts priorities {1 (new lane), 2 (existing)}, T2 inserts
// {2 (existing), 3 (new lane)}. A third session briefly holds the lane lock of
// the lane T1 is creating, so T1 is caught holding the queue's lane-creation
// lock while T2 holds lane 2 and needs the creation lock. Both must commit.
// Queue b has one enqueue shard, so the held lane lock cannot be avoided.
func TestSingleInsertTransactionsDoNotDeadlockOnLaneCreation(t *testing.T) {
	ctx, pool := newDB(t, 30*time.Second)
	configureShards(t, ctx, pool, "b", 1)
	if _, err := insertOne(ctx, pool, "b", 1); err != nil { // queue b and its lanes exist
		t.Fatal(err)
	}
	var laneB1 int64
	if err := pool.QueryRow(ctx, `SELECT lane_id FROM awa.queue_lanes WHERE queue = 'b' AND priority = 1`).Scan(&laneB1); err != nil {
		t.Fatal(err)
	}
	hold := connect(t, ctx, pool)
	// Hold lane (b, 1)'s producer lock (awa._append_ready takes
	// pg_advisory_xact_lock(awa._lock_key('lane_producer'), lane_id)), so T1 stops there after
	// creating queue a's lanes, still holding a's creation lock.
	if _, err := hold.Exec(ctx, `SELECT pg_advisory_lock(awa._lock_key('lane_producer'), $1::int)`, laneB1); err != nil {
		t.Fatal(err)
	}

	c1, c2 := connect(t, ctx, pool), connect(t, ctx, pool)
	run := func(c *pgx.Conn, queues []string, prios []int32) <-chan error {
		done := make(chan error, 1)
		go func() {
			tx, err := c.Begin(ctx)
			if err == nil {
				_, err = tx.Exec(ctx, `SELECT * FROM awa.insert_jobs(
					array_fill('k'::text, ARRAY[cardinality($1::text[])]), NULL,
					ARRAY(SELECT jsonb_build_object('queue', q, 'priority', p)
					      FROM unnest($1::text[], $2::int[]) WITH ORDINALITY AS u (q, p, o) ORDER BY o))`,
					queues, prios)
				if err == nil {
					err = tx.Commit(ctx)
				} else {
					tx.Rollback(ctx)
				}
			}
			done <- err
		}()
		return done
	}
	done1 := run(c1, []string{"a", "b"}, []int32{1, 1})
	waitForLockWait(t, ctx, pool, c1.PgConn().PID()) // T1 created queue a, waits for lane (b, 1)
	done2 := run(c2, []string{"b", "a"}, []int32{1, 2})
	waitForLockWait(t, ctx, pool, c2.PgConn().PID()) // T2 waits for queue a's creation lock, holding no lane lock
	if _, err := hold.Exec(ctx, `SELECT pg_advisory_unlock(awa._lock_key('lane_producer'), $1::int)`, laneB1); err != nil {
		t.Fatal(err)
	}
	e1, e2 := <-done1, <-done2
	if e1 != nil || e2 != nil {
		t.Fatalf("single-call producer transactions during queue creation: T1 (a new, b) %v; T2 (b, a new) %v; want both to commit",
			describeErr(e1), describeErr(e2))
	}
	var n int
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM awa.jobs WHERE state = 'available'`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 5 {
		t.Fatalf("%d available jobs, want 5 (1 + 2 + 2)", n)
	}
}

// waitForLockWait waits until backend pid is blocked on a lock.
func waitForLockWait(t *testing.T, ctx context.Context, pool interface {
	QueryRow(context.Context, string, ...any) pgx.Row
}, pid uint32) {
	t.Helper()
	waitForBackend(t, ctx, pool, pid, `SELECT EXISTS (SELECT 1 FROM pg_locks WHERE pid = $1 AND NOT granted)`,
		5*time.Millisecond, "blocked on a lock")
}

// waitForPruneRetry waits until backend pid, in awa.prune_ring, has failed an
// attempt at its slot's locks and sleeps before the next one: prune never
// queues for a lock (it retries with NOWAIT), so it never shows in pg_locks
// as a waiter.
func waitForPruneRetry(t *testing.T, ctx context.Context, pool interface {
	QueryRow(context.Context, string, ...any) pgx.Row
}, pid uint32) {
	t.Helper()
	waitForBackend(t, ctx, pool, pid, `SELECT EXISTS (SELECT 1 FROM pg_stat_activity
			WHERE pid = $1 AND wait_event = 'PgSleep' AND query LIKE '%prune_ring%')`,
		2*time.Millisecond, "retried prune_ring's locks")
}

// waitForBackend polls query (a boolean of $1, the backend pid) every poll
// until it is true; after 10 s the test fails: "backend <pid> never <what>".
func waitForBackend(t *testing.T, ctx context.Context, pool interface {
	QueryRow(context.Context, string, ...any) pgx.Row
}, pid uint32, query string, poll time.Duration, what string) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); ; {
		var ok bool
		if err := pool.QueryRow(ctx, query, int32(pid)).Scan(&ok); err != nil {
			t.Fatal(err)
		}
		if ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("backend %d never %s", pid, what)
		}
		time.Sleep(poll)
	}
}

func describeErr(err error) string {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		return fmt.Sprintf("failed: %s (SQLSTATE %s)", pgErr.Message, pgErr.Code)
	}
	if err != nil {
		return "failed: " + err.Error()
	}
	return "committed"
}

func describeClaims(cs []claimed) string {
	s := "["
	for i, c := range cs {
		if i > 0 {
			s += ", "
		}
		s += fmt.Sprintf("job %d priority %d", c.ID, c.Priority)
	}
	return s + "]"
}

func isDeadlock(err error) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && pgErr.Code == "40P01"
}
