package sqlrace

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
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

// TestCursorPruneRaisesTheFloorToAMarkCommittedWhileItWaited: a claim
// appends its mark to cursor slot 0 and stays open; the cursor ring rotates
// (slot 0 sealed) and its prune waits for the claim's share lock on the
// marks. When the claim commits, prune takes the lock and raises the lane's
// floor in a statement that starts after it, so it sees that mark: the floor
// is the claim's position, not the older mark's, and after the truncate the
// claimed jobs are neither available nor claimed again.
func TestCursorPruneRaisesTheFloorToAMarkCommittedWhileItWaited(t *testing.T) {
	const queue = "q"
	ctx, pool := newDB(t, 60*time.Second)
	configureShards(t, ctx, pool, queue, 1)
	conn := connect(t, ctx, pool)
	ids := mustInsertBatch(t, ctx, conn, queue, 2, 4)
	if got, err := claim(ctx, conn, queue, 1, nil); err != nil || len(got) != 1 {
		t.Fatalf("first claim: %v, %v", got, err)
	}

	claimer := connect(t, ctx, pool)
	tx := mustBegin(t, ctx, claimer)
	held, err := claim(ctx, tx, queue, 2, nil)
	if err != nil || len(held) != 2 || held[0].ID != ids[1] || held[1].ID != ids[2] {
		t.Fatalf("open claim: %v, %v; want jobs %v", held, err, ids[1:3])
	}
	if o, err := ringOp(ctx, conn, "rotate", "cursor"); err != nil || o.Outcome != "rotated" || *o.Slot != 1 {
		t.Fatalf("rotate_ring(cursor): %v, %v; want rotated to slot 1", o, err)
	}

	pruner := connect(t, ctx, pool)
	pid := backendPID(t, ctx, pruner)
	done := pruneInBackground(ctx, pruner, "cursor", 10000, 0, 1000)
	waitForPruneRetry(t, ctx, pool, pid)
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

// TestClaimsDoNotWaitBehindAQueuePruneThatRetries: a reader holds queue
// slot 0, so queue-ring prune cannot have its locks. Prune does not queue for
// them before the last fifth of its budget (NOWAIT attempts 1 ms apart), so
// nothing queues behind it meanwhile: a claim
// (it reads the cursor and every ready slot) completes while the reader
// still holds the slot and prune still retries. (Before, queue prune's
// queued request held the claim, and a cursor prune queued behind the
// claim, until the reader ended.) When the reader ends, queue prune gets its
// locks within a few attempts and prunes; then cursor prune prunes the slot
// of the claim's earlier mark. No error anywhere (no 40P01: prune waits only
// in the last fifth of its budget, under a lock_timeout, and here it never
// gets there). Queue prune's proof reads the cursor, so a cursor prune
// attempted while it retries cannot have its slot before it ends.
func TestClaimsDoNotWaitBehindAQueuePruneThatRetries(t *testing.T) {
	const (
		queue         = "q"
		queueBudgetMs = 10000
		cursorBudget  = 5000
	)
	ctx, pool := newDB(t, 60*time.Second)
	configureShards(t, ctx, pool, queue, 1)
	conn := connect(t, ctx, pool)
	warmQueue(t, ctx, conn, queue)
	for _, ring := range []string{"queue", "cursor"} {
		if o, err := ringOp(ctx, conn, "rotate", ring); err != nil || o.Outcome != "rotated" {
			t.Fatalf("rotate_ring(%s): %v, %v", ring, o, err)
		}
	}
	job, err := insertOne(ctx, conn, queue, 2)
	if err != nil {
		t.Fatal(err)
	}

	rtx := holdingTx(t, ctx, pool, `SELECT count(*) FROM awa.ready_entries_0`)

	qp, cl, cp := connect(t, ctx, pool), connect(t, ctx, pool), connect(t, ctx, pool)
	qpPID := backendPID(t, ctx, qp)
	qpDone := pruneInBackground(ctx, qp, "queue", queueBudgetMs, 0, 1000)
	waitForPruneRetry(t, ctx, pool, qpPID)

	cs, err := claim(ctx, cl, queue, 10, nil)
	if err != nil || len(cs) != 1 || cs[0].ID != job {
		t.Fatalf("claim while queue prune retries: %s %s; want job %d", describeClaims(cs), describeErr(err), job)
	}
	select {
	case q := <-qpDone:
		t.Fatalf("queue prune ended while the reader held slot 0: %v, %v", q.o, q.err)
	default:
	}

	released := time.Now()
	if err := rtx.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	q := <-qpDone
	if q.err != nil || q.o.Outcome != "pruned" || *q.o.Slot != 0 {
		t.Fatalf("queue prune after the reader ended: %v, %v; want pruned slot 0", q.o, q.err)
	}
	// A correctness bound with a wide margin (prune retries every 1 ms).
	if after := time.Since(released); after > 2*time.Second {
		t.Fatalf("queue prune took %v after the reader ended; want it within a few attempts", after)
	}
	p := <-pruneInBackground(ctx, cp, "cursor", cursorBudget, 0, 1000)
	if p.err != nil || p.o.Outcome != "pruned" || *p.o.Slot != 0 {
		t.Fatalf("cursor prune after queue prune: %v, %v; want pruned slot 0", p.o, p.err)
	}
}
