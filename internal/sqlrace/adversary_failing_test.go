package sqlrace

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/awa-queue/awa/internal/pgtest"
)

// stateRows returns "id:state" for every awa.jobs row of ids, read in q.
func stateRows(t *testing.T, q rowQuerier, ids []int64) string {
	t.Helper()
	ctx := testCtx(t, 10*time.Second)
	rows, err := q.Query(ctx, `SELECT id, state::text FROM awa.jobs WHERE id = ANY($1) ORDER BY id, state`, ids)
	if err != nil {
		t.Fatalf("awa.jobs: %v", err)
	}
	var out []string
	var id int64
	var s string
	if _, err := pgx.ForEachRow(rows, []any{&id, &s}, func() error { out = append(out, fmt.Sprintf("%d:%s", id, s)); return nil }); err != nil {
		t.Fatalf("awa.jobs: %v", err)
	}
	return strings.Join(out, " ")
}

// TestReadSurfacesWithASnapshotOlderThanAPruneShowEachJobOnceInItsState:
// the contract lets awa.jobs and awa.queue_counts run at REPEATABLE READ and
// SERIALIZABLE (a dashboard or an app transaction reads them). TRUNCATE is
// not MVCC-safe: a transaction whose snapshot predates a prune sees the
// pruned slot empty, and not the rows the prune wrote (raised floors, carried
// jobs). So after a cursor-ring prune, such a reader combines the old floor
// with no marks: a completed job shows twice, completed and available, and
// queue_counts counts it available. After a queue-ring prune that carried an
// available job, the job is in neither slot for it: awa.jobs does not show
// it at all. Neither picture ever existed at any instant. On main both
// happen at REPEATABLE READ and SERIALIZABLE (READ COMMITTED passes).
func TestReadSurfacesWithASnapshotOlderThanAPruneShowEachJobOnceInItsState(t *testing.T) {
	for _, level := range isoLevels {
		t.Run(levelName(level), func(t *testing.T) {
			ctx := testCtx(t, 60*time.Second)
			pool := pgtest.NewDB(t)
			maint := connect(t, ctx, pool)
			reader := connect(t, ctx, pool)

			// Cursor ring: a claimed and completed job whose lane's only mark
			// is in the slot cursor-ring prune truncates.
			done := completedBehindASealedMarksSlot(t, ctx, pool, maint, "r")
			tx := beginAt(t, ctx, reader, level)
			if o, err := ringOp(ctx, maint, "prune", "cursor"); err != nil || o.Outcome != "pruned" {
				t.Fatalf("prune cursor: %v %v", o, err)
			}
			if got, want := stateRows(t, tx, []int64{done}), fmt.Sprintf("%d:completed", done); got != want {
				t.Errorf("awa.jobs after a cursor-ring prune, snapshot from before it: %q, want %q", got, want)
			}
			if c := queueCounts(t, ctx, tx, "r"); c.Available != 0 || c.Completed != 1 {
				t.Errorf("queue_counts after a cursor-ring prune, snapshot from before it: %+v, want available 0, completed 1", c)
			}
			_ = tx.Rollback(ctx)

			// Queue ring: an available job carried out of the slot prune truncates.
			avail, err := insertOne(ctx, pool, "s", 2)
			if err != nil {
				t.Fatal(err)
			}
			if o, err := ringOp(ctx, maint, "rotate", "queue"); err != nil || o.Outcome != "rotated" {
				t.Fatalf("rotate queue: %v %v", o, err)
			}
			tx = beginAt(t, ctx, reader, level)
			if o, err := ringOp(ctx, maint, "prune", "queue"); err != nil || o.Outcome != "pruned" {
				t.Fatalf("prune queue: %v %v", o, err)
			}
			if got, want := stateRows(t, tx, []int64{avail}), fmt.Sprintf("%d:available", avail); got != want {
				t.Errorf("awa.jobs after a queue-ring prune that carried the job, snapshot from before it: %q, want %q", got, want)
			}
			if c := queueCounts(t, ctx, tx, "s"); c.Available != 1 {
				t.Errorf("queue_counts after a queue-ring prune that carried the job, snapshot from before it: %+v, want available 1", c)
			}
			_ = tx.Rollback(ctx)
		})
	}
}
