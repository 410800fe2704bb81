package sqlrace

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
)

// TestClaimNeverWaitsBehindAPruneThatCannotGetItsLocks: every claim reads
// every ready_entries child, so a prune queued for ACCESS EXCLUSIVE on one of
// them would hold every claim behind it for as long as it waited. Prune
// therefore never queues: it retries with NOWAIT, 1 ms apart, within its
// budget.
//
// A long reader holds a read lock on awa.ready_entries_0 (sealed slot 0).
// Prune of slot 0 with a 10 s budget retries; a claim of a job in slot 1
// completes while prune still retries and the reader still holds the slot
// (before, it queued behind prune until the budget ran out). When the reader
// ends, prune gets its locks and prunes the slot.
func TestClaimNeverWaitsBehindAPruneThatCannotGetItsLocks(t *testing.T) {
	const budget = 10 * time.Second
	ctx, pool := newDB(t, 30*time.Second)
	conn := connect(t, ctx, pool)

	// Slot 0: one finished job; rotate; slot 1: the job the claim will take.
	sealFinishedJob(t, ctx, conn, nil)
	want, err := insertOne(ctx, conn, "q", 2)
	if err != nil {
		t.Fatal(err)
	}

	reader := readerHolding(t, ctx, pool, "ready_entries_0")

	pruner := connect(t, ctx, pool)
	pid := pruner.PgConn().PID()
	pruned := pruneInBackground(ctx, pruner, "queue", int(budget.Milliseconds()), 0, 1000)
	waitForPruneRetry(t, ctx, pool, pid)

	claimCtx, cancel := context.WithTimeout(ctx, budget/2)
	c, err := claim(claimCtx, connect(t, ctx, pool), "q", 1, nil)
	cancel()
	if err != nil || len(c) != 1 || c[0].ID != want {
		t.Fatalf("claim while prune retries: %s %s; want job %d at once (a claim queued behind prune would wait out its budget)",
			describeClaims(c), describeErr(err), want)
	}
	select {
	case p := <-pruned:
		t.Fatalf("prune ended while the reader held slot 0: %v, %v", p.o, p.err)
	default:
	}

	if err := reader.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	requirePrunedSlot0(t, <-pruned, "prune_ring(queue) after the reader ended")
}

// TestPruneGivesUpAfterItsBudgetWhenTheSlotStaysHeld: a reader that holds the
// slot through the whole budget makes prune report skipped_blocked, about
// when the budget ends, naming the table it could not lock; nothing is
// truncated and the slot is pruned on a later call.
func TestPruneGivesUpAfterItsBudgetWhenTheSlotStaysHeld(t *testing.T) {
	const budget = 300 * time.Millisecond
	ctx, pool := newDB(t, 30*time.Second)
	conn := connect(t, ctx, pool)
	sealFinishedJob(t, ctx, conn, nil)
	reader := readerHolding(t, ctx, pool, "done_entries_0")
	start := time.Now()
	o, err := pruneOp(ctx, conn, "queue", int(budget.Milliseconds()), 0, 1000)
	took := time.Since(start)
	if err != nil || o.Outcome != "skipped_blocked" || o.Detail == nil ||
		!strings.HasPrefix(*o.Detail, "awa.done_entries_0 not free within 300 ms") {
		t.Fatalf("prune_ring(queue) while a reader holds done_entries_0: %v, %v; want skipped_blocked naming it", o, err)
	}
	if took < budget || took > budget+time.Second {
		t.Fatalf("prune gave up after %v; want about its %v budget", took, budget)
	}
	var rows int
	if err := conn.QueryRow(ctx, `SELECT count(*) FROM awa.ready_entries_0`).Scan(&rows); err != nil || rows != 1 {
		t.Fatalf("ready_entries_0 holds %d rows (err %v) after skipped_blocked, want 1", rows, err)
	}
	if err := reader.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	if o, err := pruneOp(ctx, conn, "queue", 1000, 0, 1000); err != nil || o.Outcome != "pruned" {
		t.Fatalf("prune_ring(queue) after the reader ended: %v, %v; want pruned", o, err)
	}
}

// TestPruneSeesAJobCommittedWhileItWaitsForItsLocks: a producer read the
// current queue slot and inserted into it, but has not committed when the
// slot is sealed and prune proves it empty of live jobs (the producer's row is
// invisible to that proof). Prune then tries for the producer's lock on the
// slot's ready_entries child; the producer commits, either while prune
// retries with NOWAIT or, in a stalled ring (its last rotation 8.5 s ago,
// 0.5 s after the one before), while prune's attempt waits in the lock queue.
// Under the locks prune must see the new job (the slot's fingerprint changed)
// and report skipped_live, never truncate it; the job is then claimed.
func TestPruneSeesAJobCommittedWhileItWaitsForItsLocks(t *testing.T) {
	for _, tc := range []struct {
		name     string
		budgetMs int
		stalled  bool
		// waitFor returns once prune is in the phase the producer commits in.
		waitFor func(t *testing.T, ctx context.Context, pool *pgxpool.Pool, pid uint32)
	}{
		{"while prune retries with NOWAIT", 10000, false, func(t *testing.T, ctx context.Context, pool *pgxpool.Pool, pid uint32) {
			waitForPruneRetry(t, ctx, pool, pid)
		}},
		{"while the attempt of a stalled ring waits for the lock", 2000, true, func(t *testing.T, ctx context.Context, pool *pgxpool.Pool, pid uint32) {
			waitForLockWait(t, ctx, pool, pid)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) { pruneSeesALateCommit(t, tc.budgetMs, tc.stalled, tc.waitFor) })
	}
}

func pruneSeesALateCommit(t *testing.T, budgetMs int, stalled bool, waitFor func(*testing.T, context.Context, *pgxpool.Pool, uint32)) {
	ctx, pool := newDB(t, 30*time.Second)
	conn := connect(t, ctx, pool)

	// The target slot: 0, or in the stalled ring 2 (slots 0 and 1 were sealed
	// 10 s and 9 s ago and are pruned first).
	target := 0
	if stalled {
		sealStalledRing(t, ctx, conn)
		for range 2 {
			if o, err := pruneOp(ctx, conn, "queue", 1000, 0, 1000); err != nil || o.Outcome != "pruned" {
				t.Fatalf("prune of the sealed slots: %v, %v", o, err)
			}
		}
		target = 2
	}
	// Lanes of both queues exist, and the target slot holds finished jobs.
	for _, q := range []string{"late", "q"} {
		if _, err := insertOne(ctx, conn, q, 2); err != nil {
			t.Fatal(err)
		}
	}
	for _, q := range []string{"late", "q"} {
		got, err := claim(ctx, conn, q, 1, nil)
		if err != nil || len(got) != 1 {
			t.Fatalf("claim %s: %v, %v", q, got, err)
		}
		if _, err := complete(ctx, conn, got); err != nil {
			t.Fatal(err)
		}
	}

	producer, err := connect(t, ctx, pool).Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = producer.Rollback(context.Background()) }()
	late, err := insertOne(ctx, producer, "late", 2)
	if err != nil {
		t.Fatal(err)
	}
	var rotatedAt any // now
	if stalled {
		rotatedAt = time.Now().Add(-8500 * time.Millisecond)
	}
	var o ringOutcome
	if err := conn.QueryRow(ctx, `SELECT o.outcome, o.slot FROM awa.rotate_ring('queue', $1) AS o`, rotatedAt).
		Scan(&o.Outcome, &o.Slot); err != nil || o.Outcome != "rotated" {
		t.Fatalf("rotate_ring(queue): %v, %v", o, err)
	}

	pruner := connect(t, ctx, pool)
	pruned := pruneInBackground(ctx, pruner, "queue", budgetMs, 0, 1000)
	waitFor(t, ctx, pool, pruner.PgConn().PID())
	if err := producer.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	p := <-pruned
	if p.err != nil || p.o.Outcome != "skipped_live" || p.o.Slot == nil || int(*p.o.Slot) != target ||
		p.o.Detail == nil || !strings.Contains(*p.o.Detail, "seen under lock") {
		t.Fatalf("prune_ring(queue) while the producer committed: %v, %v; want skipped_live for slot %d", p.o, p.err, target)
	}
	got, err := claim(ctx, conn, "late", 10, nil)
	if err != nil || len(got) != 1 || got[0].ID != late {
		t.Fatalf("claim of the late job: %s %v; want job %d", describeClaims(got), err, late)
	}
}
