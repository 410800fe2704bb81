package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/awa-queue/awa/driver"
	"github.com/awa-queue/awa/internal/pgtest"
)

// TestDemoAccountsForEveryJob runs `awa demo` end to end, in process, on a
// fresh database with a small job count: every job must reach the final state
// its kind asks for exactly once, and the summary must say so.
func TestDemoAccountsForEveryJob(t *testing.T) {
	t.Parallel()
	dsn := pgtest.NewDBDSN(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()

	var out, logs bytes.Buffer
	start := time.Now()
	rep, err := runDemo(ctx, demoOptions{DSN: dsn, Jobs: 300, Workers: 20, Duration: 30 * time.Second}, &out, &logs)
	t.Logf("demo took %s; output:\n%s", time.Since(start).Round(time.Millisecond), out.String())
	if logs.Len() > 0 {
		t.Logf("logs:\n%s", logs.String())
	}
	if err != nil {
		t.Fatalf("runDemo: %v", err)
	}
	if !rep.ok() {
		t.Fatalf("not every job is accounted for: %q", rep.Problems)
	}
	if rep.EndedBy != endedDone {
		t.Errorf("work phase ended by %s", rep.EndedBy)
	}
	// 300 bulk + 2 invalid orders + 5 snoozing + 5 cancelling (InsertMany),
	// 1 InsertTx, 5 scheduled; from SQL 1 + 14 mail + 5 webhooks + 5 exports.
	const want = 300 + 2 + 5 + 5 + 1 + 5 + 1 + 14 + 5 + 5
	if rep.Expected != want || rep.Accounted() != want {
		t.Errorf("expected %d jobs and accounted for %d, want %d each", rep.Expected, rep.Accounted(), want)
	}
	for oc, n := range map[outcome]int64{outcomeCompleted: want - 2 - 5 - 5, outcomeFailed: 2, outcomeCancelled: 5, outcomeDLQ: 5} {
		if rep.Want[oc] != n || rep.Got[oc] != n {
			t.Errorf("%s: planned %d, handlers reported %d, want %d", oc, rep.Want[oc], rep.Got[oc], n)
		}
	}
	if rep.DB.DLQ != 5 {
		t.Errorf("database DLQ count %d, want 5", rep.DB.DLQ)
	}
	if rep.Retries != 5+5 || rep.Snoozes != 5 {
		t.Errorf("retries %d, snoozes %d; want 10 and 5", rep.Retries, rep.Snoozes)
	}
	for _, s := range []string{
		"SELECT * FROM awa.insert_job('send_email'",
		"client.InsertTx + ROLLBACK",
		fmt.Sprintf("accounted for: %d of %d jobs ended exactly once", want, want),
		fmt.Sprintf("OK: every one of the %d jobs is accounted for.", want),
		"ready_entries (16 slots)",
		"SELECT * FROM awa.resume_external(",
		"-> outcome applied",
		`read callback_result {"approved_by": "ops@example.com"}`,
		`progress {"of": 6, "step": `,
		"completed after its 6 steps",
		"SELECT * FROM awa.pause_queue('ops');",
		"drained false, available true (paused)",
		"SELECT * FROM awa.resume_queue('ops');",
		`client.DrainQueue(ctx, "ops"): drained`,
		"SELECT * FROM awa.upsert_periodic_job('ops_digest', '@every 1s'",
		"the maintenance leader fired job",
		"the ops_digest jobs completed",
		"SELECT * FROM awa.configure_queue('aging', '{\"aging_seconds\": 1}');",
		"claimed in this order: priority 4, due 3s ago; priority 1, #1",
		"at most 1 acme and 1 zed job ran at a time",
		"the third insert fails fast:",
		"attempt 1 failed (card network timeout); attempt 2 began",
		"handed it back untouched: state scheduled, attempt 0 (none spent)",
		"the new process ran job",
		"(same page, same transaction):",
		"duplicate true",
		"(after it completed):",
	} {
		if !strings.Contains(out.String(), s) {
			t.Errorf("output lacks %q", s)
		}
	}
	// The ring tables are append-only: the summary's figures must show it.
	if !strings.Contains(strings.Join(strings.Fields(out.String()), " "), "not one update or delete") {
		t.Errorf("summary does not report append-only ring tables")
	}
}

// TestDemoRefusesADatabaseWithJobs: the demo accounts for every job, so it
// refuses a database that already holds some, unless -reset.
func TestDemoRefusesADatabaseWithJobs(t *testing.T) {
	dsn, ctx, _, client := clientOnNewDB(t)
	if _, err := client.Insert(ctx, SendEmailArgs{To: "x@example.com"}, nil); err != nil {
		t.Fatal(err)
	}
	var out, logs bytes.Buffer
	if code := run(ctx, []string{"demo", "-dsn", dsn, "-jobs", "10"}, &out, &logs); code != 1 {
		t.Fatalf("exit %d, want 1; stderr: %s", code, logs.String())
	}
	if !strings.Contains(logs.String(), "already holds awa jobs") {
		t.Errorf("stderr does not explain the refusal: %s", logs.String())
	}
}

// TestMigrateDownStatusUp drives `awa migrate` through the command line.
func TestMigrateDownStatusUp(t *testing.T) {
	t.Parallel()
	dsn := pgtest.NewDBDSN(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	step := func(want string, args ...string) {
		t.Helper()
		var out, errb bytes.Buffer
		if code := run(ctx, append([]string{"migrate"}, args...), &out, &errb); code != 0 {
			t.Fatalf("awa migrate %q: exit %d: %s", args, code, errb.String())
		}
		if !strings.Contains(out.String(), want) {
			t.Fatalf("awa migrate %q printed %q, want it to contain %q", args, out.String(), want)
		}
	}
	step("up to date", "up", "-dsn", dsn)
	step("applied", "-dsn", dsn, "status")
	step("rolled back", "down", "-dsn", dsn)
	step("pending", "status", "-dsn", dsn)
	step("applied", "up", "-dsn", dsn)

	var out, errb bytes.Buffer
	if code := run(ctx, []string{"migrate", "sideways", "-dsn", dsn}, &out, &errb); code != 2 {
		t.Errorf("awa migrate sideways: exit %d, want 2", code)
	}
}

// TestMigrateSchemaFlag: `awa migrate -schema` installs, upgrades and removes
// an install beside schema awa, leaving awa's alone.
func TestMigrateSchemaFlag(t *testing.T) {
	t.Parallel()
	dsn := pgtest.NewDBDSN(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	migrate := func(args ...string) (int, string) {
		t.Helper()
		var out, errb bytes.Buffer
		code := run(ctx, append([]string{"migrate", "-dsn", dsn}, args...), &out, &errb)
		return code, out.String() + errb.String()
	}
	for _, step := range []struct {
		args []string
		want string
	}{
		{[]string{"up", "-schema", "jobs_b"}, "applied"},
		{[]string{"up", "-schema", "jobs_b"}, "schema jobs_b is up to date"},
		{[]string{"status", "-schema", "jobs_b"}, "applied"},
		{[]string{"down", "-schema", "jobs_b"}, "rolled back"},
		{[]string{"down", "-schema", "jobs_b"}, "nothing to roll back: schema jobs_b is not installed"},
		{[]string{"up"}, "schema awa is up to date"},
	} {
		if code, out := migrate(step.args...); code != 0 || !strings.Contains(out, step.want) {
			t.Fatalf("awa migrate %q: exit %d, %q; want exit 0 and %q", step.args, code, out, step.want)
		}
	}
	if code, out := migrate("up", "-schema", "Jobs"); code == 0 || !strings.Contains(out, "invalid awa schema name") {
		t.Errorf("awa migrate up -schema Jobs: exit %d, %q; want a refusal", code, out)
	}
}

// TestWorkRunsDemoKinds runs `awa work` until its context ends, while jobs of
// the demo kinds are enqueued.
func TestWorkRunsDemoKinds(t *testing.T) {
	dsn, ctx, pool, client := clientOnNewDB(t)
	var jobs []driver.InsertManyParams
	for i := 0; i < 20; i++ {
		jobs = append(jobs, driver.InsertManyParams{Args: SendEmailArgs{To: fmt.Sprintf("u%d@example.com", i)},
			Opts: &driver.InsertOpts{Queue: queueMail}})
	}
	jobs = append(jobs, driver.InsertManyParams{Args: SyncLegacyArgs{AccountID: 1}})
	if _, err := client.InsertMany(ctx, jobs); err != nil {
		t.Fatal(err)
	}

	workCtx, stop := context.WithCancel(ctx)
	done := make(chan int, 1)
	var out, errb bytes.Buffer
	go func() {
		done <- run(workCtx, []string{"work", "-dsn", dsn, "-queues", "default,mail", "-workers", "5"}, &out, &errb)
	}()
	for {
		c, err := sumCounts(ctx, client.Driver(), pool)
		if err != nil {
			t.Fatal(err)
		}
		if c.Completed == 20 && c.Cancelled == 1 {
			break
		}
		if ctx.Err() != nil {
			t.Fatalf("jobs not worked: %+v; stderr: %s", c, errb.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	stop()
	if code := <-done; code != 0 {
		t.Fatalf("awa work: exit %d: %s", code, errb.String())
	}
	if !strings.Contains(out.String(), "completed 20 ") || !strings.Contains(out.String(), "cancelled 1 ") {
		t.Errorf("awa work output lacks the final counts: %s", out.String())
	}
}

// clientOnNewDB marks t parallel and returns a fresh database, a context of
// 30 s, a pool of one connection to it and a driver client (no workers) on it.
func clientOnNewDB(t *testing.T) (string, context.Context, *pgxpool.Pool, *driver.Client) {
	t.Helper()
	t.Parallel()
	dsn := pgtest.NewDBDSN(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	pool, err := openPool(ctx, dsn, 1)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	client, err := driver.NewClient(pool, nil)
	if err != nil {
		t.Fatal(err)
	}
	return dsn, ctx, pool, client
}

// TestDemoThroughATransactionPooler: `awa demo` on a plain DSN through
// PgBouncer in transaction mode stops before its first enqueue with
// driver.ErrTransactionPooler, run after run (a second process finds the
// first one's prepared statements on the server connections, where its own
// would fail with pgx's "already exists" if it got that far); with
// default_query_exec_mode=exec and LISTEN on a direct DSN it accounts for
// every job.
func TestDemoThroughATransactionPooler(t *testing.T) {
	bouncer := pgtest.StartPgBouncer(t, "transaction", 2)
	direct := pgtest.NewDBAtDSN(t, 0)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	for i := range 2 {
		var out, logs bytes.Buffer
		_, err := runDemo(ctx, demoOptions{DSN: bouncer.DSN(direct), Jobs: 20, Workers: 4, Duration: 20 * time.Second}, &out, &logs)
		if !errors.Is(err, driver.ErrTransactionPooler) {
			t.Fatalf("demo run %d on a plain DSN through PgBouncer: %v, want ErrTransactionPooler\n%s", i+1, err, logs.String())
		}
	}
	pool, err := pgxpool.New(ctx, direct)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	var jobs int
	if err := pool.QueryRow(ctx, "SELECT count(*) FROM awa.jobs").Scan(&jobs); err != nil || jobs != 0 {
		t.Fatalf("the refused runs left %d jobs (%v), want none", jobs, err)
	}
	u, err := url.Parse(bouncer.DSN(direct))
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	q.Set("default_query_exec_mode", "exec")
	u.RawQuery = q.Encode()
	var out, logs bytes.Buffer
	rep, err := runDemo(ctx, demoOptions{DSN: u.String(), Listen: direct, Jobs: 20, Workers: 4, Duration: 60 * time.Second}, &out, &logs)
	if err != nil {
		t.Fatalf("demo in exec mode through PgBouncer: %v\n%s", err, logs.String())
	}
	if !rep.ok() {
		t.Fatalf("demo in exec mode through PgBouncer: not every job is accounted for: %q", rep.Problems)
	}
}
