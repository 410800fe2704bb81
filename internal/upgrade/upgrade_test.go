// Package upgrade tests an upgrade from the newest release to the head
// migrations with real processes (docs/releases.md, "The upgrade test").
package upgrade

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/awa-queue/awa/db"
	"github.com/awa-queue/awa/driver"
	"github.com/awa-queue/awa/internal/pgtest"
)

// The newest release is installed and left with jobs in every state; a worker
// process built from that release's source works while `goose up` takes the
// database to the head migrations; then the head's worker finishes. Every job
// ends as it would have without the upgrade: each worked job completed by
// exactly one run, the DLQ job still in the DLQ, the terminal jobs unchanged.
// With no unreleased migration the upgrade applies nothing and the outcomes
// are asserted all the same.
func TestUpgradeFromTheLatestReleaseWhileItsWorkerRuns(t *testing.T) {
	start := time.Now()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	version, last, err := db.LatestRelease()
	if err != nil {
		t.Fatal(err)
	}
	commit := releaseCommit(t, root, version)
	dsn := pgtest.NewDBAtDSN(t, last) // the release installed, as its users have it
	tmp := t.TempDir()

	// Both workers are built while the jobs are set up.
	var builds sync.WaitGroup
	var oldBin, newBin string
	var oldErr, newErr error
	builds.Add(2)
	go func() {
		defer builds.Done()
		src := filepath.Join(tmp, "release")
		if oldErr = run(root, "bash", "-c", fmt.Sprintf("set -o pipefail; mkdir -p %q && git archive %s | tar -x -C %q", src, commit, src)); oldErr == nil {
			oldBin, oldErr = build(src, filepath.Join(tmp, "worker-v"+version))
		}
	}()
	go func() {
		defer builds.Done()
		newBin, newErr = build(root, filepath.Join(tmp, "worker-head"))
	}()

	ctx, pool := openPool(t, dsn)
	var installed string
	if err := pool.QueryRow(ctx, `SELECT awa.substrate_version()`).Scan(&installed); err != nil || installed != version {
		t.Fatalf("installed substrate = %q, %v; want the release %s", installed, err, version)
	}
	jobs := setUpJobs(t, ctx, pool)

	builds.Wait()
	if oldErr != nil || newErr != nil {
		t.Fatalf("build the workers: release v%s (%s): %v; head: %v", version, commit[:12], oldErr, newErr)
	}
	t.Logf("release v%s from %s, workers built after %s", version, commit[:12], time.Since(start).Round(time.Millisecond))

	old := startWorker(t, oldBin, dsn)
	// Upgrade while the old worker holds jobs.
	waitFor(t, 20*time.Second, "the release's worker runs jobs", func() bool {
		return count(t, ctx, pool, `SELECT count(*) FROM awa.jobs WHERE state = 'running' AND queue = 'crash'`) > 0
	})
	upStart := time.Now()
	applied := gooseUp(t, ctx, dsn)
	upTook := time.Since(upStart)
	var upgraded string
	if err := pool.QueryRow(ctx, `SELECT awa.substrate_version()`).Scan(&upgraded); err != nil || upgraded != driver.SubstrateVersion {
		t.Fatalf("substrate after goose up = %q, %v; want %s", upgraded, err, driver.SubstrateVersion)
	}
	t.Logf("goose up applied %v in %s while the release's worker ran", applied, upTook.Round(time.Millisecond))
	// The old worker goes on under the new substrate, then stops gracefully
	// (its running jobs finish and their results are flushed).
	time.Sleep(time.Second)
	old.stop(t)
	neu := startWorker(t, newBin, dsn)
	waitFor(t, 40*time.Second, "every crash job completed", func() bool {
		return count(t, ctx, pool, `SELECT count(*) FROM awa.jobs WHERE queue = 'crash' AND state <> 'completed'`) == 0
	})
	neu.stop(t)

	// Outcomes.
	for _, j := range jobs {
		var states []string
		rows, err := pool.Query(ctx, `SELECT state::text || CASE WHEN dlq THEN '+dlq' ELSE '' END FROM awa.jobs WHERE id = $1`, j.id)
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var s string
			if err := rows.Scan(&s); err != nil {
				t.Fatal(err)
			}
			states = append(states, s)
		}
		rows.Close()
		if len(states) != 1 || states[0] != j.want {
			t.Errorf("job %d (%s): awa.jobs says %v, want exactly one row, %s", j.id, j.what, states, j.want)
		}
		var runs int
		if err := pool.QueryRow(ctx, `SELECT count(*) FROM crash_runs WHERE job_id = $1`, j.id).Scan(&runs); err != nil {
			t.Fatal(err)
		}
		if runs != j.runs {
			t.Errorf("job %d (%s): run %d times by the workers, want %d", j.id, j.what, runs, j.runs)
		}
	}
	var byOld, byNew int
	if err := pool.QueryRow(ctx, `SELECT count(*) FILTER (WHERE pid = $1), count(*) FILTER (WHERE pid = $2) FROM crash_runs`,
		old.pid, neu.pid).Scan(&byOld, &byNew); err != nil {
		t.Fatal(err)
	}
	if byOld == 0 || byNew == 0 {
		t.Errorf("runs by the release's worker: %d, by the head's: %d; want both working", byOld, byNew)
	}
	if n := count(t, ctx, pool, `SELECT count(*) FROM awa.dlq_entries`); n != 1 {
		t.Errorf("DLQ entries: %d, want the one DLQ job", n)
	}
	// The migration locks schema awa as a whole before it alters anything
	// (db/upgrade/00_lock_awa.sql): neither side is ever a deadlock's victim.
	for _, w := range []*worker{old, neu} {
		if bytes.Contains(w.log.Bytes(), []byte("40P01")) || bytes.Contains(w.log.Bytes(), []byte("deadlock")) {
			t.Errorf("worker %d met a deadlock during the upgrade:\n%s", w.pid, w.log)
		}
	}
	t.Logf("runs: %d by v%s's worker, %d by the head's; %s in all", byOld, version, byNew, time.Since(start).Round(time.Millisecond))
}

// openPool connects to dsn for the test's checks, for at most 2 minutes;
// both end with the test.
func openPool(t *testing.T, dsn string) (context.Context, *pgxpool.Pool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	pool, err := pgxpool.New(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	return ctx, pool
}

// releaseCommit finds the commit that added the release marker: commit hashes
// change when history is rebased, the marker's first commit does not.
func releaseCommit(t *testing.T, root, version string) string {
	t.Helper()
	marker := "db/releases/v" + version
	shallow, err := output(root, "git", "rev-parse", "--is-shallow-repository")
	if err != nil || strings.TrimSpace(shallow) != "false" {
		t.Fatalf("the upgrade test needs the git history (it builds the worker of release v%s from the commit that "+
			"added %s): git rev-parse --is-shallow-repository = %q, %v; run it in a full clone (git fetch --unshallow)",
			version, marker, strings.TrimSpace(shallow), err)
	}
	out, err := output(root, "git", "log", "--diff-filter=A", "--format=%H", "--", marker)
	commits := strings.Fields(out)
	if err != nil || len(commits) == 0 {
		t.Fatalf("the upgrade test needs the git history: no commit adds %s (git log --diff-filter=A: %q, %v)", marker, out, err)
	}
	return commits[len(commits)-1] // the first one to add it
}

type job struct {
	id   int64
	what string
	want string // final state in awa.jobs, "+dlq" when in the DLQ
	runs int    // runs by the workers (crash_runs rows)
}

// setUpJobs leaves jobs in every state on the release's substrate, through
// its SQL API: available, scheduled, retryable, running (an abandoned claim),
// DLQ, and terminal ones (completed, cancelled, failed).
func setUpJobs(t *testing.T, ctx context.Context, pool *pgxpool.Pool) []job {
	t.Helper()
	exec := func(q string, args ...any) {
		t.Helper()
		if _, err := pool.Exec(ctx, q, args...); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	insert := func(queue, opts string) int64 {
		t.Helper()
		var id int64
		if err := pool.QueryRow(ctx, `SELECT id FROM awa.insert_job('crash', '{}', $1::jsonb)`,
			`{"queue": "`+queue+`"`+opts+`}`).Scan(&id); err != nil {
			t.Fatal(err)
		}
		return id
	}
	// claimOne claims the one job ready in queue and finalizes it with fn
	// (complete_jobs, retry_jobs, fail_jobs; "" leaves the attempt open).
	claimOne := func(queue string, id int64, fn, extra string) {
		t.Helper()
		var got, lease, receipt int64
		var slot int32
		if err := pool.QueryRow(ctx, `SELECT id, run_lease, claim_slot, receipt_id FROM awa.claim_ready_runtime($1, 1)`, queue).
			Scan(&got, &lease, &slot, &receipt); err != nil || got != id {
			t.Fatalf("claim %s: job %d, %v; want %d", queue, got, err, id)
		}
		if fn != "" {
			exec(`SELECT * FROM awa.`+fn+`(ARRAY[$1::bigint], ARRAY[$2::bigint], ARRAY[$3::int], ARRAY[$4::bigint]`+extra+`)`,
				id, lease, slot, receipt)
		}
	}
	exec(`CREATE TABLE crash_runs (job_id bigint, run_lease bigint, pid int, at timestamptz)`)
	exec(`SELECT * FROM awa.configure_queue('dlq', '{"dlq": true}')`)

	var jobs []job
	// Claimed in the crash queue before any worker runs, so claimed first.
	r := insert("crash", `, "max_attempts": 5`)
	claimOne("crash", r, "retry_jobs", `, ARRAY['boom'], ARRAY[now() + interval '4 seconds']`)
	jobs = append(jobs, job{r, "retryable", "completed", 1})
	x := insert("crash", "")
	claimOne("crash", x, "", "") // no instance, never finalized: rescued after RescueStaleAfter
	jobs = append(jobs, job{x, "running, abandoned", "completed", 1})

	d := insert("dlq", `, "max_attempts": 1`)
	claimOne("dlq", d, "fail_jobs", `, ARRAY['permanent']`)
	jobs = append(jobs, job{d, "DLQ", "failed+dlq", 0})
	c := insert("done", "")
	claimOne("done", c, "complete_jobs", "")
	jobs = append(jobs, job{c, "completed", "completed", 0})
	f := insert("done", `, "max_attempts": 1`)
	claimOne("done", f, "fail_jobs", `, ARRAY['permanent']`)
	jobs = append(jobs, job{f, "failed", "failed", 0})
	k := insert("done", "")
	exec(`SELECT * FROM awa.cancel_job($1)`, k)
	jobs = append(jobs, job{k, "cancelled", "cancelled", 0})

	for i := 0; i < 3; i++ {
		jobs = append(jobs, job{insert("crash", `, "run_at": "`+time.Now().Add(5*time.Second).UTC().Format(time.RFC3339Nano)+`"`),
			"scheduled", "completed", 1})
	}
	for i := 0; i < 40; i++ {
		jobs = append(jobs, job{insert("crash", ""), "available", "completed", 1})
	}
	want := map[string]bool{"scheduled": true, "available": true, "running": true, "retryable": true, "completed": true,
		"cancelled": true, "failed": true}
	rows, err := pool.Query(ctx, `SELECT DISTINCT state::text FROM awa.jobs`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			t.Fatal(err)
		}
		delete(want, s)
	}
	if len(want) > 0 || count(t, ctx, pool, `SELECT count(*) FROM awa.jobs WHERE dlq`) != 1 {
		t.Fatalf("set-up: states missing before the upgrade: %v (or no DLQ job)", want)
	}
	return jobs
}

type worker struct {
	cmd   *exec.Cmd
	stdin interface{ Close() error }
	pid   int
	log   *bytes.Buffer
}

func startWorker(t *testing.T, bin, dsn string) *worker {
	t.Helper()
	w := &worker{log: &bytes.Buffer{}}
	w.cmd = exec.Command(bin, "-dsn", dsn, "-workers", "4", "-sleep-min", "150ms", "-sleep-max", "300ms")
	w.cmd.Stderr = w.log
	stdin, err := w.cmd.StdinPipe() // the worker exits when it closes
	if err != nil {
		t.Fatal(err)
	}
	w.stdin = stdin
	if err := w.cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", bin, err)
	}
	w.pid = w.cmd.Process.Pid
	t.Cleanup(func() {
		if w.cmd.ProcessState == nil {
			_ = w.cmd.Process.Kill()
			_ = w.cmd.Wait()
		}
	})
	return w
}

// stop ends the worker gracefully (SIGTERM: Client.Stop) and checks it exits 0.
func (w *worker) stop(t *testing.T) {
	t.Helper()
	if err := w.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- w.cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("worker %d exited: %v\n%s", w.pid, err, w.log)
		}
	case <-time.After(20 * time.Second):
		t.Fatalf("worker %d did not stop within 20s\n%s", w.pid, w.log)
	}
	_ = w.stdin.Close()
}

// gooseUp applies the head migrations, as `awa migrate up` does.
func gooseUp(t *testing.T, ctx context.Context, dsn string) []string {
	t.Helper()
	names, err := pgtest.MigrateTo(ctx, dsn, -1)
	if err != nil {
		t.Fatalf("goose up to the head while the release's worker runs: %v", err)
	}
	head, _ := fs.Glob(db.Migrations, "migrations/*.sql")
	var version int
	conn, err := pgxpool.New(ctx, dsn)
	if err == nil {
		err = conn.QueryRow(ctx, `SELECT max(version_id) FROM `+db.VersionTable).Scan(&version)
		conn.Close()
	}
	if err != nil || version != len(head) {
		t.Fatalf("version after up = %d, %v; want %d", version, err, len(head))
	}
	return names
}

func build(dir, out string) (string, error) {
	cmd := exec.Command("go", "build", "-o", out, "./internal/crashworker")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=mod")
	if b, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build in %s: %v\n%s", dir, err, b)
	}
	return out, nil
}

func run(dir string, name string, args ...string) error {
	_, err := output(dir, name, args...)
	return err
}

func output(dir string, name string, args ...string) (string, error) {
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return string(out), fmt.Errorf("%s %s: %v: %s", name, strings.Join(args, " "), err, stderr.String())
	}
	return string(out), nil
}

func count(t *testing.T, ctx context.Context, pool *pgxpool.Pool, q string) int {
	t.Helper()
	var n int
	if err := pool.QueryRow(ctx, q).Scan(&n); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return n
}

func waitFor(t *testing.T, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %s waiting for: %s", timeout, what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// An application transaction that inserted a job and stays open holds one of
// awa's tables: the upgrade waits for it (awa.upgrade_lock_wait, shortened
// here to 1s), then fails with 55P03 and writes nothing; the transaction goes
// on unharmed. A holder that ends while the upgrade waits lets it through.
func TestUpgradeWaitsForAnOpenTransactionThenFailsWritingNothing(t *testing.T) {
	_, last, err := db.LatestRelease()
	if err != nil {
		t.Fatal(err)
	}
	dsn := pgtest.NewDBAtDSN(t, last)
	ctx, pool := openPool(t, dsn)
	sep := "?"
	if strings.Contains(dsn, "?") {
		sep = "&"
	}
	withWait := func(d string) string { return dsn + sep + "options=-c%20awa.upgrade_lock_wait%3D" + d }
	version := func() (substrate string, goose int) {
		t.Helper()
		if err := pool.QueryRow(ctx, `SELECT awa.substrate_version(), (SELECT max(version_id) FROM `+db.VersionTable+`)`).
			Scan(&substrate, &goose); err != nil {
			t.Fatal(err)
		}
		return substrate, goose
	}
	relSubstrate, relGoose := version()

	hold, err := pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var held int64
	if err := hold.QueryRow(ctx, `SELECT id FROM awa.insert_job('held', '{}')`).Scan(&held); err != nil {
		t.Fatal(err)
	}
	began := time.Now()
	_, err = pgtest.MigrateTo(ctx, withWait("1s"), -1)
	took := time.Since(began)
	if err == nil || !strings.Contains(err.Error(), "55P03") || !strings.Contains(err.Error(), "could not lock the tables of schema awa") {
		t.Fatalf("goose up while a transaction holds awa's tables: %v; want 55P03, could not lock the tables of schema awa", err)
	}
	if took < time.Second {
		t.Errorf("the upgrade gave up after %s; want it to wait the 1s awa.upgrade_lock_wait gives", took)
	}
	if s, g := version(); s != relSubstrate || g != relGoose {
		t.Errorf("after the failed upgrade: substrate %s, goose version %d; want the release's %s, %d", s, g, relSubstrate, relGoose)
	}
	if err := hold.Commit(ctx); err != nil {
		t.Fatalf("the holding transaction after the failed upgrade: %v", err)
	}
	if n := count(t, ctx, pool, fmt.Sprintf(`SELECT count(*) FROM awa.jobs WHERE id = %d AND state = 'available'`, held)); n != 1 {
		t.Errorf("the held transaction's job %d: %d available rows, want 1", held, n)
	}

	// A holder that ends 700 ms into the upgrade's wait.
	hold, err = pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := hold.Exec(ctx, `SELECT awa.insert_job('held', '{}')`); err != nil {
		t.Fatal(err)
	}
	ended := make(chan error, 1)
	go func() {
		time.Sleep(700 * time.Millisecond)
		ended <- hold.Commit(ctx)
	}()
	began = time.Now()
	if _, err := pgtest.MigrateTo(ctx, withWait("30s"), -1); err != nil {
		t.Fatalf("goose up once the holder ends: %v", err)
	}
	waited := time.Since(began)
	if err := <-ended; err != nil {
		t.Fatalf("the holder's commit: %v", err)
	}
	if waited < 600*time.Millisecond {
		t.Errorf("the upgrade finished after %s, before the holder ended (700 ms)", waited)
	}
	if s, _ := version(); s != driver.SubstrateVersion {
		t.Errorf("substrate after the upgrade = %s, want %s", s, driver.SubstrateVersion)
	}
	if n := count(t, ctx, pool, `SELECT count(*) FROM awa.jobs WHERE kind = 'held'`); n != 2 {
		t.Errorf("jobs of both holders: %d, want 2", n)
	}
	t.Logf("the upgrade failed after %s against the open transaction; against one that ended at 700 ms it finished after %s",
		took.Round(time.Millisecond), waited.Round(time.Millisecond))
}

// The 0.2.0 upgrade makes awa.job_id_seq count in blocks of 1,024 (ALTER
// SEQUENCE, which waits for every transaction that took nextval's lock). A
// producer between its nextval and its first table holds the sequence and
// none of the tables: here one is held there (its nextval, then a pause)
// while the upgrade starts, then inserts, which waits for the tables. The
// upgrade locks the sequences with the tables, all or none per attempt, so
// it waits for the producer to commit instead of deadlocking with it. After
// the upgrade the next block starts above every id the release drew, at 1
// mod 1,024 as a fresh install's blocks do.
func TestUpgradeToIDBlocksWaitsForAProducerHoldingTheSequenceAndStartsAboveItsIDs(t *testing.T) {
	_, last, err := db.LatestRelease()
	if err != nil {
		t.Fatal(err)
	}
	dsn := pgtest.NewDBAtDSN(t, last)
	ctx, pool := openPool(t, dsn)
	var before int64
	if err := pool.QueryRow(ctx, `SELECT max(id) FROM awa.insert_jobs(array_fill('old'::text, ARRAY[2500]))`).
		Scan(&before); err != nil {
		t.Fatal(err)
	}

	producer, err := pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = producer.Rollback(ctx) }()
	var drawn int64
	if err := producer.QueryRow(ctx, `SELECT nextval('awa.job_id_seq')`).Scan(&drawn); err != nil {
		t.Fatal(err)
	}
	if drawn <= before {
		t.Fatalf("the release's sequence gave %d after %d", drawn, before)
	}
	up := inBackground(func() error { _, err := pgtest.MigrateTo(ctx, dsn, -1); return err })
	time.Sleep(300 * time.Millisecond) // the upgrade is trying its locks
	var held int64
	if err := producer.QueryRow(ctx, `SELECT id FROM awa.insert_job('held', '{}')`).Scan(&held); err != nil {
		t.Fatalf("the producer's insert while the upgrade starts: %v", err)
	}
	if err := producer.Commit(ctx); err != nil {
		t.Fatalf("the producer's commit: %v", err)
	}
	if err := <-up; err != nil {
		t.Fatalf("goose up with a producer holding awa.job_id_seq: %v", err)
	}

	var increment, first, second, batch int64
	if err := pool.QueryRow(ctx, `SELECT increment_by FROM pg_sequences WHERE schemaname = 'awa' AND sequencename = 'job_id_seq'`).
		Scan(&increment); err != nil || increment != 1024 {
		t.Fatalf("awa.job_id_seq increments by %d, %v; want 1024", increment, err)
	}
	tx, err := pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []*int64{&first, &second} {
		if err := tx.QueryRow(ctx, `SELECT id FROM awa.insert_job('new', '{}')`).Scan(id); err != nil {
			t.Fatal(err)
		}
	}
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	if err := pool.QueryRow(ctx, `SELECT min(id) FROM awa.insert_jobs(array_fill('new'::text, ARRAY[3]))`).Scan(&batch); err != nil {
		t.Fatal(err)
	}
	top := max(before, drawn, held)
	if first <= top || first%1024 != 1 || second != first+1 || batch != first+1024 {
		t.Errorf("after the upgrade: a transaction's single inserts got %d and %d, the next batch began at %d; "+
			"want a block starting above %d (the release's highest id) at 1 mod 1024, its next id, then the next block",
			first, second, batch, top)
	}
	if n := count(t, ctx, pool, `SELECT count(*) FROM awa.jobs`); n != 2500+1+2+3 {
		t.Errorf("jobs after the upgrade: %d, want %d", n, 2500+1+2+3)
	}
	if n := count(t, ctx, pool, `SELECT count(DISTINCT id) FROM awa.jobs`); n != 2500+1+2+3 {
		t.Errorf("distinct job ids after the upgrade: %d, want one per job", n)
	}
}

// inBackground runs f in a goroutine; its error arrives on the channel.
func inBackground(f func() error) <-chan error {
	ch := make(chan error, 1)
	go func() { ch <- f() }()
	return ch
}
