package listing

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/awa-queue/awa/internal/pgtest"
)

// TestDLQListingReadsTheDLQAloneByIndex: on a database holding 200,000
// failed jobs outside the DLQ (archived, newer than every DLQ job) and
// 20,005 DLQ jobs, awa.list_dlq_jobs reads the DLQ alone (no archive, ring
// or backlog relation in its plan), walks its primary key from the cursor
// (no sort, no sequential scan), reads about a page of DLQ rows when
// unfiltered, and its pages are the DLQ's newest jobs. The failed listing of
// awa.list_jobs, which `awa dlq list` used to filter page after page, holds
// no DLQ job in its first page here: the CLI walked 4,000 pages (70 s)
// before it found one.
func TestDLQListingReadsTheDLQAloneByIndex(t *testing.T) {
	ctx := pgtest.Context(t, 2*time.Minute)
	pool := pgtest.NewDB(t)
	conn, err := pool.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Release()
	db := conn.Conn()
	start := time.Now()
	for _, stmt := range []string{
		`SELECT count(awa._create_archive_cohort(g)) FROM generate_series(date_trunc('hour', now(), 'UTC'),
		   date_trunc('hour', now() + interval '7 days 1 hour', 'UTC'), interval '1 hour') AS g`,
		// The DLQ: 20,000 jobs of queue noise (a tenth of kind rare.k), then 5
		// of queue dq, all older than the failures outside it.
		`INSERT INTO awa.dlq_entries (job_id, run_lease, attempt, max_attempts, priority, queue, kind, args, tags, metadata,
		                              errors, created_at, run_at, failed_at)
		 SELECT i, 1, 1, 1, 2, CASE WHEN i > 20000 THEN 'dq' ELSE 'noise' END,
		        CASE WHEN i % 10 = 0 THEN 'rare.k' ELSE 'common.k' END, '{}', '{}', '{}', '[{"error": "boom"}]',
		        now() - interval '3 days', now() - interval '3 days', now() - interval '3 days' + i * interval '1 ms'
		 FROM generate_series(1, 20005) AS i`,
		// 200,000 failed jobs outside the DLQ, archived over the last day, in
		// chunks as the copy cuts them (awa._archive_slot).
		`INSERT INTO awa.archived_chunks (expires_at, state, queue, kind, chunk_id, min_job_id, max_job_id, n, job_ids,
		                                  run_leases, attempts, max_attempts, priorities, args, tags, metadata, errors,
		                                  created_ats, run_ats, finalized_ats)
		 SELECT max(c.at) + interval '7 days', 'failed', c.queue, 'common.k', nextval('awa.archive_chunk_id_seq'),
		        min(c.id), max(c.id), count(*), array_agg(c.id ORDER BY c.id), array_agg(1::bigint ORDER BY c.id),
		        array_agg(1 ORDER BY c.id), array_agg(25 ORDER BY c.id), array_agg(2::smallint ORDER BY c.id),
		        array_agg('{}'::jsonb ORDER BY c.id), NULL, array_agg('{}'::jsonb ORDER BY c.id),
		        array_agg('[{"error": "boom"}]'::jsonb ORDER BY c.id), array_agg(c.at ORDER BY c.id),
		        array_agg(c.at ORDER BY c.id), array_agg(c.at ORDER BY c.id)
		 FROM (SELECT 100000 + i AS id, 'q' || (i % 5) AS queue, f.at,
		              date_trunc('hour', f.at + interval '7 days', 'UTC') AS cohort,
		              (100000 + i) / awa._archive_span() AS block,
		              (row_number() OVER (PARTITION BY i % 5, date_trunc('hour', f.at + interval '7 days', 'UTC'),
		                                               (100000 + i) / awa._archive_span() ORDER BY i) - 1) / 1000 AS part
		       FROM generate_series(1, 200000) AS i
		       CROSS JOIN LATERAL (SELECT now() - interval '1 day' + (i / 200000.0) * interval '23 hours' AS at) AS f) AS c
		 GROUP BY c.queue, c.cohort, c.block, c.part`,
		`SELECT setval('awa.job_id_seq', 400000)`,
		`ANALYZE`,
	} {
		exec(ctx, t, db, stmt)
	}
	t.Logf("data set built in %s", time.Since(start).Round(time.Millisecond))
	rowsOf := relationRows(ctx, t, db)
	plans := captureWith(ctx, t, pool)

	if got := ids(ctx, t, db, `SELECT id FROM awa.list_jobs(p_states => '{failed}', p_limit => 50) WHERE dlq`); len(got) != 0 {
		t.Fatalf("the failed listing's first page holds DLQ jobs %v; the data set should bury them", got)
	}
	const statement = "SELECT x.job_id, x.queue"
	for _, c := range []struct {
		name, args, ref string
		after           int64
		// readBound: at most this many DLQ rows read (returned or filtered).
		readBound int
	}{
		{"none", ``, `true`, 0, pageSize},
		{"page 2", ``, `true`, 19990, pageSize},
		{"kind in a tenth of the DLQ", `p_kind => 'rare.k', `, `kind = 'rare.k'`, 0, 10*pageSize + 10},
		{"queue", `p_queue => 'noise', `, `queue = 'noise'`, 0, pageSize + 5},
	} {
		t.Run(c.name, func(t *testing.T) {
			call := func(after int64) string {
				if after == 0 {
					return fmt.Sprintf(`SELECT id FROM awa.list_dlq_jobs(%sp_limit => %d)`, c.args, pageSize)
				}
				return fmt.Sprintf(`SELECT id FROM awa.list_dlq_jobs(%sp_after => %d, p_limit => %d)`, c.args, after, pageSize)
			}
			plan, got1 := plans.runStatement(ctx, t, call(c.after), statement)
			checkPlan(t, plan, rowsOf, false)
			read := 0
			plan.walk(func(n planNode) {
				if n.Relation == "" || !strings.HasSuffix(n.NodeType, "Scan") {
					return
				}
				switch n.Relation {
				case "dlq_entries":
					read += int((n.ActualRows + n.RemovedFilter) * max(n.ActualLoops, 1))
				case "attempt_state":
				default:
					t.Errorf("%s: the plan reads %s (%s); a DLQ listing reads dlq_entries and attempt_state only",
						c.name, n.Relation, n.NodeType)
				}
			})
			t.Logf("%s: %d DLQ rows read", c.name, read)
			if read > c.readBound {
				t.Errorf("%s: %d DLQ rows read, want at most %d", c.name, read, c.readBound)
			}
			_, got2 := plans.runStatement(ctx, t, call(got1[len(got1)-1]), statement)
			ref := c.ref
			if c.after != 0 {
				ref += fmt.Sprintf(` AND job_id < %d`, c.after)
			}
			want := ids(ctx, t, db, fmt.Sprintf(`SELECT job_id FROM awa.dlq_entries WHERE %s ORDER BY job_id DESC LIMIT %d`,
				ref, 2*pageSize))
			if got := append(got1, got2...); !slices.Equal(got, want) {
				t.Fatalf("%s: pages 1 and 2 = %v,\nwant the DLQ's first %d: %v", c.name, got, 2*pageSize, want)
			}
			t.Logf("%s: p50 %s", c.name, p50(ctx, t, db, call(c.after)))
		})
	}
}
