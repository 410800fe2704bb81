package scale

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/awa-queue/awa/driver"
	"github.com/awa-queue/awa/internal/pgtest"
)

const (
	nQueues = 10000 // queues the test creates, each with at least one job
	// nBulk queues are created by ONE awa.insert_jobs call (one statement):
	// the queues 0..nBulk-1. The others by single awa.insert_job statements,
	// perTx per transaction, from two producer sessions at once.
	nBulk = 1000
	perTx = 100
	// Every multiEvery-th queue also gets one job at each of priorities 1, 3
	// and 4 (the others only priority 2, the default).
	multiEvery = 100

	// maxNewRelations bounds the relations (tables, indexes, sequences, ...)
	// that creating the queues may add to the database: a small fixed number,
	// independent of the queue count (the test also requires the count at
	// 1,000 queues and at 10,000 to be equal). Queues are rows.
	maxNewRelations = 8
	// maxBytesPerQueue bounds the database's growth per queue, its one job
	// included (the queues with four jobs are a hundredth of them): a few rows
	// of lane state and the job's rows, with their index entries. Measured:
	// about 2,300 bytes with lanes as rows over a fixed pool of sequences;
	// about 346,000 with a sequence per lane (32 relations per queue).
	maxBytesPerQueue = 4096
)

func queueName(i int) string { return fmt.Sprintf("tenant-%05d", i) }

// TestTenThousandQueuesCostRowsNotObjects creates 10,000 queues with jobs on
// a server with stock lock-table settings, as a role without CREATE on schema
// awa, and requires that queues cost rows, not database objects: no relation
// per queue, a bounded number of bytes per queue, and every read surface,
// claim and complete, a full maintenance pass and pg_dump (restored into an
// empty database) working with them (issue 7, observation 10).
func TestTenThousandQueuesCostRowsNotObjects(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	serverDSN := stockDSN(t, ctx)

	// The role first: its cleanup runs after the databases' drops.
	role, password := newRole(t, ctx, serverDSN, "awa_scale_app")
	dbName := newDatabase(t, ctx, serverDSN, "awa_scale")
	dbDSN := pgtest.WithDatabase(serverDSN, dbName)
	migrate(t, ctx, dbDSN)
	owner := connectAs(t, ctx, dbDSN, "", "")

	// What an application role that produces, reads and works jobs gets: the
	// three group roles the install grants (docs/privileges.md), no CREATE.
	for _, stmt := range []string{
		"GRANT awa_producer, awa_worker, awa_admin TO " + ident(role),
	} {
		if _, err := owner.Exec(ctx, stmt); err != nil {
			t.Fatalf("%s: %v", stmt, err)
		}
	}
	var canCreate bool
	if err := owner.QueryRow(ctx, "SELECT has_schema_privilege($1, 'awa', 'CREATE')", role).Scan(&canCreate); err != nil {
		t.Fatal(err)
	}
	if canCreate {
		t.Fatalf("role %s has CREATE on schema awa; the test needs a producer without it", role)
	}
	app := connectAs(t, ctx, dbDSN, role, password)

	relsBefore, allBefore, sizeBefore := footprint(t, ctx, owner)

	// The expected available count of every queue.
	want := make(map[string]int64, nQueues)
	for i := range nQueues {
		want[queueName(i)] = 1
		if i%multiEvery == 0 {
			want[queueName(i)] = 4
		}
	}

	// 1,000 new queues in ONE awa.insert_jobs call (one statement).
	bulk := make([]string, nBulk)
	for i := range bulk {
		bulk[i] = queueName(i)
	}
	timed(t, fmt.Sprintf("insert_jobs: %d new queues, one call", nBulk), func() {
		var jobs, queues int
		err := app.QueryRow(ctx, `
			SELECT count(*), count(DISTINCT j.queue)
			FROM awa.insert_jobs(array_fill('k'::text, ARRAY[cardinality($1::text[])]), NULL,
			                     ARRAY(SELECT jsonb_build_object('queue', q) FROM unnest($1::text[]) AS q)) AS j`,
			bulk).Scan(&jobs, &queues)
		if err != nil {
			t.Fatalf("one awa.insert_jobs call creating %d queues, as a role without CREATE: %v", nBulk, err)
		}
		if jobs != nBulk || queues != nBulk {
			t.Fatalf("awa.insert_jobs returned %d jobs in %d queues, want %d in %d", jobs, queues, nBulk, nBulk)
		}
	})
	relsAt1000, allAt1000, _ := footprint(t, ctx, owner)

	// The other 9,000: single-statement awa.insert_job calls, 100 queues per
	// ordinary transaction, two producer sessions at once.
	timed(t, fmt.Sprintf("insert_job: %d new queues, %d per tx, 2 sessions", nQueues-nBulk, perTx), func() {
		var wg sync.WaitGroup
		errs := make(chan error, 2)
		for p := range 2 {
			conn := connectAs(t, ctx, dbDSN, role, password)
			wg.Add(1)
			go func() {
				defer wg.Done()
				for first := nBulk + p*perTx; first < nQueues; first += 2 * perTx {
					if err := insertEach(ctx, conn, first, min(first+perTx, nQueues), nil); err != nil {
						errs <- fmt.Errorf("queues %s..%s: %w", queueName(first), queueName(first+perTx-1), err)
						return
					}
				}
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Fatalf("awa.insert_job into new queues, as a role without CREATE: %v", err)
		}
	})
	// A few jobs at several priorities in every 100th queue (existing queues,
	// new priorities), one transaction.
	timed(t, fmt.Sprintf("insert_job: priorities 1,3,4 in %d queues, 1 tx", nQueues/multiEvery), func() {
		if err := insertEach(ctx, app, 0, nQueues/multiEvery, []int{1, 3, 4}); err != nil {
			t.Fatalf("awa.insert_job at priorities 1, 3 and 4: %v", err)
		}
	})

	relsAfter, allAfter, sizeAfter := footprint(t, ctx, owner)
	perQueue := float64(sizeAfter-sizeBefore) / nQueues
	t.Logf("relations in schema awa: %d before, %d at %d queues, %d at %d queues (whole database: %d, %d, %d)",
		relsBefore, relsAt1000, nBulk, relsAfter, nQueues, allBefore, allAt1000, allAfter)
	t.Logf("database size: %d bytes before, %d after: %.0f bytes per queue (bound %d)",
		sizeBefore, sizeAfter, perQueue, maxBytesPerQueue)
	if relsAfter != relsAt1000 || allAfter != allAt1000 {
		t.Errorf("relations grow with the queue count: schema awa %d at %d queues, %d at %d (whole database %d, %d)",
			relsAt1000, nBulk, relsAfter, nQueues, allAt1000, allAfter)
	}
	if relsAfter-relsBefore > maxNewRelations || allAfter-allBefore > maxNewRelations {
		t.Errorf("creating %d queues added %d relations to schema awa (%d to the database), want at most %d",
			nQueues, relsAfter-relsBefore, allAfter-allBefore, maxNewRelations)
	}
	if perQueue > maxBytesPerQueue {
		t.Errorf("the database grew %.0f bytes per queue, want at most %d", perQueue, maxBytesPerQueue)
	}

	// Every read surface, with 10,000 queues, on stock settings.
	timed(t, "queue_counts(): every queue", func() {
		checkQueueCounts(t, ctx, app, want)
	})
	probe := []string{queueName(0), queueName(nBulk - 1), queueName(5000), queueName(nQueues - 1)}
	timed(t, fmt.Sprintf("queue_counts(q), %d queues", len(probe)), func() {
		for _, q := range probe {
			var n int
			var available int64
			if err := app.QueryRow(ctx, "SELECT count(*), coalesce(sum(available), 0)::bigint FROM awa.queue_counts($1)", q).
				Scan(&n, &available); err != nil {
				t.Fatalf("awa.queue_counts(%s): %v", q, err)
			}
			if n != 1 || available != want[q] {
				t.Errorf("awa.queue_counts(%s): %d rows, available %d; want 1 row, available %d", q, n, available, want[q])
			}
		}
	})
	totalJobs := int64(nQueues + 3*nQueues/multiEvery)
	timed(t, "select count(*) from awa.jobs", func() {
		var jobs, available, queues int64
		if err := app.QueryRow(ctx, `SELECT count(*), count(*) FILTER (WHERE state = 'available'), count(DISTINCT queue)
			FROM awa.jobs`).Scan(&jobs, &available, &queues); err != nil {
			t.Fatalf("awa.jobs: %v", err)
		}
		if jobs != totalJobs || available != totalJobs || queues != nQueues {
			t.Errorf("awa.jobs holds %d jobs (%d available) in %d queues, want %d available in %d",
				jobs, available, queues, totalJobs, nQueues)
		}
	})
	timed(t, fmt.Sprintf("queue_pending(q), %d queues + 1 unknown", len(probe)), func() {
		for _, q := range append(probe, "tenant-absent") {
			var pending bool
			if err := app.QueryRow(ctx, "SELECT pending FROM awa.queue_pending($1)", q).Scan(&pending); err != nil {
				t.Fatalf("awa.queue_pending(%s): %v", q, err)
			}
			if wantPending := want[q] > 0; pending != wantPending {
				t.Errorf("awa.queue_pending(%s) = %v, want %v", q, pending, wantPending)
			}
		}
	})
	timed(t, "select count(*) from awa.terminal_jobs", func() {
		if n := count(t, ctx, app, "SELECT count(*) FROM awa.terminal_jobs"); n != 0 {
			t.Errorf("awa.terminal_jobs holds %d jobs before any was worked, want 0", n)
		}
	})
	// 16 queue, 8 claim, 8 lease and 2 cursor slots, plus the history
	// archive's partitions (its DEFAULT at least): rows, not objects, so the
	// status reads the same relations whatever the number of queues.
	timed(t, "storage_status(): every ring and slot", func() {
		var slots, archive, blocked, queued int64
		if err := app.QueryRow(ctx, `SELECT count(*) FILTER (WHERE ring <> 'archive'), count(*) FILTER (WHERE ring = 'archive'),
		                                    count(*) FILTER (WHERE status = 'blocked'),
		                                    coalesce(sum(rows) FILTER (WHERE ring = 'queue'), 0)::bigint
		                             FROM awa.storage_status()`).Scan(&slots, &archive, &blocked, &queued); err != nil {
			t.Fatalf("awa.storage_status(): %v", err)
		}
		if slots != 34 || archive < 1 || blocked != 0 || queued == 0 {
			t.Errorf("awa.storage_status(): %d ring slots, %d archive partitions, %d blocked, %d queue-ring rows; want 34, at least 1, 0 and some",
				slots, archive, blocked, queued)
		}
	})
	timed(t, fmt.Sprintf("listen_queues: all %d queues", nQueues), func() {
		listener := connectAs(t, ctx, dbDSN, role, password)
		all := make([]string, nQueues)
		for i := range all {
			all[i] = queueName(i)
		}
		if _, err := listener.Exec(ctx, "SELECT awa.listen_queues($1)", all); err != nil {
			t.Fatalf("awa.listen_queues(%d queues): %v", nQueues, err)
		}
		// One channel per queue, plus the install's control channel ("awa:",
		// the cooperative cancel of running jobs) and the promotion channel
		// ("awa:+promote", the leader's promoter).
		if n := count(t, ctx, listener, "SELECT count(*) FROM pg_listening_channels() AS c WHERE c NOT IN ('awa:', 'awa:+promote')"); n != nQueues {
			t.Errorf("the session listens on %d queue channels after awa.listen_queues of %d queues", n, nQueues)
		}
		for _, ch := range []string{"awa:", "awa:+promote"} {
			if n := count(t, ctx, listener, "SELECT count(*) FROM pg_listening_channels() AS c WHERE c = '"+ch+"'"); n != 1 {
				t.Errorf("the session listens on the channel %s %d times after awa.listen_queues, want once", ch, n)
			}
		}
	})

	// A worker claims and completes every job of the probed queues.
	claimedFrom := map[string]int64{}
	timed(t, fmt.Sprintf("claim + complete, %d queues", len(probe)), func() {
		for _, q := range probe {
			n := claimAndComplete(t, ctx, app, q, want[q])
			claimedFrom[q] = n
		}
	})
	worked := int64(0)
	for _, n := range claimedFrom {
		worked += n
	}
	for _, q := range probe {
		var available, running, completed int64
		if err := app.QueryRow(ctx, "SELECT available, running, completed FROM awa.queue_counts($1)", q).
			Scan(&available, &running, &completed); err != nil {
			t.Fatalf("awa.queue_counts(%s) after claim + complete: %v", q, err)
		}
		if available != 0 || running != 0 || completed != want[q] {
			t.Errorf("awa.queue_counts(%s) after claim + complete: available %d, running %d, completed %d; want 0, 0, %d",
				q, available, running, completed, want[q])
		}
	}
	if n := count(t, ctx, app, "SELECT count(*) FROM awa.terminal_jobs WHERE state = 'completed'"); n != worked {
		t.Errorf("awa.terminal_jobs holds %d completed jobs, want the %d worked", n, worked)
	}

	// One full maintenance pass, as the leader runs it (driver/maintainer.go):
	// rotate then prune every ring. The queue ring keeps no sealed slot here
	// (the leader keeps 14), so its prune carries all 10,000 queues' available
	// jobs out of the sealed slot.
	timed(t, "maintenance: rotate + prune every ring", func() {
		maintain(t, ctx, owner)
	})
	for _, q := range probe {
		want[q] = 0
	}
	timed(t, "queue_counts() after maintenance", func() {
		checkQueueCounts(t, ctx, app, want)
	})
	if n := count(t, ctx, app, "SELECT count(*) FROM awa.jobs WHERE state = 'available'"); n != totalJobs-worked {
		t.Errorf("awa.jobs holds %d available jobs after maintenance, want %d", n, totalJobs-worked)
	}

	// pg_dump of the whole database, schema and data, restored into an empty
	// database: the queues and their jobs are there.
	dump := filepath.Join(t.TempDir(), "awa.dump")
	timed(t, "pg_dump -Fc of the whole database", func() {
		runPG(t, ctx, "pg_dump", "-Fc", "-f", dump, "-d", dbDSN)
	})
	if st, err := os.Stat(dump); err != nil || st.Size() == 0 {
		t.Fatalf("pg_dump wrote no dump (%v)", err)
	} else {
		t.Logf("dump: %d bytes", st.Size())
	}
	restored := newDatabase(t, ctx, serverDSN, "awa_scale_restored")
	restoredDSN := pgtest.WithDatabase(serverDSN, restored)
	timed(t, "pg_restore into an empty database", func() {
		runPG(t, ctx, "pg_restore", "--exit-on-error", "-d", restoredDSN, dump)
	})
	rconn := connectAs(t, ctx, restoredDSN, role, password)
	timed(t, "queue_counts() in the restored database", func() {
		checkQueueCounts(t, ctx, rconn, want)
	})
	var origJobs, restoredJobs string
	const jobsDigest = `SELECT count(*) || ':' || md5(string_agg(format('%s/%s/%s/%s', id, queue, priority, state), ',' ORDER BY id))
		FROM awa.jobs`
	if err := app.QueryRow(ctx, jobsDigest).Scan(&origJobs); err != nil {
		t.Fatal(err)
	}
	if err := rconn.QueryRow(ctx, jobsDigest).Scan(&restoredJobs); err != nil {
		t.Fatalf("awa.jobs in the restored database: %v", err)
	}
	if origJobs != restoredJobs {
		t.Errorf("awa.jobs differs after pg_dump + pg_restore: %s before, %s restored", origJobs, restoredJobs)
	}
}

// insertEach inserts, in one transaction of single-statement awa.insert_job
// calls (one round trip), one job into each queue first..last-1: at the
// default priority when priorities is nil, else one job per priority.
func insertEach(ctx context.Context, conn *pgx.Conn, first, last int, priorities []int) error {
	tx, err := conn.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(ctx)
	b := &pgx.Batch{}
	for i := first; i < last; i++ {
		if priorities == nil {
			b.Queue("SELECT id FROM awa.insert_job('k', '{}', jsonb_build_object('queue', $1::text))", queueName(i))
			continue
		}
		for _, p := range priorities {
			b.Queue("SELECT id FROM awa.insert_job('k', '{}', jsonb_build_object('queue', $1::text, 'priority', $2::int))",
				queueName(i*multiEvery), p)
		}
	}
	if err := tx.SendBatch(ctx, b).Close(); err != nil {
		return err
	}
	return tx.Commit(ctx)
}

// footprint returns the relations in schema awa, the relations in the whole
// database (temporary ones excluded) and the database size in bytes.
func footprint(t *testing.T, ctx context.Context, conn *pgx.Conn) (awaRels, allRels, size int64) {
	t.Helper()
	if err := conn.QueryRow(ctx, `
		SELECT count(*) FILTER (WHERE relnamespace = 'awa'::regnamespace), count(*),
		       pg_database_size(current_database())
		FROM pg_class WHERE relpersistence <> 't'`).Scan(&awaRels, &allRels, &size); err != nil {
		t.Fatalf("footprint: %v", err)
	}
	return awaRels, allRels, size
}

// checkQueueCounts requires awa.queue_counts() to return one row per queue of
// want with want's available count, and nothing running, deferred or failed.
func checkQueueCounts(t *testing.T, ctx context.Context, conn *pgx.Conn, want map[string]int64) {
	t.Helper()
	rows, err := conn.Query(ctx, `SELECT queue, available, running, scheduled + retryable + failed + dlq
		FROM awa.queue_counts()`)
	if err != nil {
		t.Fatalf("awa.queue_counts(): %v", err)
	}
	got := map[string]int64{}
	bad := 0
	for rows.Next() {
		var q string
		var available, running, other int64
		if err := rows.Scan(&q, &available, &running, &other); err != nil {
			t.Fatal(err)
		}
		got[q] = available
		if w, ok := want[q]; (!ok || available != w || running != 0 || other != 0) && bad < 5 {
			bad++
			t.Errorf("awa.queue_counts() row %s: available %d, running %d, scheduled/retryable/failed/dlq %d; want available %d (known queue: %v), 0, 0",
				q, available, running, other, w, ok)
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatalf("awa.queue_counts(): %v", err)
	}
	if len(got) != len(want) {
		t.Errorf("awa.queue_counts() returned %d queues, want %d", len(got), len(want))
	}
}

// claimAndComplete claims every job of queue (n expected) in one
// awa.claim_ready_runtime call, requires them highest priority first, and
// completes them in one awa.complete_jobs call. It returns how many it claimed.
func claimAndComplete(t *testing.T, ctx context.Context, conn *pgx.Conn, queue string, n int64) int64 {
	t.Helper()
	tx, err := conn.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx)
	var ids, leases, receipts []int64
	var slots, prios []int32
	rows, err := tx.Query(ctx, `SELECT c.id, c.run_lease, c.claim_slot, c.receipt_id, c.priority
		FROM awa.claim_ready_runtime($1, 10) AS c`, queue)
	if err != nil {
		t.Fatalf("awa.claim_ready_runtime(%s): %v", queue, err)
	}
	for rows.Next() {
		var id, lease, receipt int64
		var slot int32
		var prio int16
		if err := rows.Scan(&id, &lease, &slot, &receipt, &prio); err != nil {
			t.Fatal(err)
		}
		ids, leases, slots, receipts, prios = append(ids, id), append(leases, lease), append(slots, slot),
			append(receipts, receipt), append(prios, int32(prio))
	}
	if err := rows.Err(); err != nil {
		t.Fatalf("awa.claim_ready_runtime(%s): %v", queue, err)
	}
	if int64(len(ids)) != n {
		t.Fatalf("awa.claim_ready_runtime(%s, 10) claimed %d jobs, want its %d", queue, len(ids), n)
	}
	for i := 1; i < len(prios); i++ {
		if prios[i] < prios[i-1] {
			t.Errorf("awa.claim_ready_runtime(%s) returned priorities %v, want highest (1) first", queue, prios)
			break
		}
	}
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	var applied int64
	if err := conn.QueryRow(ctx, `SELECT count(*) FILTER (WHERE f.outcome = 'applied')
		FROM awa.complete_jobs($1::bigint[], $2::bigint[], $3::int[], $4::bigint[]) AS f`,
		ids, leases, slots, receipts).Scan(&applied); err != nil {
		t.Fatalf("awa.complete_jobs(%s): %v", queue, err)
	}
	if applied != n {
		t.Errorf("awa.complete_jobs applied %d of the %d jobs claimed from %s", applied, n, queue)
	}
	return n
}

// maintain runs one maintenance pass: for every ring, rotate_ring then
// prune_ring, the prune repeated while it carries jobs (as the leader does).
// The queue ring's rotation must rotate: its current slot holds the jobs.
func maintain(t *testing.T, ctx context.Context, conn *pgx.Conn) {
	t.Helper()
	type outcome struct{ Ring, Action, Outcome, Detail string }
	call := func(sql string, args ...any) []outcome {
		rows, err := conn.Query(ctx, sql, args...)
		if err != nil {
			t.Fatalf("%s %v: %v", sql, args, err)
		}
		outs, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (outcome, error) {
			var o outcome
			err := r.Scan(&o.Ring, &o.Action, &o.Outcome, &o.Detail)
			return o, err
		})
		if err != nil {
			t.Fatalf("%s %v: %v", sql, args, err)
		}
		if len(outs) == 0 {
			t.Errorf("%s %v returned no outcome", sql, args)
		}
		for _, o := range outs {
			t.Logf("maintenance: %s %s: %s (%s)", o.Ring, o.Action, o.Outcome, o.Detail)
		}
		return outs
	}
	for _, ring := range []driver.Ring{driver.RingQueue, driver.RingClaim, driver.RingLease} {
		outs := call("SELECT ring, action, outcome, detail FROM awa.rotate_ring($1, NULL, interval '0')", string(ring))
		if ring == driver.RingQueue && (len(outs) != 1 || outs[0].Outcome != "rotated") {
			t.Errorf("awa.rotate_ring('queue') = %v, want rotated: the current slot holds every job", outs)
		}
		for range 20 {
			carried := false
			for _, o := range call("SELECT ring, action, outcome, detail FROM awa.prune_ring($1, 5000, 0, 100000)", string(ring)) {
				carried = carried || o.Outcome == "carried"
			}
			if !carried {
				break
			}
		}
	}
}

// count runs a one-value count query.
func count(t *testing.T, ctx context.Context, conn *pgx.Conn, sql string) int64 {
	t.Helper()
	var n int64
	if err := conn.QueryRow(ctx, sql).Scan(&n); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return n
}

// runPG runs a PostgreSQL client program from AWA_PG_BIN (default the
// PostgreSQL 15 binaries) and fails the test unless it exits 0.
func runPG(t *testing.T, ctx context.Context, prog string, args ...string) {
	t.Helper()
	bin := os.Getenv("AWA_PG_BIN")
	if bin == "" {
		bin = "/usr/lib/postgresql/15/bin"
	}
	cmd := exec.CommandContext(ctx, filepath.Join(bin, prog), args...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s: %v\n%s", prog, err, tail(out.String(), 2000))
	}
}

func tail(s string, n int) string {
	if len(s) > n {
		return "..." + s[len(s)-n:]
	}
	return s
}
