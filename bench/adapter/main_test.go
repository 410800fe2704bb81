package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"io/fs"
	"log/slog"
	"maps"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/awa-queue/awa/bench/benchkit"
	"github.com/awa-queue/awa/db"
	"github.com/awa-queue/awa/internal/pgtest"
)

var updateManifest = flag.Bool("update", false, "rewrite bench/harness/adapter.json from newHarnessManifest")

const manifestPath = "../harness/adapter.json"

// TestHarnessManifestIsCurrent: the static manifest the harness reads before
// launch is what the adapter's descriptor reports (go test -run
// TestHarnessManifestIsCurrent -args -update rewrites it).
func TestHarnessManifestIsCurrent(t *testing.T) {
	want, err := json.MarshalIndent(newHarnessManifest(), "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	want = append(want, '\n')
	if *updateManifest {
		if err := os.WriteFile(manifestPath, want, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(manifestPath)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s is stale; run go test ./adapter -run TestHarnessManifestIsCurrent (in bench/) -args -update\nwant:\n%s", manifestPath, want)
	}
}

// TestHarnessEventTablesExist: every event table is a plain table (not a
// partitioned parent, which the harness cannot measure) of a migrated
// database, and the rings' children are all listed.
func TestHarnessEventTablesExist(t *testing.T) {
	t.Parallel()
	pool := pgtest.NewDB(t)
	ctx := context.Background()
	for _, table := range harnessEventTables() {
		var kind string
		if err := pool.QueryRow(ctx, "SELECT coalesce((SELECT relkind::text FROM pg_class WHERE oid = to_regclass($1)), 'missing')",
			table).Scan(&kind); err != nil {
			t.Fatal(err)
		}
		if kind != "r" {
			t.Errorf("%s: relkind %s, want r (a plain table)", table, kind)
		}
	}
	var children []string
	if err := pool.QueryRow(ctx, `SELECT array_agg('awa.' || c.relname ORDER BY c.relname)
		FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
		WHERE i.inhparent IN ('awa.ready_entries'::regclass, 'awa.done_completions'::regclass,
		                      'awa.claim_batches'::regclass, 'awa.claim_closures'::regclass)`).
		Scan(&children); err != nil {
		t.Fatal(err)
	}
	for _, c := range children {
		if !slices.Contains(harnessEventTables(), c) {
			t.Errorf("ring child %s is not an event table", c)
		}
	}
}

func TestAdapterConfigFromEnv(t *testing.T) {
	c, err := adapterConfigFromEnv(mapEnv(nil))
	if err != nil {
		t.Fatal(err)
	}
	want := adapterConfig{rate: 800, targetDepth: 1000, workers: 32, payloadBytes: 256, work: time.Millisecond,
		sampleEvery: 5, batchEvery: 25 * time.Millisecond, batchMax: 128}
	if c != want {
		t.Errorf("defaults %+v, want %+v", c, want)
	}
	c, err = adapterConfigFromEnv(mapEnv(map[string]string{"SCENARIO": "long_horizon", "PRODUCER_MODE": "depth-target",
		"PRODUCER_RATE": "12.5", "TARGET_DEPTH": "7", "WORKER_COUNT": "3", "JOB_WORK_MS": "0", "SAMPLE_EVERY_S": "10",
		"PRODUCER_PACING": "harness"}))
	if err != nil {
		t.Fatal(err)
	}
	if !c.depthTarget || c.rate != 12.5 || c.targetDepth != 7 || c.workers != 3 || c.work != 0 || c.sampleEvery != 10 ||
		!c.harnessPacing {
		t.Errorf("parsed %+v", c)
	}
	for _, tc := range []struct{ name, value, says string }{
		{"SCENARIO", "sprint", `SCENARIO="sprint" is not supported`},
		{"PRODUCER_MODE", "burst", `PRODUCER_MODE="burst"`},
		{"PRODUCER_RATE", "fast", `PRODUCER_RATE="fast" is not a number`},
		{"PRODUCER_RATE", "-1", "PRODUCER_RATE=-1: must be at least 0"},
		{"WORKER_COUNT", "0", "WORKER_COUNT=0: must be at least 1"},
		{"SAMPLE_EVERY_S", "2.5", `SAMPLE_EVERY_S="2.5" is not a whole number`},
		{"PRODUCER_PACING", "stdin", `PRODUCER_PACING="stdin"`},
	} {
		_, err := adapterConfigFromEnv(mapEnv(map[string]string{tc.name: tc.value}))
		if err == nil || !strings.Contains(err.Error(), tc.says) {
			t.Errorf("%s=%s: error %v, want one saying %q", tc.name, tc.value, err, tc.says)
		}
		if _, ok := err.(*usageError); !ok {
			t.Errorf("%s=%s: %T, want a usage error", tc.name, tc.value, err)
		}
	}
}

// headMigration is the goose version of the newest embedded migration (its
// file name's number): what a fresh install reports as its schema version.
func headMigration(t *testing.T) string {
	t.Helper()
	names, err := fs.Glob(db.Migrations, "migrations/*.sql")
	if err != nil || len(names) == 0 {
		t.Fatalf("embedded migrations: %v, %v", names, err)
	}
	n, err := strconv.Atoi(strings.SplitN(path.Base(slices.Max(names)), "_", 2)[0])
	if err != nil {
		t.Fatalf("migration %s: %v", slices.Max(names), err)
	}
	return strconv.Itoa(n)
}

// TestBenchAdapterFixedRate runs the adapter in process at 200 jobs/s, with a
// sample every second, for three ticks, then cancels it like SIGTERM does.
func TestBenchAdapterFixedRate(t *testing.T) {
	t.Parallel()
	dsn := pgtest.NewDBDSN(t)
	out := runAdapterInProcess(t, dsn, map[string]string{"SCENARIO": "long_horizon", "PRODUCER_MODE": "fixed",
		"PRODUCER_RATE": "200", "WORKER_COUNT": "4", "JOB_WORK_MS": "1", "SAMPLE_EVERY_S": "1"}, 3)
	desc, ticks := parseAdapterOutput(t, out)
	if want := headMigration(t); desc.DBName != dbNameOf(t, dsn) || desc.SchemaVersion != want {
		t.Errorf("descriptor db_name %q schema_version %q, want %q, %s", desc.DBName, desc.SchemaVersion, dbNameOf(t, dsn), want)
	}
	for i, tk := range ticks {
		if i > 0 { // the first interval may include the client's start
			if r := tk.value("enqueue_rate"); r < 100 || r > 300 {
				t.Errorf("tick %s: enqueue_rate %.1f, want 200 ± 50%%", tk.t, r)
			}
		}
		if r := tk.value("completion_rate"); r <= 0 {
			t.Errorf("tick %s: completion_rate %.1f, want > 0", tk.t, r)
		}
		p50, p95, p99 := tk.value("claim_p50_ms"), tk.value("claim_p95_ms"), tk.value("claim_p99_ms")
		if p50 <= 0 || p50 > p95 || p95 > p99 {
			t.Errorf("tick %s: claim p50 %g, p95 %g, p99 %g; want 0 < p50 <= p95 <= p99", tk.t, p50, p95, p99)
		}
	}

	// JOB_PAYLOAD_BYTES (default 256) sizes the args.
	conn, err := pgx.Connect(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	var size int
	if err := conn.QueryRow(context.Background(), "SELECT octet_length(args::text) FROM awa.terminal_jobs LIMIT 1").
		Scan(&size); err != nil {
		t.Fatal(err)
	}
	if size < 230 || size > 280 {
		t.Errorf("a job's args are %d bytes, want about 256", size)
	}
}

// TestBenchAdapterDepthTarget: with one slow worker (20 jobs/s) the producer
// keeps the available jobs near TARGET_DEPTH.
func TestBenchAdapterDepthTarget(t *testing.T) {
	t.Parallel()
	dsn := pgtest.NewDBDSN(t)
	out := runAdapterInProcess(t, dsn, map[string]string{"PRODUCER_MODE": "depth-target", "TARGET_DEPTH": "100",
		"WORKER_COUNT": "1", "JOB_WORK_MS": "50", "SAMPLE_EVERY_S": "1"}, 3)
	_, ticks := parseAdapterOutput(t, out)
	for _, tk := range ticks[1:] {
		if d := tk.value("queue_depth"); d < 50 || d > 150 {
			t.Errorf("tick %s: queue_depth %g, want about 100", tk.t, d)
		}
		if r := tk.value("completion_rate"); r <= 0 || r > 25 {
			t.Errorf("tick %s: completion_rate %.1f, want at most 20/s from one 50ms worker", tk.t, r)
		}
	}
}

// TestBenchAdapterProcess runs the built awa binary as the harness does: it
// must exit 0 within 5 seconds of SIGTERM, and refuse bad environments with
// a message on stderr and nothing on stdout.
func TestBenchAdapterProcess(t *testing.T) {
	t.Parallel()
	bin := buildAdapter(t)
	dsn := pgtest.NewDBDSN(t)

	t.Run("SIGTERM", func(t *testing.T) {
		cmd := exec.Command(bin)
		cmd.Env = adapterEnv(map[string]string{"DATABASE_URL": dsn, "SCENARIO": "long_horizon", "PRODUCER_MODE": "fixed",
			"PRODUCER_RATE": "200", "WORKER_COUNT": "4", "JOB_WORK_MS": "1", "SAMPLE_EVERY_S": "1"})
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = cmd.Process.Kill() })
		// Read until two ticks are out, then keep reading to EOF.
		lines := make(chan string)
		var out bytes.Buffer
		go func() {
			defer close(lines)
			sc := bufio.NewScanner(stdout)
			sc.Buffer(nil, 1<<20)
			for sc.Scan() {
				lines <- sc.Text()
			}
		}()
		deadline := time.After(10 * time.Second)
	read:
		for n := 0; n < 1+2*6; {
			select {
			case l, ok := <-lines:
				if !ok {
					t.Fatalf("stdout ended after %d lines; stderr:\n%s", n, stderr.String())
				}
				out.WriteString(l + "\n")
				n++
			case <-deadline:
				break read
			}
		}
		if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
			t.Fatal(err)
		}
		sent := time.Now()
		for l := range lines {
			out.WriteString(l + "\n")
		}
		err = cmd.Wait()
		took := time.Since(sent)
		t.Logf("exited %v after SIGTERM (%s); stderr:\n%s", err, took.Round(time.Millisecond), stderr.String())
		if err != nil {
			t.Errorf("exit: %v, want status 0", err)
		}
		if took > 5*time.Second {
			t.Errorf("took %s after SIGTERM, want under 5s", took)
		}
		_, ticks := parseAdapterOutput(t, out.Bytes())
		if len(ticks) < 2 {
			t.Errorf("%d ticks before SIGTERM, want 2", len(ticks))
		}
	})

	for _, tc := range []struct {
		name string
		env  map[string]string
		says string
	}{
		{"unknown scenario", map[string]string{"DATABASE_URL": dsn, "SCENARIO": "sprint"}, "SCENARIO"},
		{"rate not a number", map[string]string{"DATABASE_URL": dsn, "PRODUCER_RATE": "fast"}, "PRODUCER_RATE"},
		{"no database", map[string]string{"SCENARIO": "long_horizon"}, "DATABASE_URL"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cmd := exec.Command(bin)
			cmd.Env = adapterEnv(tc.env)
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			err := cmd.Run()
			if _, ok := err.(*exec.ExitError); !ok {
				t.Errorf("exit: %v, want a non-zero status", err)
			}
			if stdout.Len() > 0 {
				t.Errorf("stdout is not empty:\n%s", stdout.String())
			}
			if !strings.Contains(stderr.String(), tc.says) {
				t.Errorf("stderr does not name %s:\n%s", tc.says, stderr.String())
			}
		})
	}
}

// fakeInserter records the sizes of its calls.
type fakeInserter struct {
	mu    sync.Mutex
	calls []int
}

func (f *fakeInserter) One(context.Context, benchkit.JobArgs) error { return f.add(1) }
func (f *fakeInserter) Many(_ context.Context, as []benchkit.JobArgs) error {
	return f.add(len(as))
}
func (f *fakeInserter) Bulk(_ context.Context, as []benchkit.JobArgs) error { return f.add(len(as)) }
func (f *fakeInserter) add(n int) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, n)
	return nil
}

// TestProducerPacing: the local pacer credits by elapsed time and follows the
// rate control file; harness pacing inserts what each ENQUEUE line asks.
func TestProducerPacing(t *testing.T) {
	t.Parallel()
	newAdapter := func(cfg adapterConfig) (*adapter, *fakeInserter) {
		f := &fakeInserter{}
		cfg.batchEvery, cfg.batchMax = 10*time.Millisecond, 128
		return &adapter{cfg: cfg, ins: f, handler: &benchkit.Handler{}, log: slog.New(slog.DiscardHandler)}, f
	}

	t.Run("tokens", func(t *testing.T) {
		a, f := newAdapter(adapterConfig{harnessPacing: true}) // rate 0 once stdin ends
		ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
		defer cancel()
		a.produce(ctx, strings.NewReader("ENQUEUE 3\nhello\nENQUEUE x\nENQUEUE 500\nENQUEUE 1\n"))
		if want := []int{3, 128, 1}; !slices.Equal(f.calls, want) {
			t.Errorf("insert calls %v, want %v", f.calls, want)
		}
	})

	t.Run("rate and control file", func(t *testing.T) {
		file := filepath.Join(t.TempDir(), "rate")
		if err := os.WriteFile(file, []byte("2000\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		a, f := newAdapter(adapterConfig{rate: 5, rateFile: file})
		ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
		defer cancel()
		a.produceAtRate(ctx)
		if n := a.enqueued.Load(); n < 500 || n > 1100 {
			t.Errorf("inserted %d in 0.5s at 2000/s from the control file, want about 1000 (calls %v)", n, f.calls)
		}
		if err := os.WriteFile(file, []byte("0"), 0o644); err != nil {
			t.Fatal(err)
		}
		before := a.enqueued.Load()
		ctx, cancel = context.WithTimeout(context.Background(), 200*time.Millisecond)
		defer cancel()
		a.produceAtRate(ctx)
		if n := a.enqueued.Load() - before; n != 0 {
			t.Errorf("inserted %d at rate 0", n)
		}
	})
}

// runAdapterInProcess runs the adapter on dsn with env until it has printed
// ticks samples' ticks, cancels it and returns its stdout. It must return
// within 5 seconds of the cancel.
func runAdapterInProcess(t *testing.T, dsn string, env map[string]string, ticks int) []byte {
	t.Helper()
	cfg, err := adapterConfigFromEnv(mapEnv(env))
	if err != nil {
		t.Fatal(err)
	}
	cfg.dsn = dsn
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var stdout lockedBuffer
	var stderr lockedBuffer
	done := make(chan error, 1)
	go func() { done <- runBenchAdapter(ctx, cfg, nil, &stdout, &stderr) }()
	for deadline := time.Now().Add(10 * time.Second); strings.Count(stdout.String(), "\n") < 1+6*ticks; {
		if time.Now().After(deadline) {
			t.Fatalf("no %d ticks in 10s; stdout:\n%s\nstderr:\n%s", ticks, stdout.String(), stderr.String())
		}
		select {
		case err := <-done:
			t.Fatalf("adapter returned early: %v; stderr:\n%s", err, stderr.String())
		case <-time.After(50 * time.Millisecond):
		}
	}
	cancel()
	cancelled := time.Now()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("adapter: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatalf("adapter still running 5s after cancel; stderr:\n%s", stderr.String())
	}
	t.Logf("stopped %s after cancel; stderr:\n%s", time.Since(cancelled).Round(time.Millisecond), stderr.String())
	return []byte(stdout.String())
}

// adapterTick is one tick's samples by metric.
type adapterTick struct {
	t       string
	metrics map[string]adapterSample
}

func (tk adapterTick) value(metric string) float64 { return tk.metrics[metric].Value }

var (
	descriptorKeys = []string{"kind", "system", "event_tables", "event_indexes", "extensions", "version",
		"schema_version", "db_name", "started_at"}
	sampleKeys     = []string{"t", "system", "kind", "subject_kind", "subject", "metric", "value", "window_s"}
	adapterMetrics = map[string]float64{"claim_p50_ms": 30, "claim_p95_ms": 30, "claim_p99_ms": 30,
		"enqueue_rate": 1, "completion_rate": 1, "queue_depth": 0} // window_s at SAMPLE_EVERY_S=1
	harnessMillis = regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$`)
)

// parseAdapterOutput checks the contract's shape of out (SAMPLE_EVERY_S=1):
// a descriptor line, then lines that are all samples with exactly the
// contract's keys, in ticks on whole seconds each carrying the six metrics.
func parseAdapterOutput(t *testing.T, out []byte) (adapterDescriptor, []adapterTick) {
	t.Helper()
	lines := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
	if lines[0] == "" {
		t.Fatalf("no output")
	}
	checkKeys(t, lines[0], descriptorKeys)
	var desc adapterDescriptor
	if err := json.Unmarshal([]byte(lines[0]), &desc); err != nil {
		t.Fatalf("descriptor: %v", err)
	}
	if desc.Kind != "descriptor" || desc.System != "awa-go" || desc.Version == "" ||
		!slices.Equal(desc.EventTables, newHarnessManifest().EventTables) || desc.Extensions == nil || len(desc.Extensions) != 0 {
		t.Errorf("descriptor %s", lines[0])
	}
	if !harnessMillis.MatchString(desc.StartedAt) {
		t.Errorf("started_at %q, want RFC 3339 UTC with milliseconds", desc.StartedAt)
	}

	var ticks []adapterTick
	for _, l := range lines[1:] {
		checkKeys(t, l, sampleKeys)
		var s adapterSample
		if err := json.Unmarshal([]byte(l), &s); err != nil {
			t.Fatalf("sample %s: %v", l, err)
		}
		if s.System != "awa-go" || s.Kind != "adapter" || s.SubjectKind != "adapter" || s.Subject != "" {
			t.Errorf("sample %s", l)
		}
		if w, ok := adapterMetrics[s.Metric]; !ok || s.WindowS != w {
			t.Errorf("sample %s: unknown metric or window_s not %g", l, w)
		}
		if !harnessMillis.MatchString(s.T) || !strings.HasSuffix(s.T, ".000Z") {
			t.Errorf("sample %s: t is not on a whole second", l)
		}
		if len(ticks) == 0 || ticks[len(ticks)-1].t != s.T {
			ticks = append(ticks, adapterTick{t: s.T, metrics: map[string]adapterSample{}})
		}
		tk := ticks[len(ticks)-1]
		if _, dup := tk.metrics[s.Metric]; dup {
			t.Errorf("tick %s: %s twice", s.T, s.Metric)
		}
		tk.metrics[s.Metric] = s
	}
	if len(ticks) == 0 {
		t.Fatalf("no samples:\n%s", out)
	}
	for i, tk := range ticks {
		if len(tk.metrics) != len(adapterMetrics) {
			t.Errorf("tick %s has metrics %v, want all six", tk.t, slices.Sorted(maps.Keys(tk.metrics)))
		}
		if i > 0 {
			prev, _ := time.Parse(time.RFC3339, ticks[i-1].t)
			cur, _ := time.Parse(time.RFC3339, tk.t)
			if d := cur.Sub(prev); d < time.Second || d%time.Second != 0 {
				t.Errorf("ticks %s then %s: not whole seconds apart", ticks[i-1].t, tk.t)
			}
		}
	}
	return desc, ticks
}

// checkKeys fails unless the JSON object line has exactly keys.
func checkKeys(t *testing.T, line string, keys []string) {
	t.Helper()
	var obj map[string]json.RawMessage
	if err := json.Unmarshal([]byte(line), &obj); err != nil {
		t.Fatalf("not a JSON object: %s: %v", line, err)
	}
	if got := slices.Sorted(maps.Keys(obj)); !slices.Equal(got, slices.Sorted(slices.Values(keys))) {
		t.Errorf("keys %v, want %v: %s", got, slices.Sorted(slices.Values(keys)), line)
	}
}

func mapEnv(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

// adapterEnv is this process's environment without the adapter's variables,
// plus vars.
func adapterEnv(vars map[string]string) []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if k == "DATABASE_URL" || k == "SCENARIO" || strings.HasPrefix(k, "PRODUCER_") || strings.HasPrefix(k, "JOB_") ||
			k == "TARGET_DEPTH" || k == "WORKER_COUNT" || k == "SAMPLE_EVERY_S" {
			continue
		}
		env = append(env, kv)
	}
	for k, v := range vars {
		env = append(env, k+"="+v)
	}
	return env
}

func dbNameOf(t *testing.T, dsn string) string {
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		t.Fatal(err)
	}
	return cfg.Database
}

// buildAdapter builds the adapter into the test's temp dir. The same steps as
// driver's buildCrashWorker on purpose: another module, and seven lines.
func buildAdapter(t *testing.T) string {
	t.Helper()
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("this test builds the adapter and needs the go command on PATH: %v", err)
	}
	bin := filepath.Join(t.TempDir(), "awa-adapter")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	if out, err := exec.CommandContext(ctx, goBin, "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build the adapter: %v\n%s", err, out)
	}
	return bin
}

// lockedBuffer is a bytes.Buffer safe for one writer and concurrent readers.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
