//go:build unix

package driver_test

// Crash tests with real worker processes (internal/crashworker): SIGKILL of
// workers mid-run, and SIGSTOP/SIGCONT of a worker holding claimed jobs.
//
// Every kill or freeze of a worker strands the jobs it claimed; the
// maintenance leader (one of the workers) rescues them once the worker's
// heartbeat is RescueStaleAfter (2s) old, routing them through retry (2s
// backoff for attempt 1). The tests assert that no job is lost or finished
// twice: every job ends with exactly one completed record in
// awa.terminal_jobs, and a frozen worker's late completions are stale.

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/awa-queue/awa/driver"
	"github.com/awa-queue/awa/internal/pgtest"
)

// buildCrashWorker builds internal/crashworker into the test's temp dir.
func buildCrashWorker(t *testing.T) string {
	t.Helper()
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("the crash tests build internal/crashworker and need the go command on PATH: %v", err)
	}
	bin := filepath.Join(t.TempDir(), "crashworker")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, goBin, "build", "-o", bin, "github.com/awa-queue/awa/internal/crashworker").CombinedOutput()
	if err != nil {
		t.Fatalf("go build internal/crashworker: %v\n%s", err, out)
	}
	return bin
}

// workerProc is one running crashworker.
type workerProc struct {
	name     string
	cmd      *exec.Cmd
	pid      int
	instance [16]byte
	logPath  string
	exited   chan struct{}
	waitErr  error
}

// crashEnv is the shared state of one crash test.
type crashEnv struct {
	t     *testing.T
	ctx   context.Context
	bin   string
	dsn   string
	dir   string
	pool  *pgxpool.Pool
	procs []*workerProc
	seq   int
}

func newCrashEnv(t *testing.T) *crashEnv {
	t.Helper()
	env := &crashEnv{t: t, ctx: pgtest.Context(t, 3*time.Minute), dsn: pgtest.NewDBDSN(t), dir: t.TempDir()}
	env.bin = buildCrashWorker(t)
	env.pool = openPool(t, env.dsn)
	if _, err := env.pool.Exec(env.ctx, `CREATE TABLE crash_runs (job_id bigint, run_lease bigint, pid int, at timestamptz)`); err != nil {
		t.Fatal(err)
	}
	// Runs after the processes' own clean-ups were registered, so before the
	// database is dropped: no worker outlives the test.
	t.Cleanup(func() {
		for _, p := range env.procs {
			select {
			case <-p.exited:
			default:
				_ = p.cmd.Process.Kill()
				<-p.exited
			}
		}
	})
	return env
}

// start launches a worker with extra flags.
func (env *crashEnv) start(extra ...string) *workerProc {
	env.t.Helper()
	return env.startAs(newInstanceID(env.t), extra...)
}

// newInstanceID returns a random process id (a UUID v4).
func newInstanceID(t *testing.T) [16]byte {
	var id [16]byte
	if _, err := rand.Read(id[:]); err != nil {
		t.Fatal(err)
	}
	id[6] = id[6]&0x0f | 0x40
	id[8] = id[8]&0x3f | 0x80
	return id
}

// startAs launches a worker under instance with extra flags (a restart
// under a killed worker's instance renews its leader lease at once).
func (env *crashEnv) startAs(instance [16]byte, extra ...string) *workerProc {
	t := env.t
	t.Helper()
	env.seq++
	p := &workerProc{name: fmt.Sprintf("w%d", env.seq), exited: make(chan struct{}), instance: instance}
	p.logPath = filepath.Join(env.dir, p.name+".log")
	logFile, err := os.Create(p.logPath)
	if err != nil {
		t.Fatal(err)
	}
	args := append([]string{"-dsn", env.dsn, "-instance", hex.EncodeToString(p.instance[:])}, extra...)
	p.cmd = exec.Command(env.bin, args...)
	p.cmd.Stdout, p.cmd.Stderr = logFile, logFile
	if _, err := p.cmd.StdinPipe(); err != nil { // EOF when this test binary dies
		t.Fatal(err)
	}
	if err := p.cmd.Start(); err != nil {
		t.Fatalf("start crashworker: %v", err)
	}
	p.pid = p.cmd.Process.Pid
	go func() {
		p.waitErr = p.cmd.Wait()
		logFile.Close()
		close(p.exited)
	}()
	env.procs = append(env.procs, p)
	t.Logf("started %s pid %d instance %x", p.name, p.pid, p.instance)
	return p
}

func (p *workerProc) alive() bool {
	select {
	case <-p.exited:
		return false
	default:
		return true
	}
}

func (env *crashEnv) live() []*workerProc {
	var out []*workerProc
	for _, p := range env.procs {
		if p.alive() {
			out = append(out, p)
		}
	}
	return out
}

func (env *crashEnv) signal(p *workerProc, sig syscall.Signal) {
	env.t.Helper()
	if err := p.cmd.Process.Signal(sig); err != nil {
		env.t.Fatalf("signal %v to %s (pid %d): %v", sig, p.name, p.pid, err)
	}
}

func (env *crashEnv) queryInt(sql string, args ...any) int {
	env.t.Helper()
	var n int
	if err := env.pool.QueryRow(env.ctx, sql, args...).Scan(&n); err != nil {
		env.t.Fatalf("%s: %v", sql, err)
	}
	return n
}

func uuidArg(id [16]byte) pgtype.UUID { return pgtype.UUID{Bytes: id, Valid: true} }

// openClaims counts the claimed attempts of p without closure evidence.
func (env *crashEnv) openClaims(p *workerProc) int {
	env.t.Helper()
	return env.queryInt(`
		SELECT count(*) FROM awa._open_receipts WHERE instance_id = $1`,
		uuidArg(p.instance))
}

// waitOpenClaims waits until p holds at least n open claims.
func (env *crashEnv) waitOpenClaims(p *workerProc, n int) {
	env.t.Helper()
	waitFor(env.t, 15*time.Second, fmt.Sprintf("%s to hold %d claimed jobs", p.name, n), func() (bool, string) {
		c := env.openClaims(p)
		return c >= n, fmt.Sprintf("%d open claims", c)
	})
}

func (env *crashEnv) insertJobs(n int) []int64 {
	env.t.Helper()
	params := make([]driver.InsertManyParams, n)
	for i := range params {
		params[i] = driver.InsertManyParams{Args: crashArgs{N: i}, Opts: &driver.InsertOpts{Queue: "crash"}}
	}
	client, err := driver.NewClient(env.pool, nil)
	if err != nil {
		env.t.Fatal(err)
	}
	jobs, err := client.InsertMany(env.ctx, params)
	if err != nil {
		env.t.Fatal(err)
	}
	ids := make([]int64, n)
	for i, j := range jobs {
		ids[i] = j.ID
	}
	return ids
}

// crashArgs: the tests' args types look alike on purpose: a kind is a
// type (driver.JobArgs), and each test names its own.
type crashArgs struct {
	N int `json:"n"`
}

func (crashArgs) Kind() string { return "crash" }

// waitAllTerminal waits until no job of queue crash is unfinished and every
// id has a terminal record.
func (env *crashEnv) waitAllTerminal(n int, timeout time.Duration) {
	env.t.Helper()
	waitFor(env.t, timeout, fmt.Sprintf("all %d jobs to be terminal", n), func() (bool, string) {
		var open, done int
		if err := env.pool.QueryRow(env.ctx, `SELECT
			(SELECT count(*) FROM awa.jobs WHERE queue = 'crash' AND state NOT IN ('completed', 'cancelled', 'failed')),
			(SELECT count(DISTINCT id) FROM awa.terminal_jobs WHERE queue = 'crash')`).Scan(&open, &done); err != nil {
			return false, err.Error()
		}
		return open == 0 && done >= n, fmt.Sprintf("%d unfinished, %d of %d terminal", open, done, n)
	})
}

// terminalRecord is what awa.terminal_jobs holds for one job.
type terminalRecord struct {
	count     int
	completed bool
	runLease  int64 // of the completed record
	errors    string
}

// checkExactlyOnce asserts that every id has exactly one completed terminal
// record whose run_lease is that of the job's last recorded run, that no
// other job of queue crash exists, that no attempt (job, run_lease) ran
// twice, and returns the records.
func (env *crashEnv) checkExactlyOnce(ids []int64) map[int64]terminalRecord {
	t := env.t
	t.Helper()
	recs := map[int64]terminalRecord{}
	rows, err := env.pool.Query(env.ctx, `SELECT id, count(*), bool_and(state = 'completed'), max(run_lease),
		       string_agg(coalesce(errors::text, ''), ' | ')
		FROM awa.terminal_jobs WHERE queue = 'crash' GROUP BY id`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var id int64
		var r terminalRecord
		if err := rows.Scan(&id, &r.count, &r.completed, &r.runLease, &r.errors); err != nil {
			t.Fatal(err)
		}
		recs[id] = r
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}

	lastRun := map[int64]int64{}
	rows, err = env.pool.Query(env.ctx, "SELECT job_id, max(run_lease) FROM crash_runs GROUP BY job_id")
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var id, lease int64
		if err := rows.Scan(&id, &lease); err != nil {
			t.Fatal(err)
		}
		lastRun[id] = lease
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}

	bad := 0
	want := map[int64]bool{}
	for _, id := range ids {
		want[id] = true
		r, ok := recs[id]
		switch {
		case !ok:
			t.Errorf("job %d has no terminal record: lost", id)
		case r.count != 1 || !r.completed:
			t.Errorf("job %d has %d terminal records (all completed: %v), want exactly one completed", id, r.count, r.completed)
		case lastRun[id] == 0:
			t.Errorf("job %d completed (run_lease %d) but crash_runs has no run of it", id, r.runLease)
		case r.runLease != lastRun[id]:
			t.Errorf("job %d completed with run_lease %d, but its last run had run_lease %d", id, r.runLease, lastRun[id])
		default:
			continue
		}
		if bad++; bad > 20 {
			t.Fatalf("more than 20 bad jobs; stopping")
		}
	}
	for id := range recs {
		if !want[id] {
			t.Errorf("awa.terminal_jobs holds job %d that the test never inserted", id)
		}
	}
	if n := env.queryInt("SELECT count(*) FROM awa.jobs WHERE queue = 'crash' AND (dlq OR state <> 'completed')"); n != 0 {
		t.Errorf("%d jobs of queue crash are not completed (or are in the DLQ)", n)
	}
	if n := env.queryInt(`SELECT count(*) FROM (SELECT 1 FROM crash_runs GROUP BY job_id, run_lease HAVING count(*) > 1) d`); n != 0 {
		t.Errorf("%d attempts (job_id, run_lease) ran more than once: a claim was handed out twice", n)
	}
	return recs
}

// stopAll sends SIGTERM to every live worker and requires a clean exit.
func (env *crashEnv) stopAll() {
	t := env.t
	t.Helper()
	live := env.live()
	for _, p := range live {
		env.signal(p, syscall.SIGTERM)
	}
	for _, p := range live {
		select {
		case <-p.exited:
			if p.waitErr != nil {
				t.Errorf("%s exited with %v after SIGTERM, want a clean exit; log %s", p.name, p.waitErr, tail(p.logPath))
			}
		case <-time.After(30 * time.Second):
			t.Errorf("%s did not exit within 30s of SIGTERM; log %s", p.name, tail(p.logPath))
		}
	}
}

func tail(path string) string {
	b, _ := os.ReadFile(path)
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) > 15 {
		lines = lines[len(lines)-15:]
	}
	return "\n" + strings.Join(lines, "\n")
}

// logRecords returns the JSON log records of p whose msg contains msg.
func logRecords(t *testing.T, p *workerProc, msg string) []map[string]any {
	t.Helper()
	f, err := os.Open(p.logPath)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []map[string]any
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var rec map[string]any
		if json.Unmarshal(sc.Bytes(), &rec) != nil {
			continue
		}
		if m, _ := rec["msg"].(string); strings.Contains(m, msg) {
			out = append(out, rec)
		}
	}
	return out
}

// TestCrashKillNineLosesNoJob: 2,000 jobs, three worker processes; in
// several rounds one worker holding claimed jobs is SIGKILLed and replaced.
// Every job ends with exactly one completed terminal record.
//
// Kills stop once the original backlog runs low: a killed maintenance leader
// hands over, and a new leader rotates and prunes the queue ring at once
// (see TestLeaderChangeKeepsTerminalHistory), which would delete the
// terminal history this test reads once the first slot holds nothing live.
func TestCrashKillNineLosesNoJob(t *testing.T) {
	env := newCrashEnv(t)
	const n = 2000
	ids := env.insertJobs(n)
	begin := time.Now()
	for i := 0; i < 3; i++ {
		env.start()
	}

	// All kills happen within 3.5s of the first: a job rescued from a killed
	// worker comes back no sooner than about 3.8s after the kill (2s
	// staleness from its last heartbeat, then the 2s retry backoff), so no
	// job is killed twice, which would cost it the 17s backoff of attempt 2.
	kills := 0
	var firstKill time.Time
	for round := 0; round < 5; round++ {
		time.Sleep(400 * time.Millisecond) // pacing between rounds, not an assertion
		if avail := env.queryInt("SELECT coalesce(sum(available), 0)::int FROM awa.queue_counts('crash')"); avail < n/4 {
			t.Logf("round %d: only %d jobs available; no more kills", round, avail)
			break
		}
		if kills > 0 && time.Since(firstKill) > 3500*time.Millisecond {
			t.Logf("round %d: 3.5s since the first kill; no more kills", round)
			break
		}
		live := env.live()
		victim := live[round%len(live)]
		env.waitOpenClaims(victim, 1)
		holder, _, _ := leaseHolder(t, env.pool)
		env.signal(victim, syscall.SIGKILL)
		if kills == 0 {
			firstKill = time.Now()
		}
		select {
		case <-victim.exited:
		case <-time.After(10 * time.Second):
			t.Fatalf("%s did not die within 10s of SIGKILL", victim.name)
		}
		kills++
		t.Logf("round %d: killed %s (leader: %v) holding about %d claims; %d jobs terminal so far", round, victim.name,
			holder == victim.instance, env.openClaims(victim),
			env.queryInt("SELECT count(DISTINCT id)::int FROM awa.terminal_jobs WHERE queue = 'crash'"))
		env.start()
	}
	if kills < 3 {
		t.Fatalf("only %d workers were killed in the kill window; the test needs at least 3", kills)
	}
	env.waitAllTerminal(n, 90*time.Second)
	t.Logf("all %d jobs terminal %s after the workers started, %d kills", n, time.Since(begin).Round(time.Millisecond), kills)

	recs := env.checkExactlyOnce(ids)
	rescued := 0
	for _, r := range recs {
		if strings.Contains(r.errors, "rescued: worker heartbeat went stale") {
			rescued++
		}
	}
	if rescued == 0 {
		t.Fatalf("no job records a stale rescue, though %d workers were killed holding claims", kills)
	}
	t.Logf("%d jobs were rescued from killed workers and completed elsewhere", rescued)
	env.stopAll()
}

// staleRun is one attempt held by the frozen worker and rescued.
type staleRun struct {
	jobID, runLease int64
}

// TestCrashStoppedWorkerCompletionsAreStale: a worker holding claimed jobs
// is frozen (SIGSTOP) past RescueStaleAfter; its jobs are rescued and run
// again elsewhere; when it is thawed (SIGCONT) its late completions are
// stale: it logs them, and each such job still has exactly one completed
// terminal record, from the rerun (a higher run_lease), while crash_runs
// shows both runs.
func TestCrashStoppedWorkerCompletionsAreStale(t *testing.T) {
	env := newCrashEnv(t)
	const n = 800
	ids := env.insertJobs(n)
	for i := 0; i < 3; i++ {
		env.start("-sleep-min", "50ms", "-sleep-max", "200ms")
	}

	// Freeze a worker that is not the maintenance leader, so rescue and
	// promotion go on while it is frozen.
	var victim *workerProc
	waitFor(t, 20*time.Second, "a leader among the workers", func() (bool, string) {
		holder, live, _ := leaseHolder(t, env.pool)
		if !live {
			return false, "no live lease"
		}
		for _, p := range env.procs {
			if p.instance != holder {
				victim = p
			}
		}
		return victim != nil, ""
	})
	env.waitOpenClaims(victim, 2)
	env.signal(victim, syscall.SIGSTOP)
	frozenAt := time.Now()
	thawed := false
	defer func() {
		if !thawed {
			_ = victim.cmd.Process.Signal(syscall.SIGCONT)
		}
	}()
	t.Logf("froze %s (pid %d) holding %d claims", victim.name, victim.pid, env.openClaims(victim))

	waitFor(t, 30*time.Second, victim.name+"'s claims to be rescued", func() (bool, string) {
		c := env.openClaims(victim)
		return c == 0, fmt.Sprintf("%d open claims", c)
	})
	rows, err := env.pool.Query(env.ctx, `
		SELECT b.job_ids[k], b.run_leases[k] FROM awa.claim_batches b
		CROSS JOIN LATERAL generate_subscripts(b.job_ids, 1) AS k
		JOIN awa.claim_closures c
		  ON c.claim_slot = b.claim_slot AND c.receipts @> awa._receipt_id(b.batch_id, k)
		WHERE b.instance_id = $1 AND c.outcome = 'rescued_stale'
		ORDER BY 1`, uuidArg(victim.instance))
	if err != nil {
		t.Fatal(err)
	}
	rescued, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (staleRun, error) {
		var s staleRun
		return s, r.Scan(&s.jobID, &s.runLease)
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(rescued) == 0 {
		t.Fatalf("%s held claims when frozen but none was closed by stale rescue", victim.name)
	}
	t.Logf("%d attempts of %s rescued %s after the freeze: %v", len(rescued), victim.name,
		time.Since(frozenAt).Round(time.Millisecond), rescued)

	// Each rescued job runs again elsewhere and completes, while the frozen
	// worker still "runs" it.
	waitFor(t, 30*time.Second, "the rescued jobs to complete elsewhere", func() (bool, string) {
		var missing []int64
		for _, s := range rescued {
			if env.queryInt("SELECT count(*)::int FROM awa.terminal_jobs WHERE id = $1 AND state = 'completed'", s.jobID) == 0 {
				missing = append(missing, s.jobID)
			}
		}
		return len(missing) == 0, fmt.Sprintf("not completed yet: %v", missing)
	})

	env.signal(victim, syscall.SIGCONT)
	thawed = true
	waitFor(t, 30*time.Second, victim.name+" to log its late completions as stale", func() (bool, string) {
		stale := map[staleRun]bool{}
		for _, rec := range logRecords(t, victim, "Stale result dropped") {
			id, _ := rec["job_id"].(float64)
			lease, _ := rec["run_lease"].(float64)
			stale[staleRun{int64(id), int64(lease)}] = true
		}
		var missing []staleRun
		for _, s := range rescued {
			if !stale[s] {
				missing = append(missing, s)
			}
		}
		return len(missing) == 0, fmt.Sprintf("no stale record yet for %v", missing)
	})

	env.waitAllTerminal(n, 60*time.Second)
	recs := env.checkExactlyOnce(ids)
	for _, s := range rescued {
		r := recs[s.jobID]
		if r.count != 1 || !r.completed || r.runLease <= s.runLease {
			t.Errorf("job %d: %d terminal records, completed %v, run_lease %d; want one completed record from the rerun (run_lease > %d)",
				s.jobID, r.count, r.completed, r.runLease, s.runLease)
		}
		rows, err := env.pool.Query(env.ctx, "SELECT run_lease, pid FROM crash_runs WHERE job_id = $1 ORDER BY at", s.jobID)
		if err != nil {
			t.Fatal(err)
		}
		type runRec struct {
			lease int64
			pid   int
		}
		runs, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (runRec, error) {
			var x runRec
			return x, r.Scan(&x.lease, &x.pid)
		})
		if err != nil {
			t.Fatal(err)
		}
		leases := map[int64]bool{}
		var old, rerun bool
		for _, x := range runs {
			leases[x.lease] = true
			old = old || (x.lease == s.runLease && x.pid == victim.pid)
			rerun = rerun || (x.lease == r.runLease && x.pid != victim.pid)
		}
		if len(leases) < 2 || !old || !rerun {
			t.Errorf("job %d crash_runs %+v: want a run by frozen pid %d with run_lease %d and a rerun elsewhere with run_lease %d",
				s.jobID, runs, victim.pid, s.runLease, r.runLease)
		}
	}
	// The thawed worker goes on working normally.
	if !victim.alive() {
		t.Fatalf("%s died after SIGCONT; log %s", victim.name, tail(victim.logPath))
	}
	env.stopAll()
	if t.Failed() {
		t.Logf("%s log: %s", victim.name, tail(victim.logPath))
	}
}

// crashParkArgs and crashLongArgs are the kinds crashworker -callbacks runs.
type crashParkArgs struct{}

func (crashParkArgs) Kind() string { return "crash_park" }

type crashLongArgs struct{}

func (crashLongArgs) Kind() string { return "crash_long" }

// TestCrashKillWhileJobsParkAndLongJobsRun: one worker parks 20 jobs on
// their callbacks and runs 3 long jobs (4s each, progress every 100ms,
// WorkerTimeout 2h) when it is SIGKILLed. The parked jobs stay
// waiting_external: no worker holds them. Every parked job is then resolved
// from SQL (half resumed, half completed), each token applied exactly once
// (a second resolution is stale); a second worker process runs the resumed
// jobs again (they read the payload) and the long jobs, rescued from the
// dead process by stale rescue. Every job ends with
// exactly one completed record, from its last run, and no attempt ran twice.
func TestCrashKillWhileJobsParkAndLongJobsRun(t *testing.T) {
	env := newCrashEnv(t)
	if _, err := env.pool.Exec(env.ctx, `CREATE TABLE crash_parks (job_id bigint, run_lease bigint, token uuid)`); err != nil {
		t.Fatal(err)
	}
	const parked, long = 20, 3
	params := make([]driver.InsertManyParams, 0, parked+long)
	for i := 0; i < parked; i++ {
		params = append(params, driver.InsertManyParams{Args: crashParkArgs{}, Opts: &driver.InsertOpts{Queue: "crash"}})
	}
	for i := 0; i < long; i++ {
		params = append(params, driver.InsertManyParams{Args: crashLongArgs{}, Opts: &driver.InsertOpts{Queue: "crash"}})
	}
	client, err := driver.NewClient(env.pool, nil)
	if err != nil {
		t.Fatal(err)
	}
	jobs, err := client.InsertMany(env.ctx, params)
	if err != nil {
		t.Fatal(err)
	}
	ids := make([]int64, len(jobs))
	for i, j := range jobs {
		ids[i] = j.ID
	}

	w1 := env.start("-callbacks", "-workers", "8")
	waitFor(t, 30*time.Second, "20 parked jobs and 3 long jobs checkpointing", func() (bool, string) {
		p := env.queryInt(`SELECT count(*)::int FROM awa.external_waits`)
		l := env.queryInt(`SELECT count(*)::int FROM awa.jobs WHERE kind = 'crash_long' AND state = 'running' AND progress IS NOT NULL`)
		return p == parked && l == long, fmt.Sprintf("%d parked, %d long jobs with progress", p, l)
	})
	env.signal(w1, syscall.SIGKILL)
	select {
	case <-w1.exited:
	case <-time.After(10 * time.Second):
		t.Fatalf("%s did not die within 10s of SIGKILL", w1.name)
	}
	if n := env.queryInt(`SELECT count(*)::int FROM awa.jobs WHERE kind = 'crash_park' AND state = 'waiting_external'`); n != parked {
		t.Fatalf("%d parked jobs still waiting_external after the kill, want %d", n, parked)
	}

	type park struct {
		ID    int64
		Token string
	}
	rows, _ := env.pool.Query(env.ctx, `SELECT job_id, token::text FROM crash_parks ORDER BY job_id`)
	parks, err := pgx.CollectRows(rows, pgx.RowToStructByPos[park])
	if err != nil || len(parks) != parked {
		t.Fatalf("crash_parks: %d tokens, %v; want %d", len(parks), err, parked)
	}
	applied := 0
	for i, p := range parks {
		fn := []string{"resume_external", "complete_external"}[i%2]
		for try := 0; try < 2; try++ {
			var outcome string
			if err := env.pool.QueryRow(env.ctx, fmt.Sprintf(`SELECT outcome::text FROM awa.%s($1, '{"n": %d}')`, fn, i),
				p.Token).Scan(&outcome); err != nil {
				t.Fatal(err)
			}
			if want := []string{"applied", "stale"}[try]; outcome != want {
				t.Fatalf("%s #%d of job %d's token = %s, want %s", fn, try+1, p.ID, outcome, want)
			}
			if outcome == "applied" {
				applied++
			}
		}
	}

	env.start("-callbacks", "-workers", "8")
	env.waitAllTerminal(parked+long, 60*time.Second)
	env.checkExactlyOnce(ids)
	if applied != parked {
		t.Fatalf("%d resolutions applied, want one per parked job (%d)", applied, parked)
	}
	if n := env.queryInt(`SELECT count(*)::int FROM (SELECT job_id FROM crash_runs r JOIN awa.terminal_jobs j ON j.id = r.job_id
		WHERE j.kind = 'crash_park' GROUP BY job_id HAVING count(*) = 2) d`); n != parked/2 {
		t.Fatalf("%d parked jobs ran twice (parked, then resumed), want %d", n, parked/2)
	}
	if n := env.queryInt(`SELECT count(*)::int FROM awa.terminal_jobs WHERE kind = 'crash_park' AND metadata ? 'callback_result'`); n != parked {
		t.Fatalf("%d parked jobs completed with a callback_result, want %d", n, parked)
	}
	if n := env.queryInt(`SELECT count(*)::int FROM awa.terminal_jobs WHERE kind = 'crash_long'
		AND errors::text LIKE '%rescued: worker heartbeat went stale%'`); n != long {
		t.Fatalf("%d long jobs record the stale rescue of the killed process, want %d", n, long)
	}
	env.stopAll()
}
