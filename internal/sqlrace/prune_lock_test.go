package sqlrace

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// exclusiveLocksHeld counts the relation locks stronger than ROW EXCLUSIVE
// that the transaction of conn's backend holds.
func exclusiveLocksHeld(t *testing.T, ctx context.Context, q interface {
	QueryRow(context.Context, string, ...any) pgx.Row
}) int {
	t.Helper()
	var n int
	if err := q.QueryRow(ctx, `SELECT count(*) FROM pg_locks WHERE pid = pg_backend_pid() AND locktype = 'relation'
		AND mode IN ('ShareUpdateExclusiveLock', 'ShareLock', 'ShareRowExclusiveLock', 'ExclusiveLock', 'AccessExclusiveLock')`).
		Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// sealFinishedJob runs one job of queue "q" to completion in the current
// queue slot, then rotates the queue ring (at the given time; nil: now), so
// the sealed slot holds only finished rows: prunable once its locks are free.
func sealFinishedJob(t *testing.T, ctx context.Context, conn *pgx.Conn, at *time.Time) {
	t.Helper()
	if _, err := insertOne(ctx, conn, "q", 2); err != nil {
		t.Fatal(err)
	}
	got, err := claim(ctx, conn, "q", 1, nil)
	if err != nil || len(got) != 1 {
		t.Fatalf("claim: %v, %v", got, err)
	}
	if _, err := complete(ctx, conn, got); err != nil {
		t.Fatal(err)
	}
	var o ringOutcome
	if err := conn.QueryRow(ctx, `SELECT o.ring, o.action, o.outcome, o.slot, o.generation, o.detail
		FROM awa.rotate_ring('queue', $1) AS o`, at).
		Scan(&o.Ring, &o.Action, &o.Outcome, &o.Slot, &o.Generation, &o.Detail); err != nil || o.Outcome != "rotated" {
		t.Fatalf("rotate_ring(queue): %v, %v", o, err)
	}
}

// sealFinishedJobsAt seals a finished job in queue slots 0, 1, ... with
// rotations stamped at now + each offset, so the ledger shows the cadence the
// test wants.
func sealFinishedJobsAt(t *testing.T, ctx context.Context, conn *pgx.Conn, offsets ...time.Duration) {
	t.Helper()
	for _, off := range offsets {
		at := time.Now().Add(off)
		sealFinishedJob(t, ctx, conn, &at)
	}
}

// sealStalledRing seals a finished job in queue slots 0 and 1 with rotations
// 10 s and 9 s ago: the ring's cadence is 1 s and it last rotated 9 s ago, so
// it is stalled (a prune of slot 0 may wait in the lock queue).
func sealStalledRing(t *testing.T, ctx context.Context, conn *pgx.Conn) {
	t.Helper()
	sealFinishedJobsAt(t, ctx, conn, -10*time.Second, -9*time.Second)
}

// readerHolding opens a transaction on its own connection that holds a read
// lock on awa.<table> (a long reader of a slot) until the test ends it.
func readerHolding(t *testing.T, ctx context.Context, pool *pgxpool.Pool, table string) pgx.Tx {
	t.Helper()
	return holdingTx(t, ctx, pool, fmt.Sprintf("LOCK TABLE awa.%s IN ACCESS SHARE MODE", pgx.Identifier{table}.Sanitize()))
}

// TestPruneLeavesNoLockAndTheCallersLockTimeout: a prune of a stalled ring
// (its last rotation 9 s ago, 1 s after the one before) waits for the slot's
// locks under a lock_timeout it sets in a subtransaction. Run
// inside a caller's transaction that set its own lock_timeout (7s), prune
// must leave that setting as it was, both when the attempt times out
// (skipped_blocked: the subtransaction's exclusive locks are all released, so
// the caller holds none) and when the lock it waited for is granted (pruned).
// After the caller commits, the session's own lock_timeout is untouched.
func TestPruneLeavesNoLockAndTheCallersLockTimeout(t *testing.T) {
	ctx, pool := newDB(t, 30*time.Second)
	conn := connect(t, ctx, pool)
	sealStalledRing(t, ctx, conn)
	reader := readerHolding(t, ctx, pool, "done_entries_0")
	if _, err := conn.Exec(ctx, "SET lock_timeout = '3s'"); err != nil {
		t.Fatal(err)
	}
	lockTimeout := func(q interface {
		QueryRow(context.Context, string, ...any) pgx.Row
	}) string {
		var v string
		if err := q.QueryRow(ctx, `SELECT current_setting('lock_timeout')`).Scan(&v); err != nil {
			t.Fatal(err)
		}
		return v
	}

	// Blocked: the NOWAIT attempts and the waiting one all fail.
	tx, err := conn.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(ctx, "SET LOCAL lock_timeout = '7s'"); err != nil {
		t.Fatal(err)
	}
	if o, err := pruneOp(ctx, tx, "queue", 300, 0, 1000); err != nil || o.Outcome != "skipped_blocked" {
		t.Fatalf("prune_ring(queue) while a reader holds done_entries_0: %v, %v; want skipped_blocked", o, err)
	}
	if v := lockTimeout(tx); v != "7s" {
		t.Fatalf("lock_timeout in the caller's transaction after skipped_blocked: %s, want 7s", v)
	}
	if n := exclusiveLocksHeld(t, ctx, tx); n != 0 {
		t.Fatalf("the caller's transaction holds %d exclusive relation locks after skipped_blocked, want none", n)
	}
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}

	// Granted while the waiting attempt waits: the reader ends then.
	tx, err = conn.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = tx.Rollback(context.Background()) }()
	if _, err := tx.Exec(ctx, "SET LOCAL lock_timeout = '7s'"); err != nil {
		t.Fatal(err)
	}
	pruned := pruneInBackground(ctx, tx, "queue", 2000, 0, 1000)
	waitForLockWait(t, ctx, pool, conn.PgConn().PID())
	if err := reader.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	requirePrunedSlot0(t, <-pruned, "prune_ring(queue) granted its locks in its waiting attempt")
	if v := lockTimeout(tx); v != "7s" {
		t.Fatalf("lock_timeout in the caller's transaction after a prune granted while it waited: %s, want 7s", v)
	}
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	if v := lockTimeout(conn); v != "3s" {
		t.Fatalf("the session's lock_timeout after the caller's transactions: %s, want 3s", v)
	}
}

// TestPruneOfAStalledRingWaitsForItsLocksFromTheStart: a ring whose last
// rotation is older than twice the shortest interval its ledger shows is
// stalled (rotation waits for a prune), and its prune waits in the lock queue
// after its first 1 ms, not only in the last fifth of its budget. Here the
// queue ring last rotated 9 s ago, 1 s after the rotation before; a reader
// holds the sealed slot. Prune, with a 10 s budget, must be waiting for the
// lock well before 8 s (a prune of a ring that is not stalled retries with
// NOWAIT until then), and prunes the slot as soon as the reader ends.
func TestPruneOfAStalledRingWaitsForItsLocksFromTheStart(t *testing.T) {
	ctx, pool := newDB(t, 30*time.Second)
	conn := connect(t, ctx, pool)
	sealStalledRing(t, ctx, conn)
	reader := readerHolding(t, ctx, pool, "done_entries_0")
	pruner := connect(t, ctx, pool)
	start := time.Now()
	pruned := pruneInBackground(ctx, pruner, "queue", 10000, 0, 1000)
	waitForLockWait(t, ctx, pool, pruner.PgConn().PID())
	if waited := time.Since(start); waited > 5*time.Second {
		t.Fatalf("prune of the stalled ring first waited in the lock queue after %v; want at once (well before 8 s)", waited)
	}
	if err := reader.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	requirePrunedSlot0(t, <-pruned, "prune_ring(queue) after the reader ended")
}

// TestCursorRingPrunesWhileTheQueueRingsPruneRetries: the queue ring's proof
// reads the whole cursor ring, and its share locks used to last as long as its
// prune retried for the slot's locks, so a cursor-ring prune that came in the
// meantime gave up (skipped_blocked). The proof now runs in a subtransaction
// rolled back at once. Here a reader holds queue slot 0, so a queue prune (a
// ring on its cadence: not stalled) retries with NOWAIT for most of its 4 s
// budget; a cursor-ring prune started 300 ms into it must prune its sealed
// slot, and the queue prune must prune slot 0 once the reader ends.
func TestCursorRingPrunesWhileTheQueueRingsPruneRetries(t *testing.T) {
	ctx, pool := newDB(t, 30*time.Second)
	conn := connect(t, ctx, pool)
	// Rotations stamped 60 s and 120 s ahead: the ledger shows a ring that
	// rotated on its cadence, so the prune is not the stalled kind.
	sealFinishedJobsAt(t, ctx, conn, 60*time.Second, 120*time.Second)
	if o, err := ringOp(ctx, conn, "rotate", "cursor"); err != nil || o.Outcome != "rotated" {
		t.Fatalf("rotate_ring(cursor): %v, %v", o, err)
	}
	reader := readerHolding(t, ctx, pool, "done_entries_0")
	queuePruner := connect(t, ctx, pool)
	queuePruned := pruneInBackground(ctx, queuePruner, "queue", 4000, 0, 1000)
	time.Sleep(300 * time.Millisecond)
	if o, err := pruneOp(ctx, conn, "cursor", 1000, 0, 1000); err != nil || o.Outcome != "pruned" {
		t.Fatalf("prune_ring(cursor) while the queue ring's prune retries: %v, %v; want pruned", o, err)
	}
	if err := reader.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	requirePrunedSlot0(t, <-queuePruned, "prune_ring(queue) after the reader ended")
}

// TestProducersNeverWaitBehindAPruneOfASealedSlot: a producer reads only the
// current queue slot and, for a lane claimed since the cursor ring turned, the
// current cursor slot, so a prune's exclusive locks on sealed slots (here held
// by another session: queue slot 5 and cursor slot 1, neither current) never
// delay an insert. Ten inserts under a 500 ms lock_timeout must all succeed;
// before, the notify rule read both rings through their parents and waited.
func TestProducersNeverWaitBehindAPruneOfASealedSlot(t *testing.T) {
	ctx, pool := newDB(t, 30*time.Second)
	producer := connect(t, ctx, pool)
	for range 3 {
		if _, err := insertOne(ctx, producer, "q", 2); err != nil {
			t.Fatal(err)
		}
	}
	if got, err := claim(ctx, pool, "q", 1, nil); err != nil || len(got) != 1 {
		t.Fatalf("claim (the lane's mark in the current cursor slot): %s, %v", describeClaims(got), err)
	}
	holdingTx(t, ctx, pool, "LOCK TABLE awa.ready_entries_5, awa.cursor_marks_1 IN ACCESS EXCLUSIVE MODE")
	if _, err := producer.Exec(ctx, "SET lock_timeout = '500ms'"); err != nil {
		t.Fatal(err)
	}
	for i := range 10 {
		if _, err := insertOne(ctx, producer, "q", 2); err != nil {
			t.Fatalf("insert %d while sealed queue slot 5 and cursor slot 1 are held exclusively: %v", i+1, err)
		}
	}
}
