// Command adapter runs awa as the awa-go adapter of the long-horizon portable
// bench (github.com/hardbyte/postgresql-job-queue-benchmarking, its
// CONTRIBUTING_ADAPTERS.md): one long-running process configured by
// environment variables that produces and works jobs and prints telemetry as
// JSON lines on stdout (logs go to stderr) until SIGTERM.
//
//	go build -o awa-adapter ./adapter   (in bench/)
//	awa-adapter [-dsn DSN]
//
// bench/harness/README.md explains how to register it with the harness.
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"math"
	"os"
	"os/signal"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/awa-queue/awa/bench/benchkit"
	"github.com/awa-queue/awa/driver"
)

const (
	// harnessSystem is the adapter's system name in the harness.
	harnessSystem = "awa-go"
	// harnessDBName is the database the harness creates for it.
	harnessDBName = "awa_go_bench"
	// claimWindow is the rolling window of the claim latency percentiles.
	claimWindow = 30 * time.Second
	// adapterQueue is the queue benchkit's awa system works and fills.
	adapterQueue = "default"
	// adapterStopWithin bounds shutdown after SIGTERM (the contract allows 5s).
	adapterStopWithin = 4500 * time.Millisecond
)

const adapterHelp = `usage: awa-adapter [-dsn DSN]

Runs awa as the %[1]s adapter of the long-horizon portable bench
(hardbyte/postgresql-job-queue-benchmarking): installs schema awa (the
embedded migrations), produces and works jobs on queue %[2]q, and prints
JSON lines on stdout: one descriptor, then every SAMPLE_EVERY_S seconds
(aligned to the wall clock) claim_p50_ms, claim_p95_ms, claim_p99_ms (insert
to handler start, rolling 30s), enqueue_rate, completion_rate (per second)
and queue_depth (available jobs). Logs go to stderr. SIGTERM or SIGINT stops
it within 5 seconds.

environment:
  DATABASE_URL        the database (or -dsn); it must exist
  SCENARIO            long_horizon (default)
  PRODUCER_MODE       fixed (default) or depth-target
  PRODUCER_RATE       jobs/s in fixed mode (default 800)
  TARGET_DEPTH        available jobs to keep in depth-target mode (default 1000)
  WORKER_COUNT        jobs worked at once (default 32)
  JOB_PAYLOAD_BYTES   rough size of a job's args (default 256)
  JOB_WORK_MS         synthetic work per job, a sleep (default 1)
  SAMPLE_EVERY_S      seconds between samples (default 5)
  PRODUCER_BATCH_MS   fixed mode: insert what is due every this many ms (default 25)
  PRODUCER_BATCH_MAX  most jobs one insert call carries (default 128)
  PRODUCER_PACING     adapter (default) or harness: in fixed mode, insert the
                      jobs of "ENQUEUE <n>" lines read on stdin, falling back
                      to PRODUCER_RATE when stdin ends
  PRODUCER_RATE_CONTROL_FILE  a file holding a rate that replaces PRODUCER_RATE
                      while it is readable (re-read every batch)
`

func main() {
	ctx, cancel := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	cancel()
	os.Exit(code)
}

// usageError is a mistake in the flags or the environment: exit status 2.
// An empty message means the flag package already reported it.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usageErrorf(format string, a ...any) error { return &usageError{msg: fmt.Sprintf(format, a...)} }

// run runs the adapter with args until ctx ends and returns the exit status.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	err := runCommand(ctx, args, stdin, stdout, stderr)
	var usageErr *usageError
	switch {
	case err == nil, errors.Is(err, flag.ErrHelp):
		return 0
	case errors.As(err, &usageErr):
		if usageErr.msg != "" {
			fmt.Fprintf(stderr, "awa-adapter: %v\n", err)
		}
		return 2
	default:
		fmt.Fprintf(stderr, "awa-adapter: %v\n", err)
		return 1
	}
}

func runCommand(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("awa-adapter", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprintf(stderr, adapterHelp, harnessSystem, adapterQueue) }
	dsn := fs.String("dsn", "", "PostgreSQL connection string (default $DATABASE_URL)")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return &usageError{} // the flag package printed the error and the usage
	}
	if fs.NArg() > 0 {
		return usageErrorf("unexpected arguments %q: the adapter is configured by environment variables", fs.Args())
	}
	if strings.TrimSpace(*dsn) == "" {
		*dsn = os.Getenv("DATABASE_URL")
	}
	if strings.TrimSpace(*dsn) == "" {
		return usageErrorf("no database: pass -dsn or set DATABASE_URL")
	}
	cfg, err := adapterConfigFromEnv(os.Getenv)
	if err != nil {
		return err
	}
	cfg.dsn = *dsn
	return runBenchAdapter(ctx, cfg, stdin, stdout, stderr)
}

// adapterConfig is the adapter's environment, parsed.
type adapterConfig struct {
	dsn           string
	depthTarget   bool    // PRODUCER_MODE=depth-target
	rate          float64 // jobs/s
	rateFile      string
	targetDepth   int64
	workers       int
	payloadBytes  int
	work          time.Duration
	sampleEvery   int64 // seconds
	batchEvery    time.Duration
	batchMax      int
	harnessPacing bool
}

// adapterConfigFromEnv reads everything but the database from getenv. Every
// mistake is a usage error naming the variable.
func adapterConfigFromEnv(getenv func(string) string) (adapterConfig, error) {
	if s := getenv("SCENARIO"); s != "" && s != "long_horizon" {
		return adapterConfig{}, usageErrorf("SCENARIO=%q is not supported: the adapter runs long_horizon", s)
	}
	env := envReader{getenv: getenv}
	c := adapterConfig{
		depthTarget:   env.choice("PRODUCER_MODE", "fixed", "depth-target"),
		harnessPacing: env.choice("PRODUCER_PACING", "adapter", "harness"),
		rate:          env.number("PRODUCER_RATE", 800, 0, false),
		rateFile:      getenv("PRODUCER_RATE_CONTROL_FILE"),
		targetDepth:   int64(env.number("TARGET_DEPTH", 1000, 1, true)),
		workers:       int(env.number("WORKER_COUNT", 32, 1, true)),
		payloadBytes:  int(env.number("JOB_PAYLOAD_BYTES", 256, 0, true)),
		work:          time.Duration(env.number("JOB_WORK_MS", 1, 0, true)) * time.Millisecond,
		sampleEvery:   int64(env.number("SAMPLE_EVERY_S", 5, 1, true)),
		batchEvery:    time.Duration(env.number("PRODUCER_BATCH_MS", 25, 1, true)) * time.Millisecond,
		batchMax:      int(env.number("PRODUCER_BATCH_MAX", 128, 1, true)),
	}
	return c, env.err
}

// envReader parses environment variables, keeping the first mistake.
type envReader struct {
	getenv func(string) string
	err    error
}

// choice reports whether the variable name is on rather than off (or unset).
func (r *envReader) choice(name, off, on string) bool {
	switch v := r.getenv(name); v {
	case "", off:
		return false
	case on:
		return true
	default:
		r.fail(usageErrorf("%s=%q: want %s or %s", name, v, off, on))
		return false
	}
}

// number parses the variable name: def when unset; a mistake when it is not
// a number (a whole one if whole) or is less than least.
func (r *envReader) number(name string, def, least float64, whole bool) float64 {
	s := strings.TrimSpace(r.getenv(name))
	if s == "" {
		return def
	}
	kind := "a number"
	v, err := strconv.ParseFloat(s, 64)
	if whole {
		kind = "a whole number"
		var n int64
		n, err = strconv.ParseInt(s, 10, 64)
		v = float64(n)
	}
	switch {
	case err != nil || math.IsNaN(v) || math.IsInf(v, 0):
		r.fail(usageErrorf("%s=%q is not %s", name, s, kind))
	case v < least:
		r.fail(usageErrorf("%s=%s: must be at least %g", name, s, least))
	}
	return v
}

func (r *envReader) fail(err error) {
	if r.err == nil {
		r.err = err
	}
}

// harnessManifest is bench/harness/adapter.json, the manifest the harness
// reads before it launches the adapter (TestHarnessManifestIsCurrent keeps
// the file equal to newHarnessManifest).
type harnessManifest struct {
	System       string   `json:"system"`
	DisplayName  string   `json:"display_name"`
	DBName       string   `json:"db_name"`
	EventTables  []string `json:"event_tables"`
	EventIndexes []string `json:"event_indexes"`
	Extensions   []string `json:"extensions"`
}

func newHarnessManifest() harnessManifest {
	return harnessManifest{System: harnessSystem, DisplayName: "awa (Go)", DBName: harnessDBName,
		EventTables: harnessEventTables(), EventIndexes: []string{}, Extensions: []string{}}
}

// harnessEventTables are the tables the harness polls for dead tuples, size
// and autovacuum: those the produce/claim/complete path writes. The rings are
// listed by their children for the slot counts the migration installs
// (queue 16, claim 8, cursor 2): a partitioned parent has no storage, so its statistics
// stay at zero and pgstattuple refuses it. TestHarnessEventTablesExist checks
// the list against a migrated database.
func harnessEventTables() []string {
	ts := []string{"awa.queue_claim_heads", "awa.runtime_instances", "awa.leader_leases",
		"awa.ring_rotations", "awa.deferred_jobs"}
	for _, ring := range []struct {
		slots   int
		parents []string
	}{
		{16, []string{"ready_entries", "done_completions"}},
		{8, []string{"claim_batches", "claim_closures"}},
		{2, []string{"cursor_marks"}},
	} {
		for _, parent := range ring.parents {
			for slot := range ring.slots {
				ts = append(ts, fmt.Sprintf("awa.%s_%d", parent, slot))
			}
		}
	}
	return ts
}

// adapterDescriptor is the first line on stdout.
type adapterDescriptor struct {
	Kind          string   `json:"kind"`
	System        string   `json:"system"`
	EventTables   []string `json:"event_tables"`
	EventIndexes  []string `json:"event_indexes"`
	Extensions    []string `json:"extensions"`
	Version       string   `json:"version"`
	SchemaVersion string   `json:"schema_version"`
	DBName        string   `json:"db_name"`
	StartedAt     string   `json:"started_at"`
}

// adapterSample is one metric of one tick.
type adapterSample struct {
	T           string  `json:"t"`
	System      string  `json:"system"`
	Kind        string  `json:"kind"`
	SubjectKind string  `json:"subject_kind"`
	Subject     string  `json:"subject"`
	Metric      string  `json:"metric"`
	Value       float64 `json:"value"`
	WindowS     float64 `json:"window_s"`
}

// harnessTime is the harness's timestamp format: RFC 3339, UTC, milliseconds.
func harnessTime(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z") }

// buildVersion names the awa source of this binary: its VCS revision when the
// build recorded one, else the module version.
func buildVersion() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown"
	}
	var rev string
	var dirty bool
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if rev == "" {
		if v := bi.Main.Version; v != "" && v != "(devel)" {
			return v
		}
		return "devel"
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	if dirty {
		rev += "-dirty"
	}
	return rev
}

// adapter is one running adapter process.
type adapter struct {
	cfg      adapterConfig
	log      *slog.Logger
	stdout   io.Writer
	pool     *pgxpool.Pool
	drv      *driver.Driver
	ins      benchkit.Inserter
	handler  *benchkit.Handler
	pad      string
	seq      int
	enqueued atomic.Int64
	lastWarn time.Time // producer's, throttles its warnings
}

// runBenchAdapter runs the adapter until ctx ends, then stops within
// adapterStopWithin. stdin carries the harness's ENQUEUE lines (nil: none).
// An error before the client runs is returned, unless ctx ended.
func runBenchAdapter(ctx context.Context, cfg adapterConfig, stdin io.Reader, stdout, stderr io.Writer) error {
	startedAt := time.Now()
	log := slog.New(slog.NewTextHandler(stderr, nil))
	startErr := func(err error) error {
		if ctx.Err() != nil {
			log.Info("bench-adapter: Stopped before it started", slog.String("reason", err.Error()))
			return nil
		}
		return err
	}
	awa, err := benchkit.NewAwaSystem("", stderr)
	if err != nil {
		return err
	}
	schema, err := awa.Install(ctx, cfg.dsn)
	if err != nil {
		return startErr(fmt.Errorf("install schema awa: %w", err))
	}
	log.Info("bench-adapter: Installed schema awa", slog.Int64("version", schema))
	// One queue's claimer, the client's services and the adapter's queries.
	pool, err := benchkit.OpenPool(ctx, cfg.dsn, 17)
	if err == nil {
		if err = pool.Ping(ctx); err != nil {
			pool.Close()
		}
	}
	if err != nil {
		return startErr(fmt.Errorf("connect: %w", err))
	}
	ins, err := awa.Inserter(pool)
	if err != nil {
		pool.Close()
		return err
	}
	a := &adapter{cfg: cfg, log: log, stdout: stdout, pool: pool, drv: driver.New(), ins: ins,
		handler: &benchkit.Handler{Work: cfg.work, Recent: benchkit.NewRollingHistogram(claimWindow)},
		pad:     strings.Repeat("x", max(cfg.payloadBytes-len(`{"n": 0, "pad": ""}`)-4, 0))}

	m := newHarnessManifest()
	if err := a.writeJSONLines(adapterDescriptor{Kind: "descriptor", System: harnessSystem,
		EventTables: m.EventTables, EventIndexes: m.EventIndexes, Extensions: m.Extensions,
		Version: buildVersion(), SchemaVersion: strconv.FormatInt(schema, 10),
		DBName: pool.Config().ConnConfig.Database, StartedAt: harnessTime(startedAt)}); err != nil {
		pool.Close()
		return fmt.Errorf("write descriptor: %w", err)
	}
	client, err := awa.Start(ctx, pool, cfg.workers, a.handler)
	if err != nil {
		pool.Close()
		return startErr(fmt.Errorf("start client: %w", err))
	}
	log.Info("bench-adapter: Started", slog.String("database", pool.Config().ConnConfig.Database),
		slog.Bool("depth_target", cfg.depthTarget), slog.Float64("rate", cfg.rate),
		slog.Int64("target_depth", cfg.targetDepth), slog.Int("workers", cfg.workers),
		slog.Duration("work", cfg.work), slog.Int64("sample_every_s", cfg.sampleEvery),
		slog.Bool("harness_pacing", cfg.harnessPacing))

	var wg sync.WaitGroup
	wg.Go(func() { a.produce(ctx, stdin) })
	wg.Go(func() { a.sample(ctx) })
	<-ctx.Done()
	log.Info("bench-adapter: Stopping", slog.Int64("enqueued", a.enqueued.Load()),
		slog.Int64("finished", a.handler.Finished()))

	// Producer and sampler return at once (a tick in progress finishes);
	// then running jobs finish and their results flush. A database that
	// does not answer must not hold the process past the harness's limit.
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		wg.Wait()
		stopCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), adapterStopWithin-time.Second)
		defer cancel()
		if err := client.Stop(stopCtx); err != nil {
			log.Warn("bench-adapter: Stop client", slog.String("error", err.Error()))
		}
		pool.Close()
	}()
	select {
	case <-stopped:
		log.Info("bench-adapter: Stopped")
	case <-time.After(adapterStopWithin):
		log.Warn("bench-adapter: Gave up waiting for the client to stop", slog.Duration("after", adapterStopWithin))
	}
	return nil
}

// writeJSONLines writes each record as one line, all in one write.
func (a *adapter) writeJSONLines(records ...any) error {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	for _, r := range records {
		if err := enc.Encode(r); err != nil {
			return err
		}
	}
	_, err := a.stdout.Write(b.Bytes())
	return err
}

// sleep waits d, or returns false when ctx ends first.
func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// sample emits the metrics every sampleEvery seconds on the wall-clock
// multiples of it: the first boundary after start begins the first interval,
// so every tick reports a whole interval. A tick that runs late skips the
// boundaries it missed.
func (a *adapter) sample(ctx context.Context) {
	every := a.cfg.sampleEvery
	period := time.Duration(every) * time.Second
	boundaryAfter := func(t time.Time) time.Time { return time.Unix((t.Unix()/every+1)*every, 0) }
	tick := boundaryAfter(time.Now())
	if !sleep(ctx, time.Until(tick)) {
		return
	}
	last, lastEnq, lastDone := time.Now(), a.enqueued.Load(), a.handler.Finished()
	var depth int64
	for {
		tick = tick.Add(period)
		if !sleep(ctx, time.Until(tick)) {
			return
		}
		now, enq, done := time.Now(), a.enqueued.Load(), a.handler.Finished()
		secs := max(now.Sub(last).Seconds(), 1e-3)
		// The tick's own deadline, not ctx: a tick in progress at SIGTERM
		// still goes out (with the last depth if the query is cut short).
		qctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), min(period, time.Second))
		if d, err := a.depth(qctx); err != nil {
			a.log.Warn("bench-adapter: Queue depth (reporting the last one)", slog.String("error", err.Error()))
		} else {
			depth = d
		}
		cancel()
		qs, _ := a.handler.Recent.Quantiles(now, 0.50, 0.95, 0.99)
		t := harnessTime(tick)
		rec := func(metric string, v, window float64) adapterSample {
			return adapterSample{T: t, System: harnessSystem, Kind: "adapter", SubjectKind: "adapter",
				Metric: metric, Value: math.Round(v*1000) / 1000, WindowS: window}
		}
		ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
		w := float64(every)
		if err := a.writeJSONLines(
			rec("claim_p50_ms", ms(qs[0]), claimWindow.Seconds()),
			rec("claim_p95_ms", ms(qs[1]), claimWindow.Seconds()),
			rec("claim_p99_ms", ms(qs[2]), claimWindow.Seconds()),
			rec("enqueue_rate", float64(enq-lastEnq)/secs, w),
			rec("completion_rate", float64(done-lastDone)/secs, w),
			rec("queue_depth", float64(depth), 0),
		); err != nil {
			a.log.Error("bench-adapter: Write samples", slog.String("error", err.Error()))
		}
		last, lastEnq, lastDone = now, enq, done
		if late := boundaryAfter(time.Now()).Add(-period); late.After(tick) {
			tick = late
		}
	}
}

// depth is the queue's available jobs (awa.queue_counts: lane arithmetic, no scan).
func (a *adapter) depth(ctx context.Context) (int64, error) {
	counts, err := a.drv.QueueCounts(ctx, a.pool, adapterQueue)
	var n int64
	for _, c := range counts {
		n += c.Available
	}
	return n, err
}

// produce inserts jobs until ctx ends, as the producer mode says.
func (a *adapter) produce(ctx context.Context, stdin io.Reader) {
	switch {
	case a.cfg.depthTarget:
		a.produceToDepth(ctx)
	case a.cfg.harnessPacing && stdin != nil:
		a.produceOnTokens(ctx, stdin)
		if ctx.Err() == nil {
			a.log.Warn("bench-adapter: stdin ended: pacing locally at PRODUCER_RATE")
			a.produceAtRate(ctx)
		}
	default:
		a.produceAtRate(ctx)
	}
}

// produceAtRate inserts at the rate every batchEvery, crediting by the time
// that really passed; what a tick owes beyond batchMax is dropped rather than
// caught up later.
func (a *adapter) produceAtRate(ctx context.Context) {
	t := time.NewTicker(a.cfg.batchEvery)
	defer t.Stop()
	last, credit := time.Now(), 0.0
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		rate := a.cfg.rate
		if a.cfg.rateFile != "" {
			rate = readRate(a.cfg.rateFile, rate)
		}
		now := time.Now()
		credit += rate * now.Sub(last).Seconds()
		last = now
		if n := int(credit); n >= 1 {
			credit -= float64(n)
			a.insert(ctx, min(n, a.cfg.batchMax))
		}
	}
}

// readRate is the rate in file, or def when it cannot be read or parsed.
func readRate(file string, def float64) float64 {
	b, err := os.ReadFile(file)
	if err != nil {
		return def
	}
	v, err := strconv.ParseFloat(strings.TrimSpace(string(b)), 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return def
	}
	return max(v, 0)
}

// produceOnTokens inserts the jobs of every "ENQUEUE <n>" line of stdin
// (the harness's pacer; other lines are ignored) until stdin or ctx ends.
func (a *adapter) produceOnTokens(ctx context.Context, stdin io.Reader) {
	tokens := make(chan int, 1024)
	go func() {
		defer close(tokens)
		sc := bufio.NewScanner(stdin)
		for sc.Scan() {
			rest, ok := strings.CutPrefix(strings.TrimSpace(sc.Text()), "ENQUEUE ")
			if n, err := strconv.Atoi(strings.TrimSpace(rest)); ok && err == nil && n > 0 {
				select {
				case tokens <- n:
				case <-ctx.Done():
					return
				}
			}
		}
	}()
	for {
		select {
		case <-ctx.Done():
			return
		case n, ok := <-tokens:
			if !ok {
				return
			}
			a.insert(ctx, min(n, a.cfg.batchMax))
		}
	}
}

// produceToDepth tops the queue up to targetDepth available jobs every
// batchEvery, at most batchMax at a time.
func (a *adapter) produceToDepth(ctx context.Context) {
	for {
		if d, err := a.depth(ctx); err != nil {
			a.warn(ctx, "bench-adapter: Queue depth", err)
		} else if gap := a.cfg.targetDepth - d; gap > 0 {
			a.insert(ctx, int(min(gap, int64(a.cfg.batchMax))))
		}
		if !sleep(ctx, a.cfg.batchEvery) {
			return
		}
	}
}

// insert enqueues n jobs in one call through benchkit's awa inserter (the
// driver client's Insert, or InsertMany for several).
func (a *adapter) insert(ctx context.Context, n int) {
	args := make([]benchkit.JobArgs, n)
	for i := range args {
		args[i] = benchkit.JobArgs{N: a.seq + i, Pad: a.pad}
	}
	var err error
	if n == 1 {
		err = a.ins.One(ctx, args[0])
	} else {
		err = a.ins.Many(ctx, args)
	}
	if err != nil {
		a.warn(ctx, "bench-adapter: Insert", err)
		return
	}
	a.seq += n
	a.enqueued.Add(int64(n))
}

// warn logs a producer error, at most once a second, and not once ctx ended
// (a cancelled insert at shutdown is no error).
func (a *adapter) warn(ctx context.Context, msg string, err error) {
	if ctx.Err() != nil || time.Since(a.lastWarn) < time.Second {
		return
	}
	a.lastWarn = time.Now()
	a.log.Warn(msg, slog.String("error", err.Error()))
}
