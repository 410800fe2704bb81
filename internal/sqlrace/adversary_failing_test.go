package sqlrace

import (
	"context"
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

// ringRowCount is how many rows the queue, claim and cursor rings hold.
func ringRowCount(t *testing.T, ctx context.Context, q rowQuerier) int64 {
	t.Helper()
	rows, err := q.Query(ctx, `SELECT (SELECT count(*) FROM awa.ready_entries) + (SELECT count(*) FROM awa.done_completions)
		+ (SELECT count(*) FROM awa.claim_batches) + (SELECT count(*) FROM awa.claim_closures) + (SELECT count(*) FROM awa.cursor_marks)`)
	n, err := pgx.CollectExactlyOneRow(rows, pgx.RowTo[int64])
	if err != nil {
		t.Fatalf("ring rows: %v", err)
	}
	return n
}

// TestAnIdleTransactionThatReadAwaJobsDoesNotStopReclamation: issue 7,
// observation 9: "a session that holds a snapshot after reading awa.jobs
// also blocks prune, so the schema grows while it stays open". Reading
// awa.jobs (or queue_counts) takes ACCESS SHARE on every ring child, held
// until the transaction ends, and prune needs ACCESS EXCLUSIVE on a slot's
// children to TRUNCATE it: while a dashboard's transaction stays idle after
// that read, every prune reports skipped_blocked, rotation stops at the
// first unpruned slot (skipped_busy), and every queue's rows pile up in one
// slot. The same jobs go through twice, rotating and pruning every ring
// after every round: without the idle reader and with it (READ COMMITTED,
// `SELECT count(*) FROM awa.jobs`, then idle). The rings must end within 2x
// (plus a slot's worth) of the run without it. On main, nothing is
// reclaimed while it stays open.
func TestAnIdleTransactionThatReadAwaJobsDoesNotStopReclamation(t *testing.T) {
	const rounds, perRound = 80, 50
	ctx := testCtx(t, 3*time.Minute)
	through := func(idleReader bool) int64 {
		pool := pgtest.NewDB(t)
		conn := connect(t, ctx, pool)
		maint := connect(t, ctx, pool)
		if idleReader {
			tx, err := connect(t, ctx, pool).Begin(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer func() { _ = tx.Rollback(context.Background()) }()
			if _, err := tx.Exec(ctx, `SELECT count(*) FROM awa.jobs`); err != nil {
				t.Fatal(err)
			}
		}
		outcomes := map[string]int{}
		for i := 0; i < rounds; i++ {
			if _, err := insertBatch(ctx, conn, "flow", 2, perRound); err != nil {
				t.Fatal(err)
			}
			cs, err := claim(ctx, conn, "flow", perRound, nil)
			if err != nil || len(cs) != perRound {
				t.Fatalf("round %d: claimed %d, %v", i, len(cs), err)
			}
			if _, err := complete(ctx, conn, cs); err != nil {
				t.Fatal(err)
			}
			for _, ring := range []string{"queue", "claim", "cursor"} {
				if o, err := ringOp(ctx, maint, "rotate", ring); err != nil {
					t.Fatal(err)
				} else {
					outcomes[ring+" rotate "+o.Outcome]++
				}
				var outcome string
				if err := maint.QueryRow(ctx, `SELECT outcome FROM awa.prune_ring($1, 10)`, ring).Scan(&outcome); err != nil {
					t.Fatal(err)
				}
				outcomes[ring+" prune "+outcome]++
			}
		}
		n := ringRowCount(t, ctx, conn)
		t.Logf("idle reader %v: %d ring rows after %d jobs; outcomes %v", idleReader, n, rounds*perRound, outcomes)
		return n
	}
	clean := through(false)
	held := through(true)
	if limit := 2*clean + 2*perRound; held > limit {
		t.Errorf("an idle transaction that read awa.jobs: the rings hold %d rows after %d jobs, against %d without it (limit %d): reclamation stopped while it stayed open",
			held, rounds*perRound, clean, limit)
	}
}
