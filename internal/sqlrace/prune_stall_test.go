package sqlrace

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/awa-queue/awa/internal/pgtest"
)

// TestClaimWaitsBehindBlockedPruneAtMostItsLockTimeout: every claim reads
// every ready_entries child, so while prune waits for ACCESS EXCLUSIVE on a
// slot child, claims queue behind its request. The wait must end within one
// lock_timeout_ms budget for the whole slot, not one per child table.
//
// A long reader holds a read lock on awa.ready_entries_0 (sealed slot 0); a
// second one on awa.receipt_completion_batches_0. Prune of slot 0 with a
// 1,000 ms budget queues on ready_entries_0, and a claim of a job in slot 1
// queues behind it. At 700 ms the first reader ends: prune takes the first
// children and waits for the last one. With one budget prune gives up at
// about 1,000 ms (skipped_blocked) and the claim completes then; a fresh
// timeout per child would keep the claim waiting until about 1,700 ms. Bound:
// the claim completes within 1,400 ms of prune's start (a correctness bound
// with a generous margin, not a speed claim).
func TestClaimWaitsBehindBlockedPruneAtMostItsLockTimeout(t *testing.T) {
	const budget = 1000 * time.Millisecond
	ctx := testCtx(t, 30*time.Second)
	pool := pgtest.NewDB(t)
	conn := connect(t, ctx, pool)

	// Slot 0: one finished job; rotate; slot 1: the job the claim will take.
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
	if o, err := ringOp(ctx, conn, "rotate", "queue"); err != nil || o.Outcome != "rotated" {
		t.Fatalf("rotate_ring(queue): %v, %v", o, err)
	}
	want, err := insertOne(ctx, conn, "q", 2)
	if err != nil {
		t.Fatal(err)
	}

	hold := func(table string) pgx.Tx {
		t.Helper()
		tx, err := connect(t, ctx, pool).Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := tx.Exec(ctx, "LOCK TABLE "+table+" IN ACCESS SHARE MODE"); err != nil {
			t.Fatal(err)
		}
		return tx
	}
	reader1 := hold("awa.ready_entries_0")
	reader2 := hold("awa.receipt_completion_batches_0")
	defer func() { _ = reader2.Rollback(context.Background()) }()

	pruner, claimer := connect(t, ctx, pool), connect(t, ctx, pool)
	type pruneRes struct {
		o   ringOutcome
		err error
	}
	pruned := make(chan pruneRes, 1)
	start := time.Now()
	go func() {
		var o ringOutcome
		err := pruner.QueryRow(ctx, `SELECT o.ring, o.action, o.outcome, o.slot, o.generation, o.detail
			FROM awa.prune_ring('queue', $1) AS o`, budget.Milliseconds()).
			Scan(&o.Ring, &o.Action, &o.Outcome, &o.Slot, &o.Generation, &o.Detail)
		pruned <- pruneRes{o, err}
	}()
	waitForLockWait(t, ctx, pool, pruner.PgConn().PID())

	type claimRes struct {
		got []claimed
		err error
		at  time.Duration
	}
	claimed := make(chan claimRes, 1)
	go func() {
		got, err := claim(ctx, claimer, "q", 1, nil)
		claimed <- claimRes{got, err, time.Since(start)}
	}()
	waitForLockWait(t, ctx, pool, claimer.PgConn().PID())

	time.Sleep(700*time.Millisecond - time.Since(start))
	if err := reader1.Rollback(ctx); err != nil {
		t.Fatal(err)
	}

	c := <-claimed
	p := <-pruned
	if c.err != nil || len(c.got) != 1 || c.got[0].ID != want {
		t.Fatalf("claim behind prune: %s %s; want job %d", describeClaims(c.got), describeErr(c.err), want)
	}
	if p.err != nil || p.o.Outcome != "skipped_blocked" {
		t.Fatalf("prune_ring(queue, %d): %v, %v; want skipped_blocked (receipt_completion_batches_0 stays held)",
			budget.Milliseconds(), p.o, p.err)
	}
	t.Logf("claim completed %v after prune started (budget %v); prune: %v", c.at, budget, p.o)
	if c.at > budget+400*time.Millisecond {
		t.Fatalf("the claim completed %v after prune started: it waited behind prune for longer than the %v lock budget (+400 ms margin)",
			c.at, budget)
	}
}

// TestPruneSeesAJobCommittedWhileItWaitsForItsLocks: a producer read the
// current queue slot (0) and inserted into it, but has not committed when the
// slot is sealed and prune proves it empty of live jobs (the producer's row is
// invisible to that proof). Prune then waits for the producer's lock on
// awa.ready_entries_0; the producer commits. Under the locks prune must see
// the new job (the slot's fingerprint changed) and report skipped_live, never
// truncate it; the job is then claimed.
func TestPruneSeesAJobCommittedWhileItWaitsForItsLocks(t *testing.T) {
	ctx := testCtx(t, 30*time.Second)
	pool := pgtest.NewDB(t)
	conn := connect(t, ctx, pool)

	// Lanes of both queues exist, and slot 0 holds one finished job.
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
	if o, err := ringOp(ctx, conn, "rotate", "queue"); err != nil || o.Outcome != "rotated" {
		t.Fatalf("rotate_ring(queue): %v, %v", o, err)
	}

	pruner := connect(t, ctx, pool)
	type pruneRes struct {
		o   ringOutcome
		err error
	}
	pruned := make(chan pruneRes, 1)
	go func() {
		var o ringOutcome
		err := pruner.QueryRow(ctx, `SELECT o.ring, o.action, o.outcome, o.slot, o.generation, o.detail
			FROM awa.prune_ring('queue', 10000) AS o`).
			Scan(&o.Ring, &o.Action, &o.Outcome, &o.Slot, &o.Generation, &o.Detail)
		pruned <- pruneRes{o, err}
	}()
	waitForLockWait(t, ctx, pool, pruner.PgConn().PID())
	if err := producer.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	p := <-pruned
	if p.err != nil || p.o.Outcome != "skipped_live" || p.o.Slot == nil || *p.o.Slot != 0 ||
		p.o.Detail == nil || !strings.Contains(*p.o.Detail, "seen under lock") {
		t.Fatalf("prune_ring(queue) while the producer committed: %v, %v; want skipped_live for slot 0", p.o, p.err)
	}
	got, err := claim(ctx, conn, "late", 10, nil)
	if err != nil || len(got) != 1 || got[0].ID != late {
		t.Fatalf("claim of the late job: %s %v; want job %d", describeClaims(got), err, late)
	}
}
