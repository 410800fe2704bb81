// Package listing proves that awa.list_jobs and awa.get_job are served by
// indexes at scale: on a database holding over 1,000,000 archived jobs (a
// week of the default retentions, ~170 hourly cohorts) and 100,000 live ones
// (available, running, completed in the queue ring, failed, cancelled,
// scheduled, retryable), the plan of the statement each call runs, as
// auto_explain logs it from inside the function, has no sequential scan of
// a relation over 10,000 rows and no sort but of the archive's page (at most
// a page of rows, which awa._archive_page returns unordered) and of the batch
// plane's page and rows (batch_page, awa._batch_items); the walk of the
// archive's chunks inside that function (awa._archive_walk_sql, logged as a
// nested statement) has neither, and reads a bounded number of chunk rows;
// two pages of each listing are the first rows of awa.jobs with the same
// filter. Each call's latency is logged (p50 of 5),
// not asserted (docs/storage.md, "Paging").
package listing

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/awa-queue/awa/internal/pgtest"
)

const (
	pageSize = 50
	// seqScanLimit: a relation with more rows than this is never scanned
	// sequentially.
	seqScanLimit = 10_000
)

// TestListingsAreIndexServedOnAMillionArchivedJobs builds the data set, then
// for each filter checks the plan and the two first pages.
func TestListingsAreIndexServedOnAMillionArchivedJobs(t *testing.T) {
	ctx := pgtest.Context(t, 4*time.Minute)
	pool := pgtest.NewDB(t)
	start := time.Now()
	conn, err := pool.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Release()
	db := conn.Conn()
	buildDataSet(ctx, t, db)
	var archived, live int64
	if err := db.QueryRow(ctx, `SELECT (SELECT sum(n) FROM awa.archived_chunks), (SELECT count(*) FROM awa.jobs) -
	                                    (SELECT sum(n) FROM awa.archived_chunks)`).Scan(&archived, &live); err != nil {
		t.Fatal(err)
	}
	if archived < 1_000_000 || live < 100_000 {
		t.Fatalf("data set: %d archived and %d live jobs, want at least 1,000,000 and 100,000", archived, live)
	}
	// The reference: awa.jobs, read once (the view reads every job).
	exec(ctx, t, db, `CREATE TEMP TABLE ref AS SELECT id, state, queue, kind, tags, finalized_at FROM awa.jobs`)
	exec(ctx, t, db, `CREATE INDEX ON ref (id)`)
	exec(ctx, t, db, `ANALYZE ref`)
	t.Logf("data set: %d archived, %d live jobs, built in %s", archived, live, time.Since(start).Round(time.Second))

	rowsOf := relationRows(ctx, t, db)
	var cohorts int
	if err := db.QueryRow(ctx, `SELECT count(*) FROM awa.archive_cohorts`).Scan(&cohorts); err != nil {
		t.Fatal(err)
	}
	plans := captureWith(ctx, t, pool)
	// Chunk rows a page's walk may read: the first entry of each index walk
	// (one per cohort, or per cohort and state) that the Merge Append
	// starts, and the chunks of the window [after, after + span) that it
	// skips or merges: for each of the 20 (queue, kind) groups of the data
	// set, a few chunks per state.
	bound := 3*cohorts + 3*20*4

	var page2After int64
	if err := db.QueryRow(ctx, `SELECT min(id) FROM (SELECT id FROM ref ORDER BY id DESC LIMIT $1) p`, pageSize).
		Scan(&page2After); err != nil {
		t.Fatal(err)
	}
	// One clock for the listing and its reference.
	from, to := time.Now().Add(-3*time.Hour).UTC().Format(time.RFC3339Nano), time.Now().Add(-2*time.Hour).UTC().Format(time.RFC3339Nano)
	// Live jobs have ids above 5,000,000: a filter only the archive matches
	// (queue q7, tag u3), or a cursor below them, pages the archive.
	for _, c := range []struct {
		name  string
		args  string // named arguments of awa.list_jobs
		after int64  // the first page's cursor (0: none)
		ref   string // the same filter on ref
		// archiveBound: at most this many chunk rows read by the walk (index
		// rows returned and rows a filter removed); 0: not bounded here (a
		// time range reads the cohorts it implies, filtering finalized_at).
		archiveBound int
	}{
		{"none", ``, 0, `true`, bound},
		{"page 2", ``, page2After, `true`, bound},
		{"page in the archive", ``, 3_000_000, `true`, bound},
		{"state failed", `p_states => '{failed}', `, 0, `state = 'failed'`, bound},
		{"state running", `p_states => '{running}', `, 0, `state = 'running'`, bound},
		{"queue, live and archived", `p_queue => 'q3', `, 0, `queue = 'q3'`, bound},
		{"queue, archived", `p_queue => 'q7', `, 0, `queue = 'q7'`, bound},
		{"kind", `p_kind => 'kind_7', `, 0, `kind = 'kind_7'`, bound},
		{"kind in the archive", `p_kind => 'kind_7', `, 5_000_000, `kind = 'kind_7'`, bound},
		{"tag, live and archived", `p_tag => 't10', `, 0, `'t10' = ANY (tags)`, bound},
		{"tag, archived", `p_tag => 'u3', `, 0, `'u3' = ANY (tags)`, bound},
		{"time range", fmt.Sprintf(`p_from => '%s', p_to => '%s', `, from, to), 0,
			fmt.Sprintf(`finalized_at >= '%s' AND finalized_at < '%s'`, from, to), 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			call := func(after int64) string {
				if after == 0 {
					return fmt.Sprintf(`SELECT id FROM awa.list_jobs(%sp_limit => %d)`, c.args, pageSize)
				}
				return fmt.Sprintf(`SELECT id FROM awa.list_jobs(%sp_after => %d, p_limit => %d)`, c.args, after, pageSize)
			}
			run, got1 := plans.run(ctx, t, call(c.after))
			checkPlan(t, run.listing, rowsOf, true)
			read := 0
			if run.walk != nil {
				checkPlan(t, *run.walk, rowsOf, false)
				read = archiveRowsRead(*run.walk)
			} else if c.archiveBound > 0 && c.name != "state running" {
				t.Fatalf("%s: auto_explain logged no walk of the archive's chunks", c.name)
			}
			t.Logf("%s: %d chunk rows read, %d chunks merged", c.name, read, run.merges)
			if c.archiveBound > 0 && read > c.archiveBound {
				t.Errorf("%s: %d chunk rows read, want at most %d (an index walk per cohort and state, then the chunks of a page)",
					c.name, read, c.archiveBound)
			}
			if len(got1) == 0 {
				t.Fatalf("%s: an empty first page", c.name)
			}
			_, got2 := plans.run(ctx, t, call(got1[len(got1)-1]))
			ref := c.ref
			if c.after != 0 {
				ref += fmt.Sprintf(` AND id < %d`, c.after)
			}
			want := ids(ctx, t, db, fmt.Sprintf(`SELECT id FROM ref WHERE %s ORDER BY id DESC LIMIT %d`, ref, 2*pageSize))
			if got := append(got1, got2...); !slices.Equal(got, want) {
				t.Fatalf("%s: pages 1 and 2 = %v,\nwant the first %d of awa.jobs: %v", c.name, got, 2*pageSize, want)
			}
			t.Logf("%s: p50 %s", c.name, p50(ctx, t, db, call(c.after)))
		})
	}

	// get_job: one job of each plane, by id.
	for _, c := range []struct{ name, where string }{
		{"archived", `id < 4000000`},
		{"available", `state = 'available'`},
		{"running", `state = 'running'`},
		{"completed in the ring", `state = 'completed' AND id > 4900000`},
		{"scheduled", `state = 'scheduled'`},
	} {
		t.Run("get_job "+c.name, func(t *testing.T) {
			var id int64
			if err := db.QueryRow(ctx, `SELECT max(id) FROM ref WHERE `+c.where).Scan(&id); err != nil {
				t.Fatal(err)
			}
			query := fmt.Sprintf(`SELECT id FROM awa.get_job(%d)`, id)
			run, got := plans.run(ctx, t, query)
			checkPlan(t, run.listing, rowsOf, false)
			if !slices.Equal(got, []int64{id}) {
				t.Fatalf("get_job(%d) = %v", id, got)
			}
			t.Logf("get_job %s: p50 %s", c.name, p50(ctx, t, db, query))
		})
	}
}

// buildDataSet runs testdata/dataset.sql one statement (paragraph) at a
// time; bench/sql/listing_latency.sql builds the same with psql.
func buildDataSet(ctx context.Context, t *testing.T, db *pgx.Conn) {
	t.Helper()
	raw, err := os.ReadFile("testdata/dataset.sql")
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	for _, stmt := range strings.Split(string(raw), "\n\n") {
		if code := strings.TrimSpace(stripComments(stmt)); code != "" {
			exec(ctx, t, db, stmt)
			t.Logf("%.60s... done at %s", strings.Join(strings.Fields(code), " "), time.Since(start).Round(time.Second))
		}
	}
}

// stripComments drops the lines that are only a comment.
func stripComments(s string) string {
	var keep []string
	for _, l := range strings.Split(s, "\n") {
		if !strings.HasPrefix(strings.TrimSpace(l), "--") {
			keep = append(keep, l)
		}
	}
	return strings.Join(keep, "\n")
}

// relationRows returns the planner's row count of every relation of schema
// awa.
func relationRows(ctx context.Context, t *testing.T, db *pgx.Conn) map[string]float64 {
	t.Helper()
	rows, err := db.Query(ctx, `SELECT relname, reltuples::float8 FROM pg_class WHERE relnamespace = 'awa'::regnamespace`)
	if err != nil {
		t.Fatal(err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (struct {
		name string
		n    float64
	}, error) {
		var v struct {
			name string
			n    float64
		}
		return v, r.Scan(&v.name, &v.n)
	})
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]float64{}
	for _, v := range out {
		m[v.name] = v.n
	}
	return m
}

// planNode is a node of EXPLAIN (FORMAT JSON) output.
type planNode struct {
	NodeType string `json:"Node Type"`
	Relation string `json:"Relation Name"`
	Function string `json:"Function Name"`
	Alias    string `json:"Alias"`
	// ParentRelationship: how the node feeds its parent ("Outer", "InitPlan", ...).
	ParentRelationship string     `json:"Parent Relationship"`
	ActualRows         float64    `json:"Actual Rows"`
	ActualLoops        float64    `json:"Actual Loops"`
	RemovedFilter      float64    `json:"Rows Removed by Filter"`
	Plans              []planNode `json:"Plans"`
}

func (n planNode) walk(visit func(planNode)) {
	visit(n)
	for _, c := range n.Plans {
		c.walk(visit)
	}
}

// checkPlan fails the test for a sequential scan of a relation over
// seqScanLimit rows or for any sort; with pageSorts, but the sorts of what
// cannot come in job order, each bounded (which it also checks): the rows
// awa._archive_page returns (at most a page: the function keeps the best
// limit jobs of the archive, unordered), the batch plane's page (batch_page,
// the walk of awa.ready_batches: at most a page) and, inside that walk, one
// batch row's items (awa._batch_items: at most 1,024).
func checkPlan(t *testing.T, plan planNode, rowsOf map[string]float64, pageSorts bool) {
	t.Helper()
	var check func(n planNode, inBatchPage bool)
	check = func(n planNode, inBatchPage bool) {
		switch n.NodeType {
		case "Seq Scan":
			if rowsOf[n.Relation] > seqScanLimit {
				t.Errorf("Seq Scan on %s (%.0f rows)", n.Relation, rowsOf[n.Relation])
			}
		case "Sort", "Incremental Sort":
			if pageSorts && !pageSort(t, n) && !(inBatchPage && rowSort(t, n)) {
				t.Errorf("%s node: a listing must read its planes in job order, not sort them", n.NodeType)
			}
		}
		inBatchPage = inBatchPage || (n.NodeType == "Subquery Scan" && n.Alias == "batch_page")
		for _, c := range n.Plans {
			check(c, inBatchPage)
		}
	}
	check(plan, false)
}

// pageSort: whether sort node n sorts a page (at most pageSize rows) that
// cannot come in job order: awa._archive_page's or the batch plane's
// (batch_page).
func pageSort(t *testing.T, n planNode) bool {
	t.Helper()
	for _, c := range n.Plans {
		if c.ParentRelationship == "Outer" && (c.NodeType == "Function Scan" && c.Function == "_archive_page" ||
			c.NodeType == "Subquery Scan" && c.Alias == "batch_page") {
			if c.ActualRows > pageSize {
				t.Errorf("%s %s returned %.0f rows, want at most a page (%d)", c.NodeType, c.Function+c.Alias,
					c.ActualRows, pageSize)
			}
			return true
		}
	}
	return false
}

// rowSort: whether sort node n, inside the batch plane's walk, sorts at
// most one batch row's items (1,024) per loop.
func rowSort(t *testing.T, n planNode) bool {
	t.Helper()
	for _, c := range n.Plans {
		if c.ParentRelationship == "Outer" {
			if c.ActualRows > 1024 {
				t.Errorf("a sort in the batch plane's walk of %.0f rows, want at most a row's 1,024", c.ActualRows)
			}
			return true
		}
	}
	return false
}

// archiveRowsRead: the rows the plan's scans of archive cohorts (chunks or
// tag rows) returned or filtered out, over every loop.
func archiveRowsRead(plan planNode) int {
	var n float64
	plan.walk(func(p planNode) {
		if (strings.HasPrefix(p.Relation, "archived_chunks_") || strings.HasPrefix(p.Relation, "archived_tags_")) &&
			strings.HasSuffix(p.NodeType, "Scan") {
			n += (p.ActualRows + p.RemovedFilter) * max(p.ActualLoops, 1)
		}
	})
	return int(n)
}

// planCapture runs a query on a connection of its own with auto_explain
// logging every statement (nested ones included, analyzed, as JSON) to the
// client, and keeps the plan of the listing's statement.
type planCapture struct {
	conn *pgx.Conn
	mu   sync.Mutex
	logs []string
}

func captureWith(ctx context.Context, t *testing.T, pool *pgxpool.Pool) *planCapture {
	t.Helper()
	pc := &planCapture{}
	cfg := pool.Config().ConnConfig.Copy()
	cfg.OnNotice = func(_ *pgconn.PgConn, n *pgconn.Notice) {
		if n.SeverityUnlocalized == "LOG" {
			pc.mu.Lock()
			pc.logs = append(pc.logs, n.Message)
			pc.mu.Unlock()
		}
	}
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	for _, s := range []string{`LOAD 'auto_explain'`, `SET auto_explain.log_min_duration = 0`,
		`SET auto_explain.log_nested_statements = on`, `SET auto_explain.log_format = 'json'`,
		`SET auto_explain.log_analyze = on`, `SET auto_explain.log_timing = off`, `SET client_min_messages = log`} {
		exec(ctx, t, conn, s)
	}
	pc.conn = conn
	return pc
}

// capturedRun is what one call logged: the plan of the listing's statement,
// the plan of the walk of the archive's chunks (nil when the call read the
// archive by id), and how many chunks the walk merged (awa._archive_page's
// per-chunk statement).
type capturedRun struct {
	listing planNode
	walk    *planNode
	merges  int
}

// loggedPlan is one statement auto_explain logged: its text and plan.
type loggedPlan struct {
	QueryText string   `json:"Query Text"`
	Plan      planNode `json:"Plan"`
}

// runLogged runs query and returns every plan auto_explain logged for it
// (the function's nested statements included), and the ids it returned.
func (pc *planCapture) runLogged(ctx context.Context, t *testing.T, query string) ([]loggedPlan, []int64) {
	t.Helper()
	pc.mu.Lock()
	pc.logs = nil
	pc.mu.Unlock()
	got := ids(ctx, t, pc.conn, query)
	pc.mu.Lock()
	defer pc.mu.Unlock()
	var out []loggedPlan
	for _, l := range pc.logs {
		i := strings.Index(l, "{")
		if i < 0 {
			continue
		}
		var logged loggedPlan
		if err := json.Unmarshal([]byte(l[i:]), &logged); err != nil {
			t.Fatalf("auto_explain output: %v: %.200s", err, l)
		}
		logged.QueryText = strings.TrimSpace(logged.QueryText)
		out = append(out, logged)
	}
	return out, got
}

// run runs query (a call of awa.list_jobs or awa.get_job) and returns the
// plans the function executed, and the ids the call returned.
func (pc *planCapture) run(ctx context.Context, t *testing.T, query string) (capturedRun, []int64) {
	t.Helper()
	logged, got := pc.runLogged(ctx, t, query)
	var out capturedRun
	found := false
	for _, l := range logged {
		switch {
		case strings.HasPrefix(l.QueryText, "SELECT u.id, u.queue"):
			out.listing, found = l.Plan, true
		case strings.HasPrefix(l.QueryText, "SELECT * FROM ((SELECT c.expires_at"),
			strings.HasPrefix(l.QueryText, "SELECT c.expires_at"),
			strings.HasPrefix(l.QueryText, "SELECT t.expires_at"):
			plan := l.Plan
			out.walk = &plan
		case strings.HasPrefix(l.QueryText, "SELECT coalesce(array_agg(h.id"):
			out.merges++
		}
	}
	if !found {
		t.Fatalf("%s: auto_explain logged no plan of the listing's statement (%d plans)", query, len(logged))
	}
	return out, got
}

// runStatement runs query and returns the plan of the statement it executed
// whose text starts with prefix, and the ids the call returned.
func (pc *planCapture) runStatement(ctx context.Context, t *testing.T, query, prefix string) (planNode, []int64) {
	t.Helper()
	logged, got := pc.runLogged(ctx, t, query)
	for _, l := range logged {
		if strings.HasPrefix(l.QueryText, prefix) {
			return l.Plan, got
		}
	}
	t.Fatalf("%s: auto_explain logged no plan of a statement starting %q (%d plans)", query, prefix, len(logged))
	return planNode{}, nil
}

// p50 runs query 5 times and returns the median duration.
func p50(ctx context.Context, t *testing.T, db *pgx.Conn, query string) time.Duration {
	t.Helper()
	var d []time.Duration
	for i := 0; i < 5; i++ {
		start := time.Now()
		ids(ctx, t, db, query)
		d = append(d, time.Since(start))
	}
	sort.Slice(d, func(i, j int) bool { return d[i] < d[j] })
	return d[len(d)/2].Round(100 * time.Microsecond)
}

func ids(ctx context.Context, t *testing.T, db *pgx.Conn, query string) []int64 {
	t.Helper()
	rows, err := db.Query(ctx, query)
	if err != nil {
		t.Fatalf("%.120s: %v", query, err)
	}
	out, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	if err != nil {
		t.Fatalf("%.120s: %v", query, err)
	}
	return out
}

func exec(ctx context.Context, t *testing.T, db *pgx.Conn, sql string) {
	t.Helper()
	if _, err := db.Exec(ctx, sql); err != nil {
		t.Fatalf("%.120s: %v", strings.Join(strings.Fields(sql), " "), err)
	}
}
