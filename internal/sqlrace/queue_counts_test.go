package sqlrace

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// TestQueueCountsThatWaitedBehindACursorPruneCountNoCompletedJobAvailable:
// at READ COMMITTED, when awa.queue_counts was a STABLE SQL function (not
// inlined: it has SET clauses), its query ran on the snapshot its caller's
// statement took before the function locked the marks: a call that waited
// behind a cursor-ring prune's exclusive lock then read the floor from
// before the prune and the marks from after its TRUNCATE, and counted a job
// that was claimed and completed long before as available. VOLATILE, its
// query takes its snapshot after its locks. (awa.jobs read by a top-level statement locks before its
// snapshot and is not affected; the writers read the cursor in PL/pgSQL
// statements of their own, docs/storage.md, "The claim cursor", lock before snapshot.)
func TestQueueCountsThatWaitedBehindACursorPruneCountNoCompletedJobAvailable(t *testing.T) {
	ctx, pool := newDB(t, 60*time.Second)
	maint := connect(t, ctx, pool)
	reader := connect(t, ctx, pool)

	completedBehindASealedMarksSlot(t, ctx, pool, maint, "r")
	// The prune holds its locks (floors raised, slot truncated) until commit.
	tx := mustBegin(t, ctx, maint)
	var outcome string
	if err := tx.QueryRow(ctx, `SELECT outcome FROM awa.prune_ring('cursor')`).Scan(&outcome); err != nil || outcome != "pruned" {
		t.Fatalf("prune cursor: %s %v", outcome, err)
	}
	type counts struct {
		c   queueCount
		err error
	}
	got := make(chan counts, 1)
	go func() {
		var c queueCount
		err := reader.QueryRow(ctx, `SELECT available, completed FROM awa.queue_counts('r')`).Scan(&c.Available, &c.Completed)
		got <- counts{c, err}
	}()
	waitForLockWait(t, ctx, pool, reader.PgConn().PID())
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	r := <-got
	if r.err != nil {
		t.Fatal(r.err)
	}
	if r.c.Available != 0 || r.c.Completed != 1 {
		t.Errorf("queue_counts that waited behind a cursor-ring prune: available %d, completed %d; want 0 and 1 (the one job completed before either began)",
			r.c.Available, r.c.Completed)
	}
	if c := queueCounts(t, ctx, pool, "r"); c.Available != 0 || c.Completed != 1 {
		t.Fatalf("queue_counts afterwards: %+v", c)
	}
}

// completedBehindASealedMarksSlot inserts, claims and completes one job of
// queue and rotates the cursor ring: the job's lane's only mark is then in
// the sealed slot that the next cursor-ring prune truncates. Returns its id.
func completedBehindASealedMarksSlot(t *testing.T, ctx context.Context, pool *pgxpool.Pool, maint *pgx.Conn, queue string) int64 {
	t.Helper()
	id, err := insertOne(ctx, pool, queue, 2)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := claim(ctx, pool, queue, 10, nil)
	if err != nil || len(cs) != 1 {
		t.Fatalf("claim: %v %v", cs, err)
	}
	if f, err := complete(ctx, pool, cs); err != nil || f[0].Outcome != "applied" {
		t.Fatalf("complete: %v %v", f, err)
	}
	if o, err := ringOp(ctx, maint, "rotate", "cursor"); err != nil || o.Outcome != "rotated" {
		t.Fatalf("rotate cursor: %v %v", o, err)
	}
	return id
}
