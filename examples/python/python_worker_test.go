// Package python runs the Python worker example (awa_worker.py) against a
// real database, so the SQL protocol it follows stays true.
package python

import (
	"bytes"
	"context"
	"os/exec"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/awa-queue/awa/internal/pgtest"
)

// python is Debian's interpreter, where the python3-psycopg package installs
// psycopg 3 (`make tools` installs it when missing).
const python = "/usr/bin/python3"

func requirePsycopg(t *testing.T) {
	t.Helper()
	if out, err := exec.Command(python, "-c", "import psycopg").CombinedOutput(); err != nil {
		t.Fatalf("%s cannot import psycopg (%v: %s): run `make tools` (apt install python3-psycopg)", python, err, out)
	}
}

type workerProc struct {
	cmd *exec.Cmd
	out bytes.Buffer
}

func startWorker(t *testing.T, dsn string, extra ...string) *workerProc {
	t.Helper()
	args := append([]string{"awa_worker.py", "--dsn", dsn, "--queue", "py", "--effects", "app_effects",
		"--stale-after", "2", "--retry-now"}, extra...)
	w := &workerProc{cmd: exec.Command(python, args...)}
	w.cmd.Stdout, w.cmd.Stderr = &w.out, &w.out
	if err := w.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if w.cmd.ProcessState == nil {
			_ = w.cmd.Process.Kill()
			_ = w.cmd.Wait()
		}
	})
	return w
}

func count(t *testing.T, ctx context.Context, pool *pgxpool.Pool, q string, args ...any) int64 {
	t.Helper()
	var n int64
	if err := pool.QueryRow(ctx, q, args...).Scan(&n); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return n
}

// TestPythonWorkersRunEveryJobOnceThroughAKill: 600 jobs (100 of them fail
// their first attempt) are worked by two Python worker processes; one is
// killed with SIGKILL mid-run, so its claimed jobs wait for stale rescue
// (2 s, through run_maintenance called by the survivor) and run again. Every
// job ends completed exactly once, and every job's side effect (a row written
// in the completing transaction) exists exactly once: the killed worker's
// uncommitted effects rolled back, and a rescued attempt's late completion
// would roll back its effect.
func TestPythonWorkersRunEveryJobOnceThroughAKill(t *testing.T) {
	requirePsycopg(t)
	const records, failOnce = 500, 100
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	dsn := pgtest.NewDBDSN(t)
	pool, err := pgxpool.New(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	if _, err := pool.Exec(ctx, `CREATE TABLE app_effects (job_id bigint NOT NULL, worker text NOT NULL)`); err != nil {
		t.Fatal(err)
	}
	if _, err := pool.Exec(ctx, `SELECT count(*) FROM awa.insert_jobs(
		array_cat(array_fill('record'::text, array[$1::int]), array_fill('fail_once'::text, array[$2::int])),
		NULL, array_fill('{"queue": "py"}'::jsonb, array[$1::int + $2::int]))`, records, failOnce); err != nil {
		t.Fatal(err)
	}

	survivor := startWorker(t, dsn, "--exit-when-idle", "3")
	victim := startWorker(t, dsn, "--batch", "50")
	// Kill the victim once it has claimed jobs it has not finished.
	deadline := time.Now().Add(30 * time.Second)
	for {
		if n := count(t, ctx, pool, `SELECT running FROM awa.queue_counts('py')`); n > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no job ever ran; worker output:\n%s\n%s", survivor.out.String(), victim.out.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	time.Sleep(200 * time.Millisecond)
	if err := victim.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = victim.cmd.Wait()

	done := make(chan error, 1)
	go func() { done <- survivor.cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("the surviving worker failed: %v\n%s", err, survivor.out.String())
		}
	case <-ctx.Done():
		t.Fatalf("the surviving worker did not finish the queue in time\n%s", survivor.out.String())
	}

	const total = records + failOnce
	var completed, left int64
	if err := pool.QueryRow(ctx, `SELECT completed, available + running + scheduled + retryable + failed + dlq + cancelled
		FROM awa.queue_counts('py')`).Scan(&completed, &left); err != nil {
		t.Fatal(err)
	}
	if completed != total || left != 0 {
		t.Fatalf("queue py: %d completed, %d in other states; want all %d completed", completed, left, total)
	}
	effects := count(t, ctx, pool, `SELECT count(*) FROM app_effects`)
	distinct := count(t, ctx, pool, `SELECT count(DISTINCT job_id) FROM app_effects`)
	if effects != total || distinct != total {
		t.Fatalf("side effects: %d rows for %d jobs; want exactly one per job (%d)", effects, distinct, total)
	}
	retried := count(t, ctx, pool, `SELECT count(*) FROM awa.jobs WHERE queue = 'py' AND attempt >= 2`)
	if retried < failOnce {
		t.Fatalf("%d jobs ran more than one attempt; want at least the %d that fail once", retried, failOnce)
	}
	t.Logf("%d jobs completed once each; %d took more than one attempt (failures and the killed worker's rescued claims)",
		total, retried)
}
