package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/awa-queue/awa/internal/pgtest"
)

// cli runs `awa args... -dsn dsn` and returns its exit status and output.
func cli(ctx context.Context, t *testing.T, dsn string, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(ctx, append(args, "-dsn", dsn), &out, &errb)
	return code, out.String(), errb.String()
}

// cliJSON runs `awa args... -json -dsn dsn`, requires exit 0 and returns its
// output decoded as a T.
func cliJSON[T any](ctx context.Context, t *testing.T, dsn string, args ...string) T {
	t.Helper()
	code, out, errs := cli(ctx, t, dsn, append(args, "-json")...)
	var v T
	if code != 0 || json.Unmarshal([]byte(out), &v) != nil {
		t.Fatalf("awa %s -json: exit %d, out %q, err %q", strings.Join(args, " "), code, out, errs)
	}
	return v
}

// listPage is the -json output of awa jobs list and dlq list, as the tests
// read it.
type listPage struct {
	Jobs []struct {
		ID    int64  `json:"id"`
		State string `json:"state"`
		DLQ   bool   `json:"dlq"`
	} `json:"jobs"`
	Next int64 `json:"next"`
}

// cliDB returns a new database with the substrate, a context of a minute and
// a connection to it, all closed with the test.
func cliDB(t *testing.T) (string, context.Context, *pgx.Conn) {
	t.Helper()
	dsn := pgtest.NewDBDSN(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	return dsn, ctx, conn
}

// failedJob inserts a job of queue (max_attempts 1), claims it and fails it,
// so it ends failed (in the DLQ when the queue has it on). Returns its id.
func failedJob(ctx context.Context, t *testing.T, conn *pgx.Conn, queue string) int64 {
	t.Helper()
	var id int64
	err := conn.QueryRow(ctx, `
		WITH j AS (SELECT id FROM awa.insert_job('cli.k', '{"email": "a@example.com"}',
		                                         jsonb_build_object('queue', $1::text, 'max_attempts', 1))),
		     c AS (SELECT c.* FROM j, awa.claim_ready_runtime($1, 1) AS c)
		SELECT f.job_id FROM c, awa.fail_jobs(ARRAY[c.id], ARRAY[c.run_lease], ARRAY[c.claim_slot], ARRAY[c.receipt_id],
		                                      ARRAY['boom']) AS f`, queue).Scan(&id)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// TestJobsCommandsActOnOneJobWithClearExitCodes: awa jobs retry runs a failed
// job again (table and -json), cancel cancels it, erase erases it; a job whose
// state does not allow the command exits 4, an unknown job 3, a bad id 2.
func TestJobsCommandsActOnOneJobWithClearExitCodes(t *testing.T) {
	t.Parallel()
	dsn, ctx, conn := cliDB(t)
	id := failedJob(ctx, t, conn, "cli_q")
	sid := strconv.FormatInt(id, 10)

	code, out, errs := cli(ctx, t, dsn, "jobs", "retry", sid)
	if code != 0 || !strings.Contains(out, sid) || !strings.Contains(out, "available") {
		t.Fatalf("awa jobs retry %s: exit %d, out %q, err %q; want 0 and the job available", sid, code, out, errs)
	}
	code, _, errs = cli(ctx, t, dsn, "jobs", "retry", sid)
	if code != exitInvalidState || !strings.Contains(errs, "is available (nothing to retry)") {
		t.Fatalf("a second awa jobs retry: exit %d, err %q; want %d naming the state", code, errs, exitInvalidState)
	}
	code, out, errs = cli(ctx, t, dsn, "jobs", "cancel", sid, "-reason", "operator said so", "-json")
	var cancelled struct {
		ID      int64  `json:"id"`
		Outcome string `json:"outcome"`
		State   string `json:"state"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &cancelled) != nil || cancelled.ID != id || cancelled.Outcome != "applied" ||
		cancelled.State != "cancelled" {
		t.Fatalf("awa jobs cancel -json: exit %d, out %q, err %q; want the job applied, cancelled", code, out, errs)
	}
	code, out, errs = cli(ctx, t, dsn, "jobs", "erase", sid, "-json")
	var erased struct {
		ID     int64 `json:"id"`
		Planes []struct {
			Plane string `json:"plane"`
			Rows  int64  `json:"rows"`
		} `json:"planes"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &erased) != nil || erased.ID != id || len(erased.Planes) == 0 {
		t.Fatalf("awa jobs erase -json: exit %d, out %q, err %q; want the planes erased", code, out, errs)
	}
	var left int
	if err := conn.QueryRow(ctx, `SELECT count(*) FROM awa.jobs WHERE args::text LIKE '%a@example.com%'`).Scan(&left); err != nil || left != 0 {
		t.Fatalf("jobs still showing the email after erase: %d, %v", left, err)
	}

	for _, c := range []struct {
		args []string
		code int
	}{
		{[]string{"jobs", "cancel", "987654321"}, exitNotFound},
		{[]string{"jobs", "retry", "-3"}, 2},
		{[]string{"jobs", "erase"}, 2},
		{[]string{"jobs", "frobnicate", "1"}, 2},
		{[]string{"jobs", "retry", sid, "-at", "next tuesday"}, 2},
	} {
		if code, _, errs := cli(ctx, t, dsn, c.args...); code != c.code {
			t.Errorf("awa %s: exit %d (%s), want %d", strings.Join(c.args, " "), code, errs, c.code)
		}
	}
}

// TestDLQAndQueuesCommands: awa dlq retry takes a job out of the DLQ, awa dlq
// purge deletes by filter (and refuses no filter), awa queues list counts
// each queue's jobs by state.
func TestDLQAndQueuesCommands(t *testing.T) {
	t.Parallel()
	dsn, ctx, conn := cliDB(t)
	if _, err := conn.Exec(ctx, `SELECT awa.configure_queue('cli_dlq', '{"dlq": true}')`); err != nil {
		t.Fatal(err)
	}
	first, second := failedJob(ctx, t, conn, "cli_dlq"), failedJob(ctx, t, conn, "cli_dlq")

	code, out, errs := cli(ctx, t, dsn, "queues", "list", "-queue", "cli_dlq", "-json")
	var qs []struct {
		Queue string `json:"queue"`
		DLQ   int64  `json:"dlq"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &qs) != nil || len(qs) != 1 || qs[0].Queue != "cli_dlq" || qs[0].DLQ != 2 {
		t.Fatalf("awa queues list -json: exit %d, out %q, err %q; want cli_dlq with 2 in its DLQ", code, out, errs)
	}
	if code, out, errs = cli(ctx, t, dsn, "dlq", "retry", strconv.FormatInt(first, 10), "-at", "1h"); code != 0 ||
		!strings.Contains(out, "scheduled") {
		t.Fatalf("awa dlq retry -at 1h: exit %d, out %q, err %q; want it scheduled", code, out, errs)
	}
	if code, _, _ = cli(ctx, t, dsn, "dlq", "purge"); code != 2 {
		t.Fatalf("awa dlq purge without a filter: exit %d, want 2", code)
	}
	code, out, errs = cli(ctx, t, dsn, "dlq", "purge", "-queue", "cli_dlq", "-json")
	var purged struct {
		Purged []int64 `json:"purged"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &purged) != nil || len(purged.Purged) != 1 || purged.Purged[0] != second {
		t.Fatalf("awa dlq purge -queue cli_dlq -json: exit %d, out %q, err %q; want job %d purged", code, out, errs, second)
	}
	if code, out, _ = cli(ctx, t, dsn, "queues", "list"); code != 0 || !strings.Contains(out, "QUEUE") || !strings.Contains(out, "cli_dlq") {
		t.Fatalf("awa queues list: exit %d, out %q; want a table naming cli_dlq", code, out)
	}
	if code, out, errs = cli(ctx, t, dsn, "queues", "pause", "cli_dlq"); code != 0 || !strings.Contains(out, "queue cli_dlq paused since") {
		t.Fatalf("awa queues pause: exit %d, out %q, err %q", code, out, errs)
	}
	var paused []struct {
		Queue  string `json:"queue"`
		Paused bool   `json:"paused"`
	}
	code, out, _ = cli(ctx, t, dsn, "queues", "list", "-queue", "cli_dlq", "-json")
	if code != 0 || json.Unmarshal([]byte(out), &paused) != nil || len(paused) != 1 || !paused[0].Paused {
		t.Fatalf("awa queues list after pause: exit %d, out %q; want cli_dlq paused", code, out)
	}
	var n int
	if err := conn.QueryRow(ctx, `SELECT count(*) FROM awa.claim_ready_runtime('cli_dlq', 10)`).Scan(&n); err != nil || n != 0 {
		t.Fatalf("a claim of the paused queue took %d jobs, %v; want 0", n, err)
	}
	// The retried job waits an hour (not due); a new job is available.
	if _, err := conn.Exec(ctx, `SELECT * FROM awa.insert_job('cli.k', '{}', '{"queue": "cli_dlq"}')`); err != nil {
		t.Fatal(err)
	}
	if code, out, _ = cli(ctx, t, dsn, "queues", "drain", "cli_dlq", "-timeout", "300ms"); code != exitNotDrained ||
		!strings.Contains(out, "not drained after 300ms: available true") {
		t.Fatalf("awa queues drain of the paused queue holding a job: exit %d, out %q; want %d", code, out, exitNotDrained)
	}
	if code, out, errs = cli(ctx, t, dsn, "queues", "resume", "cli_dlq", "-json"); code != 0 || !strings.Contains(out, `"paused": false`) {
		t.Fatalf("awa queues resume -json: exit %d, out %q, err %q", code, out, errs)
	}
	if _, err := conn.Exec(ctx, `SELECT count(*) FROM awa.claim_ready_runtime('cli_dlq', 10, NULL, now() + interval '2 hours') AS c,
		awa.complete_jobs(ARRAY[c.id], ARRAY[c.run_lease], ARRAY[c.claim_slot], ARRAY[c.receipt_id])`); err != nil {
		t.Fatal(err)
	}
	if code, out, errs = cli(ctx, t, dsn, "queues", "drain", "cli_dlq", "-json"); code != 0 || !strings.Contains(out, `"drained": true`) {
		t.Fatalf("awa queues drain after the work is done: exit %d, out %q, err %q", code, out, errs)
	}
	if code, _, errs = cli(ctx, t, dsn, "queues", "pause", "bad name"); code != 2 || !strings.Contains(errs, "queue must be") {
		t.Fatalf("awa queues pause 'bad name': exit %d, err %q; want 2 (bad usage) naming the rule", code, errs)
	}
}

// TestJobsListAndShowPageAndDescribeJobs: awa jobs list pages newest first
// (-limit, -after the next cursor; -json's next), filters by state and
// queue; awa jobs show prints one job (exit 3 for an unknown one); awa dlq
// list shows the DLQ's jobs only.
func TestJobsListAndShowPageAndDescribeJobs(t *testing.T) {
	t.Parallel()
	dsn, ctx, conn := cliDB(t)
	var ids []int64
	for i := 0; i < 5; i++ {
		var id int64
		if err := conn.QueryRow(ctx, `SELECT id FROM awa.insert_job('cli.list', jsonb_build_object('n', $1::int), '{"queue": "cli_list"}')`,
			i).Scan(&id); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	if _, err := conn.Exec(ctx, `SELECT awa.configure_queue('cli_dlq2', '{"dlq": true}')`); err != nil {
		t.Fatal(err)
	}
	dlq := failedJob(ctx, t, conn, "cli_dlq2")
	plain := failedJob(ctx, t, conn, "cli_list_f")

	read := func(args ...string) listPage {
		t.Helper()
		return cliJSON[listPage](ctx, t, dsn, args...)
	}
	first := read("jobs", "list", "-queue", "cli_list", "-state", "available", "-limit", "3")
	if len(first.Jobs) != 3 || first.Jobs[0].ID != ids[4] || first.Jobs[2].ID != ids[2] || first.Next != ids[2] {
		t.Fatalf("first page %+v; want jobs %d..%d newest first, next %d", first, ids[4], ids[2], ids[2])
	}
	second := read("jobs", "list", "-queue", "cli_list", "-state", "available", "-limit", "3", "-after", strconv.FormatInt(first.Next, 10))
	if len(second.Jobs) != 2 || second.Jobs[0].ID != ids[1] || second.Jobs[1].ID != ids[0] || second.Next != 0 {
		t.Fatalf("second page %+v; want jobs %d, %d and no next page", second, ids[1], ids[0])
	}
	if failed := read("jobs", "list", "-state", "failed"); len(failed.Jobs) != 2 || failed.Jobs[0].ID != plain || failed.Jobs[1].ID != dlq {
		t.Fatalf("failed jobs %+v, want jobs %d and %d", failed, plain, dlq)
	}
	if d := read("dlq", "list"); len(d.Jobs) != 1 || d.Jobs[0].ID != dlq || !d.Jobs[0].DLQ {
		t.Fatalf("awa dlq list %+v, want only job %d, in the DLQ", d, dlq)
	}
	code, out, errs := cli(ctx, t, dsn, "jobs", "show", strconv.FormatInt(plain, 10))
	for _, want := range []string{"state", "failed", "cli_list_f", "boom", `"a@example.com"`} {
		if code != 0 || !strings.Contains(out, want) {
			t.Fatalf("awa jobs show: exit %d, out %q, err %q; want %q in it", code, out, errs, want)
		}
	}
	if code, _, _ = cli(ctx, t, dsn, "jobs", "show", "987654321"); code != exitNotFound {
		t.Fatalf("awa jobs show of an unknown job: exit %d, want %d", code, exitNotFound)
	}
	if code, out, _ = cli(ctx, t, dsn, "jobs", "list", "-queue", "cli_list", "-limit", "2"); code != 0 ||
		!strings.Contains(out, "next page: -after ") || !strings.Contains(out, "JOB") {
		t.Fatalf("awa jobs list (table): exit %d, out %q; want a table and the next page's cursor", code, out)
	}
	if code, _, _ = cli(ctx, t, dsn, "jobs", "list", "-state", "sleeping"); code != 2 {
		t.Fatalf("awa jobs list -state sleeping: exit %d, want 2", code)
	}
}

// TestQueuesConfigureSetsListsAndRemovesFlowControl: awa queues configure
// sets a queue's rate limit, max_depth and per-key concurrency, which the
// database then enforces (an insert past max_depth fails with AW060) and
// awa queues list shows (a configured queue with no job too); each flag at
// zero or empty removes its limit alone; bad flags and values exit 2 and
// change nothing.
func TestQueuesConfigureSetsListsAndRemovesFlowControl(t *testing.T) {
	dsn, ctx, conn := cliDB(t)
	type limits struct {
		RatePerSecond    *float64 `json:"rate_per_second"`
		Burst            *int     `json:"burst"`
		MaxDepth         *int     `json:"max_depth"`
		ConcurrencyKey   string   `json:"concurrency_key"`
		ConcurrencyLimit *int     `json:"concurrency_limit"`
	}
	type configured struct {
		Queue  string  `json:"queue"`
		Limits *limits `json:"limits"`
	}
	got := cliJSON[configured](ctx, t, dsn, "queues", "configure", "cli_fc", "-rate-limit", "500", "-burst", "50",
		"-max-depth", "2", "-concurrency-key", "args.tenant", "-concurrency-limit", "5")
	l := got.Limits
	if got.Queue != "cli_fc" || l == nil || l.RatePerSecond == nil || *l.RatePerSecond != 500 || *l.Burst != 50 ||
		l.MaxDepth == nil || *l.MaxDepth != 2 || l.ConcurrencyKey != "args.tenant" || *l.ConcurrencyLimit != 5 {
		t.Fatalf("awa queues configure -json: %+v (limits %+v); want rate 500 burst 50, max_depth 2, args.tenant limit 5", got, l)
	}
	var opts struct {
		Rate  *float64
		Burst *int
		Depth *int
		Key   *string
		Limit *int
	}
	readOpts := func() {
		t.Helper()
		if err := conn.QueryRow(ctx, `SELECT rate_per_second, rate_burst, max_depth, concurrency_key, concurrency_limit
			FROM awa.queue_options WHERE queue = 'cli_fc'`).Scan(&opts.Rate, &opts.Burst, &opts.Depth, &opts.Key, &opts.Limit); err != nil {
			t.Fatal(err)
		}
	}
	readOpts()
	if opts.Rate == nil || *opts.Rate != 500 || *opts.Burst != 50 || *opts.Depth != 2 || *opts.Key != "args.tenant" || *opts.Limit != 5 {
		t.Fatalf("awa.queue_options after configure: rate %v burst %v depth %v key %v limit %v", opts.Rate, opts.Burst,
			opts.Depth, opts.Key, opts.Limit)
	}

	// The queue has no job yet: listed for its limits.
	code, out, errs := cli(ctx, t, dsn, "queues", "list")
	if code != 0 || !strings.Contains(out, "LIMITS") ||
		!strings.Contains(out, "rate 500/s burst 50; max_depth 2; args.tenant limit 5") {
		t.Fatalf("awa queues list: exit %d, out %q, err %q; want cli_fc's limits in the table", code, out, errs)
	}
	// The database enforces them: a third available job is refused.
	if _, err := conn.Exec(ctx, `SELECT * FROM awa.insert_jobs(ARRAY['k', 'k'], ARRAY['{"tenant": "a"}', '{"tenant": "b"}']::jsonb[],
		ARRAY['{"queue": "cli_fc"}', '{"queue": "cli_fc"}']::jsonb[])`); err != nil {
		t.Fatal(err)
	}
	var pgErr *pgconn.PgError
	if _, err := conn.Exec(ctx, `SELECT * FROM awa.insert_job('k', '{"tenant": "c"}', '{"queue": "cli_fc"}')`); !errors.As(err, &pgErr) ||
		pgErr.Code != "AW060" {
		t.Fatalf("a third insert past max_depth 2: %v; want AW060", err)
	}
	type listed struct {
		Queue     string  `json:"queue"`
		Available int64   `json:"available"`
		Limits    *limits `json:"limits"`
	}
	ls := cliJSON[[]listed](ctx, t, dsn, "queues", "list", "-queue", "cli_fc")
	if len(ls) != 1 || ls[0].Available != 2 || ls[0].Limits == nil || *ls[0].Limits.MaxDepth != 2 {
		t.Fatalf("awa queues list -queue cli_fc -json: %+v; want 2 available and its limits", ls)
	}

	// Each flag at zero or empty removes its limit only.
	if code, out, errs = cli(ctx, t, dsn, "queues", "configure", "cli_fc", "-max-depth", "0"); code != 0 ||
		!strings.Contains(out, "queue cli_fc limits: rate 500/s burst 50; args.tenant limit 5") {
		t.Fatalf("awa queues configure -max-depth 0: exit %d, out %q, err %q", code, out, errs)
	}
	cli(ctx, t, dsn, "queues", "configure", "cli_fc", "-rate-limit", "0")
	readOpts()
	if opts.Rate != nil || opts.Burst != nil || opts.Depth != nil || opts.Key == nil || *opts.Key != "args.tenant" {
		t.Fatalf("after removing max_depth and rate: rate %v burst %v depth %v key %v; want the key only", opts.Rate,
			opts.Burst, opts.Depth, opts.Key)
	}
	if code, out, errs = cli(ctx, t, dsn, "queues", "configure", "cli_fc", "-concurrency-key", ""); code != 0 ||
		!strings.Contains(out, "queue cli_fc limits: -") {
		t.Fatalf("awa queues configure -concurrency-key '': exit %d, out %q, err %q; want no limit left", code, out, errs)
	}
	if ls = cliJSON[[]listed](ctx, t, dsn, "queues", "list", "-queue", "cli_fc"); len(ls) != 1 || ls[0].Limits != nil {
		t.Fatalf("awa queues list after removing every limit: %+v; want no limits", ls)
	}

	// Bad usage and bad values: exit 2, nothing changed.
	for _, bad := range [][]string{
		{"queues", "configure", "cli_fc"},
		{"queues", "configure", "cli_fc", "-burst", "5"},
		{"queues", "configure", "cli_fc", "-concurrency-limit", "5"},
		{"queues", "configure", "cli_fc", "-concurrency-key", "args.tenant"},
		{"queues", "configure", "cli_fc", "-max-depth", "-3"},
		{"queues", "configure", "cli_fc", "-rate-limit", "5", "-burst", "-1"},
		{"queues", "configure", "cli_fc", "-concurrency-key", "tenant", "-concurrency-limit", "5"},
		{"queues", "configure", "bad name", "-max-depth", "5"},
	} {
		if code, _, errs := cli(ctx, t, dsn, bad...); code != 2 || errs == "" {
			t.Fatalf("awa %s: exit %d, err %q; want 2 and a message", strings.Join(bad, " "), code, errs)
		}
	}
	readOpts()
	if opts.Rate != nil || opts.Depth != nil || opts.Key != nil {
		t.Fatalf("after the refused calls: rate %v depth %v key %v; want nothing set", opts.Rate, opts.Depth, opts.Key)
	}
}
