package driver_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/awa-queue/awa/driver"
)

// TestListJobsPagesEveryJobAndGetJobFindsEach: ListJobs pages through every
// job, live (available, running, completed in the ring) and archived, newest
// first, with the cursor it returns; jobs enqueued between two pages do not
// shift the later ones. Each filter gives what awa.jobs gives for it, and
// GetJob returns each job as the listing does.
func TestListJobsPagesEveryJobAndGetJobFindsEach(t *testing.T) {
	ctx, pool := parallelDB(t, 2*time.Minute)
	d := driver.New()
	listingFixture(ctx, t, pool)

	want := jobIDs(t, pool, `SELECT id FROM awa.jobs ORDER BY id DESC`)
	if len(want) != 40 {
		t.Fatalf("fixture: %d jobs, want 40", len(want))
	}
	var got []int64
	var after int64
	for page := 0; ; page++ {
		rows, next, err := d.ListJobs(ctx, pool, driver.ListJobsParams{After: after, Limit: 7})
		if err != nil {
			t.Fatalf("ListJobs(after %d): %v", after, err)
		}
		for _, r := range rows {
			got = append(got, r.ID)
		}
		if page == 1 {
			// Jobs enqueued now have higher ids: the next pages do not move.
			if _, err := pool.Exec(ctx, `SELECT awa.insert_job('late.k', '{}', '{"queue": "live"}')
			                             FROM generate_series(1, 3)`); err != nil {
				t.Fatal(err)
			}
		}
		if next == 0 {
			if len(rows) == 7 {
				t.Fatalf("a full page (%d rows) came without a next cursor", len(rows))
			}
			break
		}
		if next != rows[len(rows)-1].ID {
			t.Fatalf("next cursor %d, want the page's last id %d", next, rows[len(rows)-1].ID)
		}
		after = next
	}
	if !slices.Equal(got, want) {
		t.Fatalf("pages of 7 gave %v,\nwant awa.jobs newest first %v", got, want)
	}

	for _, c := range []struct {
		name  string
		p     driver.ListJobsParams
		query string
	}{
		{"queue", driver.ListJobsParams{Queue: "arch"}, `queue = 'arch'`},
		{"kind", driver.ListJobsParams{Kind: "odd.k"}, `kind = 'odd.k'`},
		{"tag", driver.ListJobsParams{Tag: "red"}, `'red' = ANY (tags)`},
		{"states", driver.ListJobsParams{States: []driver.JobState{driver.StateCompleted, driver.StateRunning}},
			`state IN ('completed', 'running')`},
		{"time range", driver.ListJobsParams{FinalizedFrom: time.Now().Add(-90 * time.Minute),
			FinalizedTo: time.Now().Add(-30 * time.Minute)}, `finalized_at BETWEEN now() - interval '90 minutes' AND now() - interval '30 minutes'`},
		{"queue and tag", driver.ListJobsParams{Queue: "live", Tag: "red"}, `queue = 'live' AND 'red' = ANY (tags)`},
	} {
		rows, _, err := d.ListJobs(ctx, pool, driver.ListJobsParams{Queue: c.p.Queue, Kind: c.p.Kind, Tag: c.p.Tag,
			States: c.p.States, FinalizedFrom: c.p.FinalizedFrom, FinalizedTo: c.p.FinalizedTo, Limit: 1000})
		if err != nil {
			t.Fatalf("ListJobs(%s): %v", c.name, err)
		}
		wantIDs := jobIDs(t, pool, `SELECT id FROM awa.jobs WHERE `+c.query+` ORDER BY id DESC`)
		if len(wantIDs) == 0 {
			t.Fatalf("fixture: no job for filter %s", c.name)
		}
		if g := listingIDs(rows); !slices.Equal(g, wantIDs) {
			t.Fatalf("ListJobs(%s) = %v, want %v", c.name, g, wantIDs)
		}
	}

	all, _, err := d.ListJobs(ctx, pool, driver.ListJobsParams{Limit: 1000})
	if err != nil {
		t.Fatal(err)
	}
	var archived int
	for _, r := range all {
		j, err := d.GetJob(ctx, pool, r.ID)
		if err != nil {
			t.Fatalf("GetJob(%d): %v", r.ID, err)
		}
		if fmt.Sprintf("%+v", j) != fmt.Sprintf("%+v", r) {
			t.Fatalf("GetJob(%d) = %+v,\nthe listing shows %+v", r.ID, j, r)
		}
		if r.ExpiresAt != nil {
			archived++
			if r.FinalizedAt == nil || r.State == driver.StateRunning {
				t.Fatalf("archived job %+v: want a finished job", r)
			}
		}
	}
	if archived != 10 {
		t.Fatalf("%d archived jobs listed, want 10", archived)
	}
	if _, err := d.GetJob(ctx, pool, 0); !errors.Is(err, driver.ErrJobNotFound) {
		t.Fatalf("GetJob(0) = %v, want ErrJobNotFound", err)
	}
}

// TestListJobsRefusesBadInput: each bad input maps to its sentinel error.
func TestListJobsRefusesBadInput(t *testing.T) {
	ctx, pool := parallelDB(t, time.Minute)
	d := driver.New()
	for _, c := range []struct {
		p    driver.ListJobsParams
		want error
	}{
		{driver.ListJobsParams{Limit: 1001}, driver.ErrInvalidArgument},
		{driver.ListJobsParams{Limit: -1}, driver.ErrInvalidArgument},
		{driver.ListJobsParams{States: []driver.JobState{"finished"}}, driver.ErrInvalidArgument},
		{driver.ListJobsParams{FinalizedFrom: time.Now(), FinalizedTo: time.Now().Add(-time.Hour)}, driver.ErrInvalidArgument},
		{driver.ListJobsParams{Queue: "no spaces"}, driver.ErrInvalidQueue},
		{driver.ListJobsParams{Kind: strings.Repeat("k", 256)}, driver.ErrInvalidKind},
		{driver.ListJobsParams{Tag: strings.Repeat("t", 101)}, driver.ErrInvalidTags},
	} {
		if _, _, err := d.ListJobs(ctx, pool, c.p); !errors.Is(err, c.want) {
			t.Errorf("ListJobs(%+v) = %v, want %v", c.p, err, c.want)
		}
	}
}

// listingFixture enqueues 40 jobs: 10 of queue arch completed an hour ago
// and archived by a queue-ring prune (every other one tagged red), then 30
// of queue live (every third tagged red, every other of kind odd.k), of
// which 10 completed and 5 running.
func listingFixture(ctx context.Context, t *testing.T, pool *pgxpool.Pool) {
	t.Helper()
	// One connection: the temp tables live in its session.
	conn, err := pool.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Release()
	for _, q := range []string{
		`SELECT awa.insert_jobs(array_fill('arch.k'::text, ARRAY[10]), NULL,
		        ARRAY(SELECT jsonb_build_object('queue', 'arch', 'tags', CASE WHEN g % 2 = 0 THEN '["red"]'::jsonb ELSE '[]' END)
		              FROM generate_series(1, 10) g))`,
		`CREATE TEMP TABLE c AS SELECT * FROM awa.claim_ready_runtime('arch', 10)`,
		`SELECT awa.complete_jobs(array_agg(id), array_agg(run_lease), array_agg(claim_slot), array_agg(receipt_id),
		                          now() - interval '1 hour') FROM c`,
		`SELECT awa.rotate_ring('queue')`,
		`SELECT awa.prune_ring('queue')`,
		`SELECT awa.insert_jobs(ARRAY(SELECT CASE WHEN g % 2 = 0 THEN 'odd.k' ELSE 'live.k' END FROM generate_series(1, 30) g),
		        NULL, ARRAY(SELECT jsonb_build_object('queue', 'live', 'tags', CASE WHEN g % 3 = 0 THEN '["red"]'::jsonb ELSE '[]' END)
		                    FROM generate_series(1, 30) g))`,
		`CREATE TEMP TABLE l AS SELECT * FROM awa.claim_ready_runtime('live', 15)`,
		`SELECT awa.complete_jobs(array_agg(id), array_agg(run_lease), array_agg(claim_slot), array_agg(receipt_id))
		 FROM (SELECT * FROM l ORDER BY id LIMIT 10) AS done`,
	} {
		if _, err := conn.Exec(ctx, q); err != nil {
			t.Fatalf("fixture %.60q: %v", q, err)
		}
	}
}

func jobIDs(t *testing.T, pool *pgxpool.Pool, query string) []int64 {
	t.Helper()
	rows, err := pool.Query(t.Context(), query)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			t.Fatal(err)
		}
		out = append(out, id)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func listingIDs(rows []driver.JobListing) []int64 {
	out := make([]int64, len(rows))
	for i, r := range rows {
		out[i] = r.ID
	}
	return out
}

// TestListDLQJobsPagesTheDLQAlone: ListDLQJobs pages through the DLQ's jobs
// only, newest first, past pages of failed jobs the DLQ does not hold, each
// page full until the last; states or a time range are refused.
func TestListDLQJobsPagesTheDLQAlone(t *testing.T) {
	ctx, pool := parallelDB(t, time.Minute)
	d := driver.New()
	if _, err := pool.Exec(ctx, `SELECT awa.configure_queue('held', '{"dlq": true}')`); err != nil {
		t.Fatal(err)
	}
	// Alternately a DLQ job (queue held) and two failed ones (queue lost).
	var want []int64
	for i := range 15 {
		queue := "lost"
		if i%3 == 0 {
			queue = "held"
		}
		id := jobIDs(t, pool, fmt.Sprintf(`
			WITH j AS (SELECT id FROM awa.insert_job('dlq.k', '{}', '{"queue": "%s", "max_attempts": 1}')),
			     c AS (SELECT c.* FROM j, awa.claim_ready_runtime('%[1]s', 1) AS c)
			SELECT f.job_id FROM c, awa.fail_jobs(ARRAY[c.id], ARRAY[c.run_lease], ARRAY[c.claim_slot],
			                                      ARRAY[c.receipt_id], ARRAY['boom']) AS f`, queue))[0]
		if queue == "held" {
			want = append([]int64{id}, want...)
		}
	}
	var got []int64
	var after int64
	for {
		rows, next, err := d.ListDLQJobs(ctx, pool, driver.ListJobsParams{After: after, Limit: 2})
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range rows {
			if !r.DLQ || r.State != driver.StateFailed {
				t.Fatalf("ListDLQJobs listed job %d, %s, dlq %v", r.ID, r.State, r.DLQ)
			}
		}
		got = append(got, listingIDs(rows)...)
		if next == 0 {
			break
		}
		if len(rows) != 2 || next != rows[1].ID {
			t.Fatalf("a page of %d rows with next cursor %d", len(rows), next)
		}
		after = next
	}
	if !slices.Equal(got, want) {
		t.Fatalf("DLQ pages of 2: %v, want %v", got, want)
	}
	for _, p := range []driver.ListJobsParams{{States: []driver.JobState{driver.StateFailed}},
		{FinalizedFrom: time.Now().Add(-time.Hour)}} {
		if _, _, err := d.ListDLQJobs(ctx, pool, p); !errors.Is(err, driver.ErrInvalidArgument) {
			t.Fatalf("ListDLQJobs(%+v): %v, want ErrInvalidArgument", p, err)
		}
	}
}
