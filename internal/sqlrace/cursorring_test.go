package sqlrace

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/awa-queue/awa/internal/pgtest"
)

// The cursor ring (awa.cursor_marks, 2 slots) holds the claim marks. Its
// prune raises floors under the sealed slot's exclusive lock, and queue-ring
// prune takes the cursor ring's share lock before its own exclusive locks.

// backendPID returns the connection's backend pid.
func backendPID(t *testing.T, ctx context.Context, conn *pgx.Conn) uint32 {
	t.Helper()
	var pid uint32
	if err := conn.QueryRow(ctx, `SELECT pg_backend_pid()`).Scan(&pid); err != nil {
		t.Fatal(err)
	}
	return pid
}

// timedRingOp runs prune_ring(ring, budget) on conn in the background and
// reports its outcome, error and duration.
type timedOutcome struct {
	o   ringOutcome
	err error
	d   time.Duration
}

func pruneInBackground(ctx context.Context, conn *pgx.Conn, ring string, budgetMs int) <-chan timedOutcome {
	done := make(chan timedOutcome, 1)
	go func() {
		start := time.Now()
		var o ringOutcome
		err := conn.QueryRow(ctx, `SELECT o.ring, o.action, o.outcome, o.slot, o.generation, o.detail
			FROM awa.prune_ring($1, $2) AS o`, ring, budgetMs).
			Scan(&o.Ring, &o.Action, &o.Outcome, &o.Slot, &o.Generation, &o.Detail)
		done <- timedOutcome{o, err, time.Since(start)}
	}()
	return done
}

// TestCursorPruneRaisesTheFloorToAMarkCommittedWhileItWaited: a claim
// appends its mark to cursor slot 0 and stays open; the cursor ring rotates
// (slot 0 sealed) and its prune waits for the claim's share lock on the
// marks. When the claim commits, prune takes the lock and raises the lane's
// floor in a statement that starts after it, so it sees that mark: the floor
// is the claim's position, not the older mark's, and after the truncate the
// claimed jobs are neither available nor claimed again.
func TestCursorPruneRaisesTheFloorToAMarkCommittedWhileItWaited(t *testing.T) {
	const queue = "q"
	ctx := testCtx(t, 60*time.Second)
	pool := pgtest.NewDB(t)
	configureShards(t, ctx, pool, queue, 1)
	conn := connect(t, ctx, pool)
	ids, err := insertBatch(ctx, conn, queue, 2, 4)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := claim(ctx, conn, queue, 1, nil); err != nil || len(got) != 1 {
		t.Fatalf("first claim: %v, %v", got, err)
	}

	claimer := connect(t, ctx, pool)
	tx, err := claimer.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	held, err := claim(ctx, tx, queue, 2, nil)
	if err != nil || len(held) != 2 || held[0].ID != ids[1] || held[1].ID != ids[2] {
		t.Fatalf("open claim: %v, %v; want jobs %v", held, err, ids[1:3])
	}
	if o, err := ringOp(ctx, conn, "rotate", "cursor"); err != nil || o.Outcome != "rotated" || *o.Slot != 1 {
		t.Fatalf("rotate_ring(cursor): %v, %v; want rotated to slot 1", o, err)
	}

	pruner := connect(t, ctx, pool)
	pid := backendPID(t, ctx, pruner)
	done := pruneInBackground(ctx, pruner, "cursor", 10000)
	waitForLockWait(t, ctx, pool, pid)
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	r := <-done
	if r.err != nil || r.o.Outcome != "pruned" || *r.o.Slot != 0 {
		t.Fatalf("prune_ring(cursor) after the claim committed: %v, %v; want pruned slot 0", r.o, r.err)
	}

	var floor, cursor int64
	var marks int
	if err := conn.QueryRow(ctx, `SELECT c.floor_seq, c.claim_seq, (SELECT count(*)::int FROM awa.cursor_marks)
		FROM awa.claim_cursors c JOIN awa.queue_lanes l USING (lane_id) WHERE l.queue = $1 AND l.priority = 2`, queue).
		Scan(&floor, &cursor, &marks); err != nil {
		t.Fatal(err)
	}
	var third int64
	if err := conn.QueryRow(ctx, `SELECT lane_seq FROM awa.ready_entries WHERE job_id = $1`, ids[2]).Scan(&third); err != nil {
		t.Fatal(err)
	}
	if floor != third || cursor != third || marks != 0 {
		t.Fatalf("after the prune: floor %d, cursor %d, %d marks left; want floor %d (the third job's position: the mark committed while prune waited), cursor the same, none",
			floor, cursor, marks, third)
	}
	got, err := claim(ctx, conn, queue, 10, nil)
	if err != nil || len(got) != 1 || got[0].ID != ids[3] || got[0].RunLease != 1 {
		t.Fatalf("claim after the prune: %v, %v; want only job %d, run_lease 1", got, err, ids[3])
	}
	if qc := queueCounts(t, ctx, conn, queue); qc.Available != 0 || qc.Running != 4 {
		t.Fatalf("awa.queue_counts = %+v, want 0 available and 4 running", qc)
	}
}

// TestClaimQueuePruneAndCursorPruneInterleaveWithoutACycle: a claim reads
// the cursor (share locks on the marks) and then the ready rows; queue-ring
// prune holds or waits for a ready slot's exclusive lock and reads the cursor
// under it; cursor-ring prune asks for a marks slot's exclusive lock. Driven
// by pg_locks: a reader holds queue slot 0, queue prune queues for it, the
// claim reads the cursor and queues behind queue prune, and cursor prune
// queues behind the claim. When the reader ends, queue prune must go on at
// once (it took its share lock on the marks before its exclusive locks, so
// it does not queue behind cursor prune), then the claim, then cursor prune:
// no 40P01, no lock cycle for the deadlock detector to break, and both prunes
// end within their budgets. Taking the marks' lock only when the cursor is
// read under the exclusive locks closes the cycle claim -> queue prune ->
// cursor prune -> claim, which stalls everything until the deadlock detector
// or a prune's budget ends it.
func TestClaimQueuePruneAndCursorPruneInterleaveWithoutACycle(t *testing.T) {
	const (
		queue         = "q"
		queueBudgetMs = 3000
		cursorBudget  = 5000
	)
	ctx := testCtx(t, 60*time.Second)
	pool := pgtest.NewDB(t)
	configureShards(t, ctx, pool, queue, 1)
	conn := connect(t, ctx, pool)
	if _, err := insertOne(ctx, conn, queue, 2); err != nil {
		t.Fatal(err)
	}
	got, err := claim(ctx, conn, queue, 1, nil)
	if err != nil || len(got) != 1 {
		t.Fatalf("claim: %v, %v", got, err)
	}
	if _, err := complete(ctx, conn, got); err != nil {
		t.Fatal(err)
	}
	for _, ring := range []string{"queue", "cursor"} {
		if o, err := ringOp(ctx, conn, "rotate", ring); err != nil || o.Outcome != "rotated" {
			t.Fatalf("rotate_ring(%s): %v, %v", ring, o, err)
		}
	}
	job, err := insertOne(ctx, conn, queue, 2)
	if err != nil {
		t.Fatal(err)
	}

	reader := connect(t, ctx, pool)
	rtx, err := reader.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := rtx.Exec(ctx, `SELECT count(*) FROM awa.ready_entries_0`); err != nil {
		t.Fatal(err)
	}

	qp, cl, cp := connect(t, ctx, pool), connect(t, ctx, pool), connect(t, ctx, pool)
	qpPID, clPID, cpPID := backendPID(t, ctx, qp), backendPID(t, ctx, cl), backendPID(t, ctx, cp)
	qpDone := pruneInBackground(ctx, qp, "queue", queueBudgetMs)
	waitForLockWait(t, ctx, pool, qpPID)

	type claimResult struct {
		cs  []claimed
		err error
	}
	clDone := make(chan claimResult, 1)
	go func() {
		cs, err := claim(ctx, cl, queue, 10, nil)
		clDone <- claimResult{cs, err}
	}()
	waitForLockWait(t, ctx, pool, clPID)
	var clHoldsMarks bool
	if err := conn.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_locks WHERE pid = $1 AND granted
		AND relation = 'awa.cursor_marks_0'::regclass)`, int32(clPID)).Scan(&clHoldsMarks); err != nil {
		t.Fatal(err)
	}
	if !clHoldsMarks {
		t.Fatalf("the claim waits without holding awa.cursor_marks_0: the interleaving is not the one under test")
	}

	cpDone := pruneInBackground(ctx, cp, "cursor", cursorBudget)
	waitForLockWait(t, ctx, pool, cpPID)

	released := time.Now()
	if err := rtx.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	q := <-qpDone
	qAfter := time.Since(released)
	c := <-clDone
	cAfter := time.Since(released)
	p := <-cpDone
	if q.err != nil || c.err != nil || p.err != nil {
		t.Fatalf("queue prune: %v; claim: %v; cursor prune: %v; want no error (no 40P01)", q.err, c.err, p.err)
	}
	if q.o.Outcome != "pruned" || *q.o.Slot != 0 {
		t.Errorf("queue prune: %v, want pruned slot 0", q.o)
	}
	if p.o.Outcome != "pruned" || *p.o.Slot != 0 {
		t.Errorf("cursor prune: %v, want pruned slot 0", p.o)
	}
	if len(c.cs) != 1 || c.cs[0].ID != job {
		t.Errorf("claim: %v, want job %d", c.cs, job)
	}
	// Once the reader is gone nothing waits for anything slow: a cycle would
	// hold queue prune (and the claim behind it) until deadlock_timeout (1 s)
	// or cursor prune's budget.
	if qAfter > 700*time.Millisecond || cAfter > 700*time.Millisecond {
		t.Errorf("after the reader ended, queue prune took %v more and the claim %v; want both well under deadlock_timeout",
			qAfter, cAfter)
	}
	if q.d > queueBudgetMs*time.Millisecond || p.d > cursorBudget*time.Millisecond {
		t.Errorf("queue prune took %v (budget %d ms), cursor prune %v (budget %d ms)", q.d, queueBudgetMs, p.d, cursorBudget)
	}
	var deadlocks int64
	if err := conn.QueryRow(ctx, `SELECT deadlocks FROM pg_stat_database WHERE datname = current_database()`).
		Scan(&deadlocks); err != nil {
		t.Fatal(err)
	}
	t.Logf("after the reader ended: queue prune %v, claim %v; cursor prune %v in all (%s); deadlocks %d",
		qAfter, cAfter, p.d, *p.o.Detail, deadlocks)
}
