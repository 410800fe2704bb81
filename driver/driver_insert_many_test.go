package driver_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/awa-queue/awa/driver"
	"github.com/awa-queue/awa/internal/pgtest"
)

// InsertMany sends default options as NULL and repeats of one option set
// once encoded; every job must still get exactly its own options.
func TestInsertManyMixesDefaultAndRepeatedOptions(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := pgtest.NewDB(t)
	d := driver.New()
	runAt := time.Now().Add(time.Hour).UTC().Truncate(time.Second)
	ps := []driver.InsertParams{
		{Kind: "a", Args: []byte(`{}`)},
		{Kind: "b", Args: []byte(`{}`), Opts: driver.InsertOpts{Queue: "q2", Priority: 3}},
		{Kind: "c", Args: []byte(`{}`), Opts: driver.InsertOpts{Queue: "q2", Priority: 3}},
		{Kind: "d", Args: []byte(`{}`), Opts: driver.InsertOpts{Queue: "q2", Tags: []string{"t"}}},
		{Kind: "e", Args: []byte(`{}`), Opts: driver.InsertOpts{RunAt: runAt, MaxAttempts: 3}},
		{Kind: "f", Args: []byte(`{}`)},
	}
	got, err := d.InsertMany(ctx, pool, ps)
	if err != nil {
		t.Fatalf("InsertMany: %v", err)
	}
	type want struct {
		queue    string
		priority int16
		state    driver.JobState
	}
	wants := []want{{"default", 2, driver.StateAvailable}, {"q2", 3, driver.StateAvailable},
		{"q2", 3, driver.StateAvailable}, {"q2", 2, driver.StateAvailable},
		{"default", 2, driver.StateScheduled}, {"default", 2, driver.StateAvailable}}
	for i, w := range wants {
		if got[i].Kind != ps[i].Kind || got[i].Queue != w.queue || got[i].Priority != w.priority || got[i].State != w.state {
			t.Fatalf("job %d: got %+v, want kind %s queue %s priority %d state %s",
				i, got[i], ps[i].Kind, w.queue, w.priority, w.state)
		}
	}
	var tags []string
	var maxAttempts int
	if err := pool.QueryRow(ctx, `SELECT tags FROM awa.jobs WHERE id = $1`, got[3].ID).Scan(&tags); err != nil {
		t.Fatal(err)
	}
	if err := pool.QueryRow(ctx, `SELECT max_attempts FROM awa.jobs WHERE id = $1`, got[4].ID).Scan(&maxAttempts); err != nil {
		t.Fatal(err)
	}
	if len(tags) != 1 || tags[0] != "t" || maxAttempts != 3 || !got[4].RunAt.Equal(runAt) {
		t.Fatalf("tags %v (want [t]), max_attempts %d (want 3), run_at %s (want %s)", tags, maxAttempts, got[4].RunAt, runAt)
	}
}

// The COPY path (awa.open_job_stage, COPY, awa.insert_staged_jobs) gives what
// InsertMany gives: every job with its own options, in order, also past
// insert_jobs' 10,000-job batch and twice in one transaction (the stage is
// emptied between); a bad job fails the call with its sentinel and inserts
// nothing.
func TestInsertManyCopyMatchesInsertMany(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := pgtest.NewDB(t)
	d := driver.New()
	runAt := time.Now().Add(time.Hour).UTC().Truncate(time.Second)
	var ps []driver.InsertParams
	for i := range 12000 {
		p := driver.InsertParams{Kind: "k", Args: []byte(fmt.Sprintf(`{"i": %d}`, i))}
		switch i % 4 {
		case 1:
			p.Opts = driver.InsertOpts{Queue: "q2", Priority: 3}
		case 2:
			p.Opts = driver.InsertOpts{Queue: "q2", Tags: []string{"t"}}
		case 3:
			p.Opts = driver.InsertOpts{RunAt: runAt, MaxAttempts: 3}
		}
		ps = append(ps, p)
	}
	tx, err := pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx)
	got, err := d.InsertManyCopy(ctx, tx, ps)
	if err != nil {
		t.Fatalf("InsertManyCopy: %v", err)
	}
	again, err := d.InsertManyCopy(ctx, tx, ps[:2])
	if err != nil || len(again) != 2 {
		t.Fatalf("second InsertManyCopy in the transaction: %d jobs, %v; want 2", len(again), err)
	}
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	if len(got) != len(ps) {
		t.Fatalf("%d jobs returned, want %d", len(got), len(ps))
	}
	for i := range got {
		if i > 0 && got[i].ID <= got[i-1].ID {
			t.Fatalf("ids out of order at %d: %d after %d", i, got[i].ID, got[i-1].ID)
		}
	}
	var mismatched int
	if err := pool.QueryRow(ctx, `
		SELECT count(*) FROM awa.jobs j JOIN unnest($1::bigint[]) WITH ORDINALITY AS u (id, ord) USING (id)
		WHERE (j.args ->> 'i')::bigint <> u.ord - 1
		   OR (u.ord - 1) % 4 = 0 AND (j.queue, j.priority, j.state::text) <> ('default', 2, 'available')
		   OR (u.ord - 1) % 4 = 1 AND (j.queue, j.priority) <> ('q2', 3)
		   OR (u.ord - 1) % 4 = 2 AND (j.queue, j.tags) <> ('q2', ARRAY['t'])
		   OR (u.ord - 1) % 4 = 3 AND (j.state::text, j.max_attempts, j.run_at) <> ('scheduled', 3, $2)`,
		ids(got), runAt).Scan(&mismatched); err != nil {
		t.Fatal(err)
	}
	if n := countJobs(t, pool, "true"); n != len(ps)+2 || mismatched != 0 {
		t.Fatalf("%d jobs (want %d), %d with the wrong args or options (want 0)", n, len(ps)+2, mismatched)
	}

	bad := append([]driver.InsertParams{{Kind: "ok", Args: []byte(`{}`)}}, driver.InsertParams{Kind: "bad", Args: []byte(`[1]`)})
	tx2, err := pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx2.Rollback(ctx)
	if _, err := d.InsertManyCopy(ctx, tx2, bad); !errors.Is(err, driver.ErrInvalidArgs) {
		t.Fatalf("InsertManyCopy with args [1] = %v, want ErrInvalidArgs", err)
	}
	tx2.Rollback(ctx)
	if n := countJobs(t, pool, "kind IN ('ok', 'bad')"); n != 0 {
		t.Fatalf("%d jobs of the failed call exist, want 0", n)
	}
}

func ids(js []driver.InsertedJob) []int64 {
	out := make([]int64, len(js))
	for i, j := range js {
		out[i] = j.ID
	}
	return out
}

// BenchmarkBulkInsert compares the two bulk paths, 10,000 jobs per
// transaction: go test ./driver -run '^$' -bench BulkInsert (AWA_TEST_DSN).
func BenchmarkBulkInsert(b *testing.B) {
	ctx := context.Background()
	pool := pgtest.NewDB(b)
	d := driver.New()
	ps := make([]driver.InsertParams, 10000)
	for i := range ps {
		ps[i] = driver.InsertParams{Kind: "bench", Args: []byte(fmt.Sprintf(`{"n": %d}`, i))}
	}
	for _, path := range []string{"arrays", "copy"} {
		b.Run(path, func(b *testing.B) {
			for b.Loop() {
				tx, err := pool.Begin(ctx)
				if err != nil {
					b.Fatal(err)
				}
				if path == "arrays" {
					_, err = d.InsertMany(ctx, tx, ps)
				} else {
					_, err = d.InsertManyCopy(ctx, tx, ps)
				}
				if err != nil {
					b.Fatal(err)
				}
				if err := tx.Commit(ctx); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.N*len(ps))/b.Elapsed().Seconds(), "jobs/s")
		})
	}
}

// A COPY into the stage that runs in its own transaction (autocommit) is
// emptied at its commit; awa.insert_staged_jobs then raises AW010 instead of
// inserting nothing without a word. Client.InsertManyCopyTx with no jobs is
// a no-op that never reaches the substrate (as InsertManyTx).
func TestCopyStageOutsideATransactionIsAnError(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := pgtest.NewDB(t)
	conn, err := pool.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Release()
	if _, err := conn.Exec(ctx, `SELECT awa.open_job_stage()`); err != nil {
		t.Fatal(err)
	}
	rows := make([][]any, 100)
	for i := range rows {
		rows[i] = []any{"k", `{}`}
	}
	n, err := conn.CopyFrom(ctx, pgx.Identifier{"pg_temp", "awa_job_stage"}, []string{"kind", "args"}, pgx.CopyFromRows(rows))
	if err != nil || n != 100 {
		t.Fatalf("autocommit COPY: %d rows, %v; want 100 rows", n, err)
	}
	_, err = conn.Exec(ctx, `SELECT * FROM awa.insert_staged_jobs()`)
	var pgErr *pgconn.PgError
	if !errors.As(err, &pgErr) || pgErr.Code != "AW010" {
		t.Fatalf("insert_staged_jobs after an autocommit COPY: %v; want SQLSTATE AW010", err)
	}
	var jobs int
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM awa.jobs`).Scan(&jobs); err != nil || jobs != 0 {
		t.Fatalf("%d jobs (%v), want 0", jobs, err)
	}

	client, err := driver.NewClient(pool, nil)
	if err != nil {
		t.Fatal(err)
	}
	tx, err := pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx)
	got, err := client.InsertManyCopyTx(ctx, tx, nil)
	if err != nil || len(got) != 0 {
		t.Fatalf("InsertManyCopyTx with no jobs: %d jobs, %v; want none and no error", len(got), err)
	}
}
