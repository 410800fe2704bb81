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

// TestListDLQJobsPagesTheDLQAlone: ListDLQJobs returns the DLQ's jobs as
// ListJobs shows them (failed, DLQ), newest first, with the cursor of the
// next page, and leaves out a failed job outside the DLQ; a bad input maps
// to its sentinel.
func TestListDLQJobsPagesTheDLQAlone(t *testing.T) {
	ctx, pool := parallelDB(t, time.Minute)
	d := driver.New()
	for _, q := range []string{
		`SELECT awa.configure_queue('held', '{"dlq": true}')`,
		`SELECT awa.insert_jobs(array_fill('dlq.k'::text, ARRAY[3]), NULL, array_fill('{"queue": "held", "max_attempts": 1}'::jsonb, ARRAY[3]))`,
		`SELECT awa.insert_jobs(array_fill('dlq.k'::text, ARRAY[2]), NULL, array_fill('{"queue": "loose", "max_attempts": 1}'::jsonb, ARRAY[2]))`,
		`WITH c AS MATERIALIZED (SELECT * FROM awa.claim_ready_runtime('held', 3) UNION ALL SELECT * FROM awa.claim_ready_runtime('loose', 2))
		 SELECT count(*) FROM awa.fail_jobs(ARRAY(SELECT id FROM c ORDER BY id), ARRAY(SELECT run_lease FROM c ORDER BY id),
		        ARRAY(SELECT claim_slot FROM c ORDER BY id), ARRAY(SELECT receipt_id FROM c ORDER BY id), array_fill('boom'::text, ARRAY[5]))`,
	} {
		if _, err := pool.Exec(ctx, q); err != nil {
			t.Fatalf("fixture %.60q: %v", q, err)
		}
	}
	want := jobIDs(t, pool, `SELECT id FROM awa.list_jobs(p_states => '{failed}') WHERE dlq`)
	if len(want) != 3 {
		t.Fatalf("fixture: DLQ jobs %v, want 3", want)
	}
	first, next, err := d.ListDLQJobs(ctx, pool, driver.ListDLQJobsParams{Limit: 2})
	if err != nil || !slices.Equal(listingIDs(first), want[:2]) || next != want[1] {
		t.Fatalf("ListDLQJobs(limit 2) = %v, next %d, %v; want %v, next %d", listingIDs(first), next, err, want[:2], want[1])
	}
	if !first[0].DLQ || first[0].State != driver.StateFailed || first[0].Queue != "held" || first[0].FinalizedAt == nil {
		t.Fatalf("a DLQ listing row: %+v", first[0])
	}
	rest, next, err := d.ListDLQJobs(ctx, pool, driver.ListDLQJobsParams{After: next, Limit: 2})
	if err != nil || !slices.Equal(listingIDs(rest), want[2:]) || next != 0 {
		t.Fatalf("ListDLQJobs(after) = %v, next %d, %v; want %v and no next page", listingIDs(rest), next, err, want[2:])
	}
	if none, _, err := d.ListDLQJobs(ctx, pool, driver.ListDLQJobsParams{Queue: "loose"}); err != nil || len(none) != 0 {
		t.Fatalf("ListDLQJobs(queue loose) = %v, %v; want no job (its failures are outside the DLQ)", listingIDs(none), err)
	}
	for _, c := range []struct {
		p    driver.ListDLQJobsParams
		want error
	}{
		{driver.ListDLQJobsParams{Limit: 1001}, driver.ErrInvalidArgument},
		{driver.ListDLQJobsParams{Queue: "no spaces"}, driver.ErrInvalidQueue},
		{driver.ListDLQJobsParams{Kind: strings.Repeat("k", 256)}, driver.ErrInvalidKind},
		{driver.ListDLQJobsParams{Tag: strings.Repeat("t", 101)}, driver.ErrInvalidTags},
	} {
		if _, _, err := d.ListDLQJobs(ctx, pool, c.p); !errors.Is(err, c.want) {
			t.Errorf("ListDLQJobs(%+v) = %v, want %v", c.p, err, c.want)
		}
	}
}
