package sqlrace

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// unerasedRows counts the rows of the jobs ids, in every plane that holds a
// job's body, that still hold data an erasure removes (args other than {},
// or metadata without erased_at).
func unerasedRows(t *testing.T, ctx context.Context, pool *pgxpool.Pool, ids []int64) int64 {
	t.Helper()
	var n int64
	if err := pool.QueryRow(ctx, `
		SELECT (SELECT count(*) FROM awa.ready_entries WHERE job_id = ANY ($1) AND (args <> '{}' OR NOT metadata ? 'erased_at'))
		     + (SELECT count(*) FROM awa.done_entries WHERE job_id = ANY ($1) AND (args <> '{}' OR NOT metadata ? 'erased_at'))
		     + (SELECT count(*) FROM awa.deferred_jobs WHERE job_id = ANY ($1) AND (args <> '{}' OR NOT metadata ? 'erased_at'))
		     + (SELECT count(*) FROM awa.external_waits WHERE job_id = ANY ($1) AND (args <> '{}' OR NOT metadata ? 'erased_at'))
		     + (SELECT count(*) FROM awa.dlq_entries WHERE job_id = ANY ($1) AND (args <> '{}' OR NOT metadata ? 'erased_at'))
		     + (SELECT count(*) FROM awa.archived_jobs WHERE job_id = ANY ($1) AND (args <> '{}' OR NOT metadata ? 'erased_at'))`,
		ids).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// dlqJob inserts a job with data into queue (its DLQ turned on), claims it
// and fails it for good: the job is in the DLQ. Returns its id.
func dlqJob(t *testing.T, ctx context.Context, pool *pgxpool.Pool, queue string) int64 {
	t.Helper()
	if _, err := pool.Exec(ctx, `SELECT awa.configure_queue($1, '{"dlq": true}')`, queue); err != nil {
		t.Fatal(err)
	}
	var id int64
	if err := pool.QueryRow(ctx, `SELECT j.id FROM awa.insert_job('k', '{"secret": "pii"}',
			jsonb_build_object('queue', $1::text, 'metadata', '{"who": "pii"}'::jsonb)) AS j`, queue).Scan(&id); err != nil {
		t.Fatal(err)
	}
	cs, err := claim(ctx, pool, queue, 1, nil)
	if err != nil || len(cs) != 1 || cs[0].ID != id {
		t.Fatalf("claim: %v, %v", cs, err)
	}
	if fs, err := finalizeAs(ctx, pool, "fail", cs); err != nil || fs[0].Outcome != "applied" {
		t.Fatalf("fail: %v, %v", fs, err)
	}
	var inDLQ bool
	if err := pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM awa.dlq_entries WHERE job_id = $1)`, id).Scan(&inDLQ); err != nil || !inDLQ {
		t.Fatalf("job %d not in the DLQ (fixture): %v", id, err)
	}
	return id
}

// TestErasureRacingADLQRetryLeavesNoUnerasedCopy erases a DLQ job while an
// operator retries it out of the DLQ with awa.retry_dlq_job, the retry
// arriving in the middle of the erasure: after the erasure rewrote the queue
// ring's rows and before it reached the DLQ (held there by a session that
// holds SHARE on awa.deferred_jobs, which the erasure's UPDATE of the backlog
// waits for). The retry moves the DLQ row into a new ready row: had it
// committed then, that row would keep the job's data (the erasure had passed
// the ring, and found the DLQ row gone). Whatever order the two end in, no
// row of the job may keep its data, and the job shows once, erased.
func TestErasureRacingADLQRetryLeavesNoUnerasedCopy(t *testing.T) {
	ctx, pool := newDB(t, time.Minute)
	id := dlqJob(t, ctx, pool, "erase_dlq")

	hold, _ := advTx(t, ctx, pool)
	if _, err := hold.Exec(ctx, `LOCK TABLE awa.deferred_jobs IN SHARE MODE`); err != nil {
		t.Fatal(err)
	}
	eraser := connect(t, ctx, pool)
	erased := inBackground(func() ([]string, error) {
		return collectStrings(eraser.Query(ctx, `SELECT plane FROM awa.erase_job($1)`, id))
	})
	waitForLockWait(t, ctx, pool, eraser.PgConn().PID())

	retrier := connect(t, ctx, pool)
	retried := inBackground(func() (string, error) {
		var state string
		err := retrier.QueryRow(ctx, `SELECT state::text FROM awa.retry_dlq_job($1)`, id).Scan(&state)
		return state, err
	})
	// The retry commits now if it does not wait for the erasure: give it the
	// time to, then let the erasure go on.
	var r result[string]
	select {
	case r = <-retried:
	case <-time.After(300 * time.Millisecond):
		if err := hold.Rollback(ctx); err != nil {
			t.Fatal(err)
		}
		r = <-retried
	}
	_ = hold.Rollback(ctx)
	if e := <-erased; e.err != nil {
		t.Fatalf("erase_job: %v", e.err)
	}
	if r.err != nil || r.v != "available" {
		t.Fatalf("retry_dlq_job: state %q, %v; want available", r.v, r.err)
	}

	if n := unerasedRows(t, ctx, pool, []int64{id}); n != 0 {
		t.Errorf("%d rows of the erased job still hold its data", n)
	}
	var shown int
	var args *string
	if err := pool.QueryRow(ctx, `SELECT count(*), min(args::text) FROM awa.jobs WHERE id = $1`, id).Scan(&shown, &args); err != nil {
		t.Fatal(err)
	}
	if shown != 1 || args == nil || *args != "{}" {
		t.Errorf("awa.jobs shows the job %d times (args %v); want once, erased", shown, args)
	}
}

// collectStrings scans one text column.
func collectStrings(rows pgx.Rows, err error) ([]string, error) {
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, pgx.RowTo[string])
}
