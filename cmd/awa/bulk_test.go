package main

import (
	"context"
	"encoding/json"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
)

// insertJobs inserts n jobs of kind into queue with opts (insert_job opts
// besides the queue, as a JSON object) and returns their ids, oldest first.
func insertJobs(ctx context.Context, t *testing.T, conn *pgx.Conn, queue, kind, opts string, n int) []int64 {
	t.Helper()
	rows, err := conn.Query(ctx, `SELECT id FROM awa.insert_jobs(array_fill($2::text, ARRAY[$3::int]), NULL,
		array_fill(jsonb_build_object('queue', $1::text) || $4::jsonb, ARRAY[$3::int])) ORDER BY id`, queue, kind, n, opts)
	if err != nil {
		t.Fatal(err)
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	if err != nil || len(ids) != n {
		t.Fatalf("insert %d jobs: %v, %v", n, ids, err)
	}
	return ids
}

// failJobs inserts n jobs of kind into queue (max_attempts 1, and tags),
// claims and fails them: into the DLQ when the queue has it on. Returns
// their ids, oldest first.
func failJobs(ctx context.Context, t *testing.T, conn *pgx.Conn, queue, kind string, tags []string, n int) []int64 {
	t.Helper()
	opts, err := json.Marshal(map[string]any{"max_attempts": 1, "tags": append([]string{}, tags...)})
	if err != nil {
		t.Fatal(err)
	}
	ids := insertJobs(ctx, t, conn, queue, kind, string(opts), n)
	var failed int
	if err := conn.QueryRow(ctx, `WITH c AS MATERIALIZED (SELECT * FROM awa.claim_ready_runtime($1, $2))
		SELECT count(*) FROM awa.fail_jobs(ARRAY(SELECT id FROM c ORDER BY id), ARRAY(SELECT run_lease FROM c ORDER BY id),
		                                   ARRAY(SELECT claim_slot FROM c ORDER BY id), ARRAY(SELECT receipt_id FROM c ORDER BY id),
		                                   array_fill('boom'::text, ARRAY[$2]))`, queue, n).Scan(&failed); err != nil || failed != n {
		t.Fatalf("fail %d jobs of %s: %d failed, %v", n, queue, failed, err)
	}
	return ids
}

// bulkOutput is the -json output of awa jobs cancel|retry with filters.
type bulkOutput struct {
	Action       string `json:"action"`
	DryRun       bool   `json:"dry_run"`
	Limit        int    `json:"limit"`
	LimitReached bool   `json:"limit_reached"`
	Applied      int    `json:"applied"`
	Skipped      int    `json:"skipped"`
	Jobs         []struct {
		ID      int64  `json:"id"`
		Outcome string `json:"outcome"`
		State   string `json:"state"`
	} `json:"jobs"`
}

func (b bulkOutput) ids() []int64 {
	out := make([]int64, len(b.Jobs))
	for i, j := range b.Jobs {
		out[i] = j.ID
	}
	return out
}

// TestJobsCancelAndRetryByFilter: with filters instead of an id, awa jobs
// cancel and retry act on up to -limit jobs of the filter, newest first, and
// say so (table and -json, limit_reached when the limit stopped them);
// -dry-run lists the same jobs and changes nothing; other queues' jobs stay
// as they were; bad usage (no id and no filter, both, a bad limit, a state
// the command cannot act on, a bad name) exits 2.
func TestJobsCancelAndRetryByFilter(t *testing.T) {
	t.Parallel()
	dsn, ctx, conn := cliDB(t)
	a := insertJobs(ctx, t, conn, "bulk_q", "bulk.a", `{}`, 5)
	b := insertJobs(ctx, t, conn, "bulk_q", "bulk.b", `{"tags": ["t1"]}`, 2)
	insertJobs(ctx, t, conn, "bulk_other", "bulk.a", `{}`, 1)
	available := func(queue string) int64 {
		t.Helper()
		var n int64
		if err := conn.QueryRow(ctx, `SELECT coalesce(sum(available), 0)::bigint FROM awa.queue_counts($1)`, queue).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	bulk := func(args ...string) bulkOutput {
		t.Helper()
		return cliJSON[bulkOutput](ctx, t, dsn, args...)
	}
	newest3 := []int64{a[4], a[3], a[2]}

	dry := bulk("jobs", "cancel", "-queue", "bulk_q", "-kind", "bulk.a", "-limit", "3", "-dry-run")
	if !dry.DryRun || !slices.Equal(dry.ids(), newest3) || !dry.LimitReached || dry.Limit != 3 {
		t.Fatalf("cancel -dry-run: %+v; want jobs %v, the limit reached", dry, newest3)
	}
	if n := available("bulk_q"); n != 7 {
		t.Fatalf("after a dry run bulk_q has %d available jobs, want all 7", n)
	}
	done := bulk("jobs", "cancel", "-queue", "bulk_q", "-kind", "bulk.a", "-limit", "3", "-reason", "incident 42")
	if done.Action != "cancel" || done.Applied != 3 || done.Skipped != 0 || !slices.Equal(done.ids(), newest3) ||
		!done.LimitReached || done.Jobs[0].State != "cancelled" {
		t.Fatalf("cancel -limit 3: %+v; want the dry run's jobs %v cancelled, the limit reached", done, newest3)
	}
	code, out, errs := cli(ctx, t, dsn, "jobs", "cancel", "-queue", "bulk_q")
	if want := []string{strconv.FormatInt(b[1], 10), strconv.FormatInt(b[0], 10), strconv.FormatInt(a[1], 10),
		strconv.FormatInt(a[0], 10), "cancel:"}; code != 0 || !slices.Equal(firstColumn(out), want) ||
		!strings.Contains(out, "cancel: 4 applied, 0 skipped") || strings.Contains(out, "limit") {
		t.Fatalf("cancel -queue bulk_q (table): exit %d, out %q, err %q; want rows %v applied, no limit reached", code, out,
			errs, want[:4])
	}
	if n := available("bulk_other"); n != 1 {
		t.Fatalf("bulk_other has %d available jobs, want its 1 untouched", n)
	}

	code, out, _ = cli(ctx, t, dsn, "jobs", "retry", "-queue", "bulk_q", "-tag", "t1", "-dry-run")
	if code != 0 || !strings.Contains(out, "dry run: retry would act on these 2 jobs (states failed, cancelled); nothing changed") {
		t.Fatalf("retry -tag t1 -dry-run: exit %d, out %q", code, out)
	}
	retried := bulk("jobs", "retry", "-queue", "bulk_q", "-state", "cancelled", "-at", "1h")
	if retried.Applied != 7 || retried.LimitReached || retried.Limit != bulkDefaultLimit || retried.Jobs[0].State != "scheduled" {
		t.Fatalf("retry -state cancelled -at 1h: %+v; want 7 applied, scheduled, the default limit not reached", retried)
	}
	if left := bulk("jobs", "retry", "-queue", "bulk_q", "-dry-run"); len(left.Jobs) != 0 || left.LimitReached {
		t.Fatalf("a retry dry run after the retry: %+v, want no job", left)
	}

	for _, c := range [][]string{
		{"jobs", "cancel"},
		{"jobs", "cancel", strconv.FormatInt(a[0], 10), "-queue", "bulk_q"},
		{"jobs", "retry", strconv.FormatInt(a[0], 10), "-dry-run"},
		{"jobs", "cancel", "-queue", "bulk_q", "-limit", "0"},
		{"jobs", "cancel", "-queue", "bulk_q", "-limit", "10001"},
		{"jobs", "cancel", "-state", "completed"},
		{"jobs", "retry", "-state", "running", "-dry-run"},
		{"jobs", "cancel", "-queue", "bad name"},
		{"jobs", "retry", "-tag", strings.Repeat("t", 101)},
		{"jobs", "cancel", "-kind", "bulk.a", "1", "2"},
	} {
		if code, _, errs := cli(ctx, t, dsn, c...); code != 2 {
			t.Errorf("awa %s: exit %d (%s), want 2 (bad usage)", strings.Join(c, " "), code, errs)
		}
	}
}

// TestDLQListReadsTheDLQAlone: awa dlq list shows the DLQ's jobs, newest
// first, paged by -after, filtered by queue, kind and tag, and never a
// failed job outside the DLQ, however many newer ones there are.
func TestDLQListReadsTheDLQAlone(t *testing.T) {
	t.Parallel()
	dsn, ctx, conn := cliDB(t)
	for _, q := range []string{"dlq_a", "dlq_b"} {
		if _, err := conn.Exec(ctx, `SELECT awa.configure_queue($1, '{"dlq": true}')`, q); err != nil {
			t.Fatal(err)
		}
	}
	a := failJobs(ctx, t, conn, "dlq_a", "report.k", nil, 2)
	b := failJobs(ctx, t, conn, "dlq_b", "export.k", []string{"nightly"}, 1)
	plain := failJobs(ctx, t, conn, "plain_q", "report.k", nil, 120) // more than two pages of 50, newer

	list := func(args ...string) listPage {
		t.Helper()
		return cliJSON[listPage](ctx, t, dsn, append([]string{"dlq", "list"}, args...)...)
	}
	ids := func(p listPage) []int64 {
		var out []int64
		for _, j := range p.Jobs {
			if !j.DLQ || j.State != "failed" {
				t.Fatalf("awa dlq list showed job %d: %s, dlq %v", j.ID, j.State, j.DLQ)
			}
			out = append(out, j.ID)
		}
		return out
	}
	first := list("-limit", "2")
	if got := ids(first); !slices.Equal(got, []int64{b[0], a[1]}) || first.Next != a[1] {
		t.Fatalf("first page %v, next %d; want %v and next %d (the %d failed jobs outside the DLQ left out)",
			got, first.Next, []int64{b[0], a[1]}, a[1], len(plain))
	}
	if second := list("-limit", "2", "-after", strconv.FormatInt(first.Next, 10)); !slices.Equal(ids(second), a[:1]) || second.Next != 0 {
		t.Fatalf("second page %+v; want job %d and no next page", second, a[0])
	}
	for _, c := range []struct {
		args []string
		want []int64
	}{
		{[]string{"-queue", "dlq_a"}, []int64{a[1], a[0]}},
		{[]string{"-kind", "export.k"}, b},
		{[]string{"-tag", "nightly"}, b},
		{[]string{"-queue", "plain_q"}, nil},
	} {
		if got := ids(list(c.args...)); !slices.Equal(got, c.want) {
			t.Errorf("awa dlq list %s: %v, want %v", strings.Join(c.args, " "), got, c.want)
		}
	}
	code, out, _ := cli(ctx, t, dsn, "dlq", "list")
	if want := []string{strconv.FormatInt(b[0], 10), strconv.FormatInt(a[1], 10), strconv.FormatInt(a[0], 10)}; code != 0 ||
		!strings.Contains(out, "failed (dlq)") || !slices.Equal(firstColumn(out), want) {
		t.Fatalf("awa dlq list (table): exit %d, out %q; want the rows of jobs %v", code, out, want)
	}
	for _, c := range [][]string{{"dlq", "list", "-state", "failed"}, {"dlq", "list", "-limit", "0"}, {"dlq", "list", "-queue", "a b"}} {
		if code, _, errs := cli(ctx, t, dsn, c...); code != 2 {
			t.Errorf("awa %s: exit %d (%s), want 2", strings.Join(c, " "), code, errs)
		}
	}
}

// TestPeriodicCommands: awa periodic list shows the periodic jobs (table and
// -json); pause, resume and delete act on one by name and print it; an
// unknown name exits 3, a bad one 2.
func TestPeriodicCommands(t *testing.T) {
	t.Parallel()
	dsn, ctx, conn := cliDB(t)
	if _, err := conn.Exec(ctx, `SELECT * FROM awa.upsert_periodic_job('cli_digest', '*/5 * * * *', 'cli.digest', '{"n": 1}',
		'{"queue": "cli_q"}', 'Europe/Paris')`); err != nil {
		t.Fatal(err)
	}
	type periodic struct {
		Name      string          `json:"name"`
		Schedule  string          `json:"schedule"`
		TimeZone  string          `json:"timezone"`
		Kind      string          `json:"kind"`
		Queue     string          `json:"queue"`
		Args      json.RawMessage `json:"args"`
		Paused    bool            `json:"paused"`
		NextRunAt *string         `json:"next_run_at"`
	}
	list := cliJSON[[]periodic](ctx, t, dsn, "periodic", "list")
	if len(list) != 1 {
		t.Fatalf("awa periodic list -json: %+v, want one periodic job", list)
	}
	if p := list[0]; p.Name != "cli_digest" || p.Schedule != "*/5 * * * *" || p.TimeZone != "Europe/Paris" ||
		p.Kind != "cli.digest" || p.Queue != "cli_q" || strings.Join(strings.Fields(string(p.Args)), "") != `{"n":1}` || p.Paused || p.NextRunAt != nil {
		t.Fatalf("awa periodic list -json: %+v", p)
	}
	if code, out, _ := cli(ctx, t, dsn, "periodic", "pause", "cli_digest"); code != 0 ||
		!regexpMatch(`cli_digest\s+\*/5 \* \* \* \*\s+Europe/Paris\s+cli\.digest\s+cli_q\s+true`, out) {
		t.Fatalf("awa periodic pause: exit %d, out %q; want its row, paused", code, out)
	}
	if code, out, _ := cli(ctx, t, dsn, "periodic", "list"); code != 0 || !strings.Contains(out, "PAUSED") ||
		!regexpMatch(`cli_q\s+true`, out) {
		t.Fatalf("awa periodic list after the pause: exit %d, out %q", code, out)
	}
	if one := cliJSON[periodic](ctx, t, dsn, "periodic", "resume", "cli_digest"); one.Name != "cli_digest" || one.Paused {
		t.Fatalf("awa periodic resume -json: %+v; want it not paused", one)
	}
	if one := cliJSON[periodic](ctx, t, dsn, "periodic", "delete", "cli_digest"); one.Name != "cli_digest" {
		t.Fatalf("awa periodic delete -json: %+v", one)
	}
	if code, out, _ := cli(ctx, t, dsn, "periodic", "list", "-json"); code != 0 || strings.TrimSpace(out) != "[]" {
		t.Fatalf("awa periodic list -json after the delete: exit %d, out %q; want []", code, out)
	}
	for _, c := range []struct {
		args []string
		code int
	}{
		{[]string{"periodic", "pause", "cli_digest"}, exitNotFound},
		{[]string{"periodic", "delete", "no_such"}, exitNotFound},
		{[]string{"periodic", "resume", "bad name"}, 2},
		{[]string{"periodic", "pause"}, 2},
		{[]string{"periodic", "frobnicate"}, 2},
	} {
		if code, _, errs := cli(ctx, t, dsn, c.args...); code != c.code {
			t.Errorf("awa %s: exit %d (%s), want %d", strings.Join(c.args, " "), code, errs, c.code)
		}
	}
}

// firstColumn returns the first word of each line of a table after its
// header.
func firstColumn(table string) []string {
	var out []string
	for _, line := range strings.Split(strings.TrimSpace(table), "\n")[1:] {
		out = append(out, strings.Fields(line)[0])
	}
	return out
}

func regexpMatch(pattern, s string) bool { return regexp.MustCompile(pattern).MatchString(s) }
