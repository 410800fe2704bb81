// Command bench compares awa with River (riverqueue/river) on one PostgreSQL
// server: burn-down throughput, latency at an offered rate, and enqueue
// speed, with WAL, table churn and size, wait events and pg_stat_statements
// for every run. `make bench` runs it inside a private cluster; see
// docs/benchmarks.md for the latest results.
//
// Every run gets a fresh database (CREATE DATABASE on the -dsn server; awa
// installed with its goose migrations, River with rivermigrate), the same
// no-op handler, the same worker count and the same load generator.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
)

// Report is what a bench invocation writes as JSON.
type Report struct {
	StartedAt   time.Time                    `json:"started_at"`
	FinishedAt  time.Time                    `json:"finished_at"`
	Command     string                       `json:"command"`
	Quick       bool                         `json:"quick"`
	Source      string                       `json:"awa_source"`
	River       string                       `json:"river_version"`
	Config      Config                       `json:"config"`
	Machine     Machine                      `json:"machine"`
	Postgres    PGInfo                       `json:"postgres"`
	ClientConfs map[string]map[string]string `json:"client_settings"`
	Runs        []*Run                       `json:"runs"`
}

// Config is the resolved flags.
type Config struct {
	Systems         []string  `json:"systems"`
	Scenarios       []string  `json:"scenarios"`
	Jobs            int       `json:"burndown_jobs"`
	Workers         int       `json:"workers"`
	Conns           int       `json:"pool_max_conns"`
	Rates           []float64 `json:"rates"`
	RateDuration    string    `json:"rate_duration"`
	RateWarmup      string    `json:"rate_warmup"`
	Producers       int       `json:"rate_producers"`
	EnqueueDuration string    `json:"enqueue_duration"`
	EnqueueProds    []int     `json:"enqueue_producers"`
	BulkBatch       int       `json:"bulk_batch"`
	Repeat          int       `json:"repeat"`
	Profile         bool      `json:"profile"`
	AwaSQL          string    `json:"awa_sql,omitempty"`
}

// riverVersion is the River module version built in.
func riverVersion() string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, m := range bi.Deps {
			if m.Path == "github.com/riverqueue/river" {
				return m.Version
			}
		}
	}
	return "unknown"
}

// sourceState names the awa source measured: HEAD and whether the work tree
// differs from it.
func sourceState() string {
	out, err := exec.Command("git", "rev-parse", "--short", "HEAD").Output()
	if err != nil {
		return "unknown"
	}
	s := strings.TrimSpace(string(out))
	if st, err := exec.Command("git", "status", "--porcelain", "--", "sql", "db", "driver").Output(); err == nil && len(st) > 0 {
		s += " + uncommitted changes in sql/, db/ or driver/"
	}
	return s
}

func logf(format string, args ...any) {
	globalProgress.clear()
	fmt.Fprintf(os.Stderr, "bench: "+format+"\n", args...)
}

func main() {
	if err := run(); err != nil {
		globalProgress.clear()
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

func run() error {
	var (
		systemF   = flag.String("system", "both", "awa, river or both")
		scenarioF = flag.String("scenario", "all", "burndown, rate, enqueue or all (comma-separated list allowed)")
		jobs      = flag.Int("jobs", 1_000_000, "burn-down: jobs pre-inserted then worked")
		quick     = flag.Bool("quick", false, "short mode: 100k burn-down, short rate and enqueue runs (under 3 minutes)")
		workers   = flag.Int("workers", 100, "worker count (MaxWorkers) of both systems")
		conns     = flag.Int("conns", 20, "max connections of the worker client's pool (both systems)")
		ratesF    = flag.String("rates", "800,5000", "offered rates in jobs/s, comma-separated")
		rateDur   = flag.Duration("rate-duration", 30*time.Second, "measured window of each rate run")
		rateWarm  = flag.Duration("rate-warmup", 5*time.Second, "warm-up before each rate window")
		producers = flag.Int("producers", 4, "producer goroutines of rate runs")
		enqDur    = flag.Duration("enqueue-duration", 10*time.Second, "duration of each enqueue run")
		enqProdsF = flag.String("enqueue-producers", "1,8", "producer goroutines of the single-row enqueue runs")
		bulkBatch = flag.Int("bulk-batch", 10_000, "jobs per bulk enqueue transaction")
		repeat    = flag.Int("repeat", 1, "runs per system and scenario; the report quotes medians")
		dsn       = flag.String("dsn", "", "PostgreSQL server DSN of a role that can create databases (default: $AWA_TEST_DSN)")
		out       = flag.String("out", "bench/results/latest.json", "JSON results file (a timestamped copy is written beside it)")
		md        = flag.String("md", "docs/benchmarks.md", "markdown report to rewrite (empty: none)")
		profile   = flag.Bool("profile", false, "also track nested statements and PL/pgSQL functions (adds overhead to both)")
		keep      = flag.Bool("keep", false, "keep the run databases")
		timeout   = flag.Duration("timeout", 30*time.Minute, "burn-down time limit")
		awaSQL    = flag.String("awa-sql", "", "experiment: SQL file run after awa's migrations (e.g. a patched function); the report flags it")
		from      = flag.String("from", "", "run nothing: rewrite the -md report from this JSON results file")
	)
	flag.Parse()
	if *from != "" {
		b, err := os.ReadFile(*from)
		if err != nil {
			return err
		}
		var rep Report
		if err := json.Unmarshal(b, &rep); err != nil {
			return fmt.Errorf("%s: %w", *from, err)
		}
		return writeMarkdown(*md, &rep)
	}
	set := map[string]bool{}
	flag.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if *quick {
		if !set["jobs"] {
			*jobs = 100_000
		}
		if !set["rate-duration"] {
			*rateDur = 8 * time.Second
		}
		if !set["rate-warmup"] {
			*rateWarm = 2 * time.Second
		}
		if !set["enqueue-duration"] {
			*enqDur = 3 * time.Second
		}
	}
	if *dsn == "" {
		*dsn = os.Getenv("AWA_TEST_DSN")
	}
	if *dsn == "" {
		return fmt.Errorf("no server: pass -dsn or set AWA_TEST_DSN, or run `make bench`, which starts a private cluster")
	}

	awa := awaSystem{}
	if *awaSQL != "" {
		b, err := os.ReadFile(*awaSQL)
		if err != nil {
			return err
		}
		awa.extraSQL = string(b)
	}
	var systems []system
	switch *systemF {
	case "awa":
		systems = []system{awa}
	case "river":
		systems = []system{riverSystem{}}
	case "both":
		systems = []system{awa, riverSystem{}}
	default:
		return fmt.Errorf("-system: want awa, river or both, got %q", *systemF)
	}
	scenarios := strings.Split(*scenarioF, ",")
	if *scenarioF == "all" {
		scenarios = []string{"burndown", "rate", "enqueue"}
	}
	for _, s := range scenarios {
		if s != "burndown" && s != "rate" && s != "enqueue" {
			return fmt.Errorf("-scenario: unknown %q", s)
		}
	}
	rates, err := floats(*ratesF)
	if err != nil {
		return fmt.Errorf("-rates: %w", err)
	}
	enqProds, err := ints(*enqProdsF)
	if err != nil {
		return fmt.Errorf("-enqueue-producers: %w", err)
	}

	ctx, cancel := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer cancel()

	rep := &Report{
		StartedAt: time.Now().UTC(), Command: strings.Join(append([]string{"bench"}, os.Args[1:]...), " "),
		Quick: *quick, Machine: machineInfo(), ClientConfs: map[string]map[string]string{},
		Config: Config{Scenarios: scenarios, Jobs: *jobs, Workers: *workers, Conns: *conns, Rates: rates,
			RateDuration: rateDur.String(), RateWarmup: rateWarm.String(), Producers: *producers,
			EnqueueDuration: enqDur.String(), EnqueueProds: enqProds, BulkBatch: *bulkBatch, Repeat: *repeat,
			Profile: *profile},
	}
	for _, s := range systems {
		rep.Config.Systems = append(rep.Config.Systems, s.Name())
		rep.ClientConfs[s.Name()] = s.Settings(*workers)
	}
	rep.Config.AwaSQL = *awaSQL
	rep.Source = sourceState()
	rep.River = riverVersion()
	admin, err := pgx.Connect(ctx, *dsn)
	if err != nil {
		return fmt.Errorf("connect %s: %w", *dsn, err)
	}
	rep.Postgres, err = pgInfo(ctx, admin)
	admin.Close(context.Background())
	if err != nil {
		return err
	}
	if !rep.Postgres.StatStatements {
		logf("pg_stat_statements is not loaded (shared_preload_libraries): no statement profile")
	}
	e := &env{adminDSN: *dsn, statements: rep.Postgres.StatStatements, profile: *profile, keep: *keep,
		conns: *conns, workers: *workers, progress: globalProgress, timeout: *timeout}

	printHeader(rep)
	// Systems alternate within each scenario and the order flips on every
	// repeat, so slow drifts of a shared machine hit both alike.
	type job struct {
		scenario, variant string
		do                func(s system, r *Run) error
	}
	var jobsList []job
	for _, sc := range scenarios {
		switch sc {
		case "burndown":
			jobsList = append(jobsList, job{"burndown", fmt.Sprintf("%d jobs", *jobs), func(s system, r *Run) error {
				return burndown(ctx, e, s, *jobs, r)
			}})
		case "rate":
			for _, rt := range rates {
				jobsList = append(jobsList, job{"rate", fmt.Sprintf("%g/s", rt), func(s system, r *Run) error {
					return rateRun(ctx, e, s, rt, *rateWarm, *rateDur, *producers, r)
				}})
			}
		case "enqueue":
			for _, p := range enqProds {
				jobsList = append(jobsList, job{"enqueue", fmt.Sprintf("single x%d", p), func(s system, r *Run) error {
					return enqueueRun(ctx, e, s, "single", p, 1, *enqDur, r)
				}})
			}
			jobsList = append(jobsList, job{"enqueue", fmt.Sprintf("bulk %d", *bulkBatch), func(s system, r *Run) error {
				return enqueueRun(ctx, e, s, "bulk", 1, *bulkBatch, *enqDur, r)
			}})
		}
	}
	for _, j := range jobsList {
		for rp := 0; rp < *repeat; rp++ {
			order := systems
			if rp%2 == 1 && len(systems) == 2 {
				order = []system{systems[1], systems[0]}
			}
			for _, s := range order {
				if ctx.Err() != nil {
					return ctx.Err()
				}
				r := &Run{System: s.Name(), Scenario: j.scenario, Variant: j.variant, Repeat: rp + 1}
				if j.scenario != "enqueue" {
					r.Workers = *workers
				}
				if err := j.do(s, r); err != nil {
					r.Error = err.Error()
					logf("%s %s %s: %v", s.Name(), j.scenario, j.variant, err)
				}
				globalProgress.clear()
				printRun(r)
				rep.Runs = append(rep.Runs, r)
			}
		}
	}
	rep.FinishedAt = time.Now().UTC()
	globalProgress.clear()
	fmt.Println()
	printSummary(rep)

	if *out != "" {
		if err := writeJSON(*out, rep); err != nil {
			return err
		}
		stamped := filepath.Join(filepath.Dir(*out), rep.StartedAt.Format("20060102T150405Z")+".json")
		if err := writeJSON(stamped, rep); err != nil {
			return err
		}
		fmt.Printf("\nresults: %s (and %s)\n", *out, stamped)
	}
	if *md != "" {
		if err := writeMarkdown(*md, rep); err != nil {
			return err
		}
		fmt.Printf("report:  %s\n", *md)
	}
	return nil
}

func writeJSON(path string, v any) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}

func floats(s string) ([]float64, error) {
	var out []float64
	for _, f := range strings.Split(s, ",") {
		v, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
		if err != nil || v <= 0 {
			return nil, fmt.Errorf("bad value %q", f)
		}
		out = append(out, v)
	}
	return out, nil
}

func ints(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		v, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || v <= 0 {
			return nil, fmt.Errorf("bad value %q", f)
		}
		out = append(out, v)
	}
	return out, nil
}

// ---------------------------------------------------------------- progress

// progress keeps one status line on stderr: rewritten in place on a
// terminal, printed at most every 5 s otherwise.
type progress struct {
	tty   bool
	last  time.Time
	shown bool
}

var globalProgress = newProgress()

func newProgress() *progress {
	fi, err := os.Stderr.Stat()
	return &progress{tty: err == nil && fi.Mode()&os.ModeCharDevice != 0}
}

func (p *progress) set(line string) {
	if p.tty {
		fmt.Fprintf(os.Stderr, "\r\033[K%s", line)
		p.shown = true
		return
	}
	if time.Since(p.last) >= 5*time.Second {
		fmt.Fprintf(os.Stderr, "  .. %s\n", line)
		p.last = time.Now()
	}
}

func (p *progress) clear() {
	if p.tty && p.shown {
		fmt.Fprint(os.Stderr, "\r\033[K")
		p.shown = false
	}
}
