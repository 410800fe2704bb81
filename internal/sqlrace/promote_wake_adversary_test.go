package sqlrace

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// TestEveryDeferredWriterWakesThePromoterForTheFirstDueJob: the leader
// sleeps until the deferred backlog's first job is due and relies on
// awa:+promote for a job written due sooner (awa._wake_promoter). Each path
// that writes deferred_jobs, with the backlog empty, writes a job due in a
// minute (so it is the backlog's first): a session listening on awa:+promote
// must hear it at commit. Paths: insert_jobs with a run_at, retry_jobs and
// snooze_jobs with a time ahead, retry_job and retry_dlq_job with a run_at,
// bulk_retry_jobs with a run_at.
func TestEveryDeferredWriterWakesThePromoterForTheFirstDueJob(t *testing.T) {
	ctx, pool := newDB(t, 2*time.Minute)
	const queue = "wk"
	conn, listen := connect(t, ctx, pool), connect(t, ctx, pool)
	if _, err := conn.Exec(ctx, `SELECT * FROM awa.configure_queue($1, '{"dlq": true}')`, queue); err != nil {
		t.Fatal(err)
	}
	if _, err := listen.Exec(ctx, `LISTEN "awa:+promote"`); err != nil {
		t.Fatal(err)
	}
	// claimOne inserts a job due now and claims it.
	claimOne := func() claimed {
		t.Helper()
		if _, err := insertOne(ctx, conn, queue, 2); err != nil {
			t.Fatal(err)
		}
		cs, err := claim(ctx, conn, queue, 1, nil)
		if err != nil || len(cs) != 1 {
			t.Fatalf("claim: %v (%d jobs)", err, len(cs))
		}
		return cs[0]
	}
	// terminal gives a job that ended in state (failed: into the DLQ; cancelled).
	terminal := func(action string) int64 {
		t.Helper()
		c := claimOne()
		if _, err := finalizeAs(ctx, conn, action, []claimed{c}); err != nil {
			t.Fatal(err)
		}
		return c.ID
	}
	receipt := func(c claimed) []any {
		return []any{[]int64{c.ID}, []int64{c.RunLease}, []int32{c.ClaimSlot}, []int64{c.ReceiptID}}
	}
	paths := []struct {
		name  string
		write func() error
	}{
		{"insert_jobs with a run_at", func() error {
			_, err := conn.Exec(ctx, `SELECT * FROM awa.insert_jobs(ARRAY['k'], NULL,
				ARRAY[jsonb_build_object('queue', $1::text, 'run_at', now() + interval '1 minute')])`, queue)
			return err
		}},
		{"retry_jobs with a retry_at ahead", func() error {
			_, err := conn.Exec(ctx, `SELECT * FROM awa.retry_jobs($1, $2, $3, $4, ARRAY['boom'],
				ARRAY[now() + interval '1 minute'])`, receipt(claimOne())...)
			return err
		}},
		{"snooze_jobs with a time ahead", func() error {
			_, err := conn.Exec(ctx, `SELECT * FROM awa.snooze_jobs($1, $2, $3, $4, ARRAY[now() + interval '1 minute'])`,
				receipt(claimOne())...)
			return err
		}},
		{"retry_job of a cancelled job with a run_at", func() error {
			_, err := conn.Exec(ctx, `SELECT * FROM awa.retry_job($1, now() + interval '1 minute')`, terminal("cancel"))
			return err
		}},
		{"retry_dlq_job with a run_at", func() error {
			_, err := conn.Exec(ctx, `SELECT * FROM awa.retry_dlq_job($1, now() + interval '1 minute')`, terminal("fail"))
			return err
		}},
		{"bulk_retry_jobs with a run_at", func() error {
			terminal("cancel")
			_, err := conn.Exec(ctx, `SELECT * FROM awa.bulk_retry_jobs(ARRAY['cancelled']::awa.job_state[], $1, NULL, NULL,
				1, now() + interval '1 minute')`, queue)
			return err
		}},
	}
	for _, p := range paths {
		// Empty the backlog (promote everything, as if an hour had passed),
		// and drain the notifications that setup caused.
		if _, err := conn.Exec(ctx, `SELECT * FROM awa.promote_due_jobs(100000, now() + interval '1 hour')`); err != nil {
			t.Fatal(err)
		}
		var left int
		if err := conn.QueryRow(ctx, `SELECT count(*) FROM awa.deferred_jobs`).Scan(&left); err != nil || left != 0 {
			t.Fatalf("%s: the backlog holds %d jobs before the write (%v)", p.name, left, err)
		}
		if err := p.write(); err != nil {
			t.Fatalf("%s: %v", p.name, err)
		}
		if err := conn.QueryRow(ctx, `SELECT count(*) FROM awa.deferred_jobs`).Scan(&left); err != nil || left != 1 {
			t.Fatalf("%s: the backlog holds %d jobs after the write, want 1 (%v)", p.name, left, err)
		}
		if !heard(ctx, listen, time.Second) {
			t.Errorf("%s wrote the backlog's first job and did not notify awa:+promote: the leader sleeps on to "+
				"its next due time or PromoteInterval", p.name)
		}
		for heard(ctx, listen, 50*time.Millisecond) {
		}
	}
}

// heard waits up to d for a notification on conn.
func heard(ctx context.Context, conn *pgx.Conn, d time.Duration) bool {
	wctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	_, err := conn.WaitForNotification(wctx)
	return err == nil
}
