package sqlrace

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

// unprobedScans walks an auto_explain JSON plan and returns each scan of a
// table that is not an index probe with a condition: a sequential scan, or
// an index scan that reads the whole index (a filter or a join filter then
// tests every row against every candidate). With loopedOnly, only scans run
// more than once in the statement count.
func unprobedScans(node map[string]any, loopedOnly bool, out *[]string) {
	nodeType, _ := node["Node Type"].(string)
	loops, _ := node["Actual Loops"].(float64)
	if rel, _ := node["Relation Name"].(string); rel != "" && strings.HasSuffix(nodeType, "Scan") && (!loopedOnly || loops > 1) {
		_, cond := node["Index Cond"]
		if node["Node Type"] == "Bitmap Heap Scan" {
			for _, c := range children(node) {
				if _, ok := c["Index Cond"]; ok {
					cond = true
				}
			}
		}
		if !cond {
			*out = append(*out, fmt.Sprintf("%s on %s (filter %v, %v loops)", node["Node Type"], rel, node["Filter"], loops))
		}
	}
	for _, c := range children(node) {
		unprobedScans(c, loopedOnly, out)
	}
}

func children(node map[string]any) []map[string]any {
	var out []map[string]any
	ps, _ := node["Plans"].([]any)
	for _, p := range ps {
		if m, ok := p.(map[string]any); ok {
			out = append(out, m)
		}
	}
	return out
}

// TestClaimPlansCachedWhileTheLaneTablesWereSmallStillProbeByIndex: a
// worker's session caches claim_ready_runtime's generic plans (the function
// forces them) while a keyed queue has three keys and the lane tables'
// statistics say so; producers then add 2,000 keys (a lane each). Nothing
// re-plans the claim (inserts do not invalidate a plan), so the plans made
// for three lanes run against 2,000: every statement's scan of a table (the
// lane tables queue_lanes, queue_claim_heads and key_lanes, probed once per
// candidate lane, and all the others) must still be an index probe with a
// condition. On 8c89927 the lane tables' scans were sequential scans per
// candidate lane (and, with sequential scans off alone, whole-index scans
// filtered by the 2,000-name array): 10,000 keys took 9-19 s a claim against 0.2-0.4 s with the custom
// plans of a0a1908.
func TestClaimPlansCachedWhileTheLaneTablesWereSmallStillProbeByIndex(t *testing.T) {
	ctx, pool := newDB(t, 2*time.Minute)
	const queue = "stale_kq"
	insertKeys := keyedQueue(t, ctx, pool, queue)
	staleClaimPlans(t, ctx, pool, queue, func() { insertKeys("small", 3, 10) }, func() { insertKeys("grown", 2000, 1) })
}

// TestClaimPlansCachedOnASmallQueueStillProbeByIndexOnABigBacklog: the same
// on a queue with priority aging, a rate limit and 8 shards per priority,
// its plans cached while it held 40 jobs and then run against 200,000 (the
// aging probe reads each lane's head; the lane read walks the lane index).
func TestClaimPlansCachedOnASmallQueueStillProbeByIndexOnABigBacklog(t *testing.T) {
	ctx, pool := newDB(t, 2*time.Minute)
	const queue = "stale_aged"
	if _, err := pool.Exec(ctx, `SELECT count(*) FROM awa.configure_queue($1,
		'{"aging_seconds": 60, "rate_limit": {"per_second": 100000, "burst": 100000}}')`, queue); err != nil {
		t.Fatal(err)
	}
	if _, err := pool.Exec(ctx, `SELECT awa._add_lane($1, p::smallint, 8) FROM generate_series(1, 4) p
	                             CROSS JOIN generate_series(1, 7) ORDER BY p`, queue); err != nil {
		t.Fatal(err)
	}
	insert := func(n int) {
		t.Helper()
		if _, err := pool.Exec(ctx, `
			SELECT count(*) FROM awa.insert_jobs(array_fill('k'::text, ARRAY[$2::int]), NULL,
			  ARRAY(SELECT jsonb_build_object('queue', $1::text, 'priority', 1 + i % 4) FROM generate_series(1, $2::int) i))`,
			queue, n); err != nil {
			t.Fatal(err)
		}
	}
	staleClaimPlans(t, ctx, pool, queue, func() { insert(40) }, func() {
		for i := 0; i < 20; i++ {
			insert(10000)
		}
		// The batch plane grows too (planned empty): rows behind the
		// per-row jobs in each priority's lanes, and a priority-1 backlog of
		// batch rows only in a lane of its own queue's shards.
		for p := 1; p <= 4; p++ {
			insertBatchRows(t, ctx, pool, queue, p, 50, 1000)
		}
	})
}

// TestClaimPlansCachedOnAnEmptyBatchPlaneStillProbeItByIndex: a claim's
// plans cached while awa.ready_batches was empty (and analyzed so) then run
// against 200 batch rows of 1,000 jobs a lane: the batch probes and the
// batch read must be index probes of the lane index.
func TestClaimPlansCachedOnAnEmptyBatchPlaneStillProbeItByIndex(t *testing.T) {
	ctx, pool := newDB(t, 2*time.Minute)
	const queue = "stale_batch"
	if _, err := pool.Exec(ctx, `SELECT count(*) FROM awa.configure_queue($1, '{"aging_seconds": 60}')`, queue); err != nil {
		t.Fatal(err)
	}
	insert := func(n int) {
		t.Helper()
		if _, err := pool.Exec(ctx, `SELECT count(*) FROM awa.insert_jobs(array_fill('k'::text, ARRAY[$2::int]), NULL,
			  array_fill(jsonb_build_object('queue', $1::text), ARRAY[$2::int]))`, queue, n); err != nil {
			t.Fatal(err)
		}
	}
	staleClaimPlans(t, ctx, pool, queue, func() { insert(40) }, func() {
		insertBatchRows(t, ctx, pool, queue, 2, 200, 1000)
	})
}

// insertBatchRows writes rows batch rows of perRow jobs each into the first
// shard lane of (queue, priority), as awa_test.batch_row does in pgTAP: a
// fresh block of the lane's positions and of job ids a row, the args {}.
// (Nothing in the product writes the batch plane yet.)
func insertBatchRows(t *testing.T, ctx context.Context, pool *pgxpool.Pool, queue string, priority, rows, perRow int) {
	t.Helper()
	if _, err := pool.Exec(ctx, `
		INSERT INTO awa.ready_batches (ready_slot, lane_id, first_seq, first_id, n, priority, queue, created_at,
		                               kind, max_attempts, item_args)
		SELECT awa._current_slot('queue'), l.ids[1], nextval(l.seqs[1]) * 1024,
		       setval('awa.job_id_seq', nextval('awa.job_id_seq') + 1023) - 1023, $4::int, $2::smallint, $1::text, now(),
		       'k', 25, array_fill('{}'::jsonb, ARRAY[$4::int])
		FROM awa._resolve_lanes($1::text, $2::smallint) AS l, generate_series(1, $3::int)`,
		queue, priority, rows, perRow); err != nil {
		t.Fatal(err)
	}
}

// staleClaimPlans runs small, analyzes the lane and ring tables, has a
// worker session claim queue six times (caching its plans), runs grow, then
// claims 100 jobs under auto_explain and fails on any scan of a table that
// is not an index probe with a condition.
func staleClaimPlans(t *testing.T, ctx context.Context, pool *pgxpool.Pool, queue string, small, grow func()) {
	t.Helper()
	stalePlans(t, ctx, pool, "the claim", false, small, grow, func(conn *pgx.Conn) error {
		_, err := claim(ctx, conn, queue, 2, nil)
		return err
	}, func(conn *pgx.Conn) error {
		cs, err := claim(ctx, conn, queue, 100, nil)
		if err == nil && len(cs) != 100 {
			err = fmt.Errorf("the claim took %d jobs, want 100", len(cs))
		}
		return err
	})
}

// stalePlans runs small, analyzes the lane and ring tables, runs prime six
// times in a worker session (caching its plans), runs grow in other
// sessions, then runs measured in the worker under auto_explain (nested
// statements, analyzed) and fails on each scan of a table that is not an
// index probe with a condition: any such scan, or with loopedOnly those run
// more than once in their statement (a probe per lane or per row).
func stalePlans(t *testing.T, ctx context.Context, pool *pgxpool.Pool, what string, loopedOnly bool,
	small, grow func(), prime, measured func(conn *pgx.Conn) error) {
	t.Helper()
	var mu sync.Mutex
	var notices []string
	cfg := pool.Config().ConnConfig.Copy()
	cfg.OnNotice = func(_ *pgconn.PgConn, n *pgconn.Notice) {
		mu.Lock()
		notices = append(notices, n.Message)
		mu.Unlock()
	}
	worker, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer worker.Close(context.Background())

	small()
	if _, err := pool.Exec(ctx, `ANALYZE awa.queue_lanes, awa.queue_claim_heads, awa.key_lanes, awa.active_key_lanes,
	                             awa.ready_entries, awa.ready_batches, awa.claim_batches, awa.claim_closures`); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 6; i++ {
		if err := prime(worker); err != nil {
			t.Fatal(err)
		}
	}
	grow()
	for _, s := range []string{`LOAD 'auto_explain'`, `SET auto_explain.log_min_duration = 0`,
		`SET auto_explain.log_nested_statements = on`, `SET auto_explain.log_format = json`,
		`SET auto_explain.log_analyze = on`, `SET auto_explain.log_timing = off`,
		`SET auto_explain.log_level = notice`, `SET client_min_messages = notice`} {
		if _, err := worker.Exec(ctx, s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
	mu.Lock()
	notices = nil
	mu.Unlock()
	if err := measured(worker); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	var bad []string
	seen := map[string]bool{}
	plans := 0
	for _, n := range notices {
		i := strings.Index(n, "{")
		if !strings.HasPrefix(n, "duration:") || i < 0 {
			continue
		}
		var doc struct {
			Query string         `json:"Query Text"`
			Plan  map[string]any `json:"Plan"`
		}
		if err := json.Unmarshal([]byte(n[i:]), &doc); err != nil {
			t.Fatalf("auto_explain notice: %v\n%s", err, n)
		}
		plans++
		var scans []string
		unprobedScans(doc.Plan, loopedOnly, &scans)
		for _, s := range scans {
			line := fmt.Sprintf("%s in: %s", s, strings.Join(strings.Fields(doc.Query), " "))
			if !seen[line] {
				seen[line] = true
				bad = append(bad, line)
			}
		}
	}
	if plans < 2 {
		t.Fatalf("auto_explain logged %d plans: the statements of %s were not seen", plans, what)
	}
	if len(bad) > 0 {
		t.Fatalf("grown, the cached plans of %s scan tables without a probe:\n%s", what, strings.Join(bad, "\n"))
	}
}

// TestPollPlansCachedWhileTheLaneTablesWereSmallStillProbeByIndex: the
// shared poll (awa.queues_ready) and awa.queue_pending, their plans cached
// in a worker's session while a keyed queue had three keys, then run after
// producers added 2,000 keys: each per-lane probe (a scan run once per lane)
// must be an index probe with a condition. A generic plan made while the
// ready slot held 50 rows probed each lane by sequential scans of every
// ready partition: with 10,000 key lanes, 7-9 s per poll (against 0.1-0.2 s).
func TestPollPlansCachedWhileTheLaneTablesWereSmallStillProbeByIndex(t *testing.T) {
	ctx, pool := newDB(t, 2*time.Minute)
	const queue = "stale_poll"
	insertKeys := keyedQueue(t, ctx, pool, queue)
	poll := func(conn *pgx.Conn) error {
		if _, err := conn.Exec(ctx, `SELECT count(*) FROM awa.queues_ready(ARRAY[$1::text, 'stale_other'])`, queue); err != nil {
			return err
		}
		_, err := conn.Exec(ctx, `SELECT count(*) FROM awa.queue_pending($1)`, queue)
		return err
	}
	stalePlans(t, ctx, pool, "the poll", true, func() { insertKeys("small", 3, 10) }, func() {
		insertKeys("grown", 2000, 1)
		// And batch rows (the plans were made with the batch plane empty).
		for p := 1; p <= 4; p++ {
			insertBatchRows(t, ctx, pool, queue, p, 20, 100)
		}
	}, poll, poll)
}

// keyedQueue configures queue with a key per args.tenant (limit 5) and
// returns an insert of keys*perKey jobs whose tenants are prefix0.. prefix<keys-1>.
func keyedQueue(t *testing.T, ctx context.Context, pool *pgxpool.Pool, queue string) func(prefix string, keys, perKey int) {
	t.Helper()
	if _, err := pool.Exec(ctx, `SELECT count(*) FROM awa.configure_queue($1, '{"concurrency": {"key": "args.tenant", "limit": 5}}')`, queue); err != nil {
		t.Fatal(err)
	}
	return func(prefix string, keys, perKey int) {
		t.Helper()
		if _, err := pool.Exec(ctx, `
			SELECT count(*) FROM awa.insert_jobs(array_fill('k'::text, ARRAY[$2::int * $3::int]),
			  ARRAY(SELECT jsonb_build_object('tenant', $4::text || (i % $2::int)) FROM generate_series(1, $2::int * $3::int) i),
			  array_fill(jsonb_build_object('queue', $1::text), ARRAY[$2::int * $3::int]))`, queue, keys, perKey, prefix); err != nil {
			t.Fatal(err)
		}
	}
}
