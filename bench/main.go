// Command bench benchmarks awa, alone or side by side with River
// (riverqueue/river), on one PostgreSQL server: burn-down throughput, latency
// at an offered rate, and enqueue speed, with WAL, table churn and size, wait
// events and pg_stat_statements for every run. `make bench` runs it inside a
// private cluster; see docs/benchmarks.md for the latest results.
//
//	bench [-system awa|river|both] [scenario flags] [-out FILE] [-md FILE] [-dsn DSN]
//
// The harness (scenarios, statistics, reports) and the awa system live in
// package benchkit; this package adds River. The module is apart from awa's
// own so that River stays out of it. Every run gets a fresh database (CREATE
// DATABASE on the -dsn server; awa installed with its goose migrations, River
// with rivermigrate), the same no-op handler, the same worker count and the
// same load generator. bench/adapter runs awa in the long-horizon portable
// bench.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"runtime/debug"
	"runtime/pprof"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/awa-queue/awa/bench/benchkit"
)

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

func main() {
	ctx, cancel := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	cancel()
	os.Exit(code)
}

// errUsage is a command-line mistake (exit status 2), already reported.
var errUsage = errors.New("usage")

// run runs the bench with args and returns the exit status: 0, 1 when the
// bench or a run of it failed, 2 for a command-line mistake.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	con := benchkit.NewConsole(stdout, stderr)
	err := bench(ctx, args, stdout, stderr, con)
	switch {
	case err == nil, errors.Is(err, flag.ErrHelp):
		return 0
	case errors.Is(err, errUsage):
		return 2
	default:
		con.ClearProgress()
		fmt.Fprintln(stderr, "bench:", err)
		return 1
	}
}

func bench(ctx context.Context, args []string, stdout, stderr io.Writer, con *benchkit.Console) error {
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	common := benchkit.RegisterFlags(fs)
	var (
		systemF = fs.String("system", "both", "awa, river or both")
		dsn     = fs.String("dsn", "", "PostgreSQL server DSN of a role that can create databases (default: $AWA_TEST_DSN, else $DATABASE_URL)")
		prefix  = fs.String("db-prefix", "bench", "run databases are PREFIX_SYSTEM_SCENARIO on the -dsn server, created fresh for every run")
		out     = fs.String("out", "bench/results/latest.json", "JSON results file (a timestamped copy is written beside it; empty: none)")
		md      = fs.String("md", "docs/benchmarks.md", "markdown report of awa vs River to rewrite (empty: none)")
		from    = fs.String("from", "", "run nothing: rewrite the -md report from this JSON results file")
		merge   = fs.String("merge", "", "run nothing: combine these JSON results files (comma-separated) into one, "+
			"written to -out (no timestamped copy), and the -md report from it")
		riverCf = fs.String("river-config", "sweep", "River's configuration: sweep (the -workers × -conns sweep, as awa), "+
			"own (only as River's own bench command configures its client: 2,000 workers, pgxpool's default pool) or both")
		fair = fs.Bool("fairness", false, "run only the awa fairness scenario: a trickle tenant's insert-to-start "+
			"latency alone and beside a flood tenant's backlog on a keyed queue (prints; no report)")
		fairFlood = fs.Int("fairness-flood", 100_000, "fairness: the flood tenant's backlog")
		fairLimit = fs.Int("fairness-limit", 10, "fairness: the queue's per-key concurrency limit")
		fairWork  = fs.Duration("fairness-work", time.Millisecond, "fairness: each job's handler time")
		fairEvery = fs.Duration("fairness-every", 20*time.Millisecond, "fairness: the trickle's insert interval")
		fairPhase = fs.Duration("fairness-duration", 20*time.Second, "fairness: each phase's trickle")
		limits    = fs.Bool("limits", false, "run only the awa flow-control throughput scenario: a rate-limited queue "+
			"(starts/s and the busiest 1 s window), a keyed queue (running per key, jobs/s against the ideal), a max_depth "+
			"queue under a runaway producer (prints; no report)")
		limPhase   = fs.Duration("limits-duration", 5*time.Second, "limits: each phase's length")
		limClients = fs.Int("limits-clients", 3, "limits: worker clients (pools of their own) per phase")
		limRate    = fs.Float64("limits-rate", 500, "limits: the rate-limited queue's starts per second")
		limBurst   = fs.Int("limits-burst", 50, "limits: its burst")
		limKeys    = fs.Int("limits-keys", 20, "limits: keys of the keyed queue")
		limKey     = fs.Int("limits-key-limit", 5, "limits: running jobs per key")
		limWork    = fs.Duration("limits-work", 10*time.Millisecond, "limits: the keyed and depth queues' handler time")
		limDepth   = fs.Int("limits-max-depth", 1000, "limits: the depth-limited queue's max_depth")
		idleQs     = fs.String("idle-queues", "", "run only the awa idle-queues scenario at these queue counts "+
			"(comma-separated, e.g. 10,100,1000): one client working that many idle queues, its statements/s "+
			"(pg_stat_statements), CPU and connections (prints; no report)")
		idleDur  = fs.Duration("idle-duration", 10*time.Second, "idle-queues: measured window per queue count")
		idlePoll = fs.Duration("idle-poll", 0, "idle-queues: the client's FetchPollInterval (0: its default)")
		cpuProf  = fs.String("cpuprofile", "", "write the bench process's Go CPU profile (both systems' clients and "+
			"workers, runtime/pprof) to this file, for `go tool pprof`")
		memProf = fs.String("memprofile", "", "write the bench process's Go allocation profile (runtime/pprof \"allocs\": "+
			"what was allocated over the whole run, by call site) to this file at the end, for `go tool pprof -sample_index=alloc_space`")
	)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return errUsage // the flag package printed the error and the usage
	}
	usage := func(format string, a ...any) error {
		fmt.Fprintf(stderr, "bench: "+format+"\n", a...)
		return errUsage
	}
	if fs.NArg() > 0 {
		return usage("unexpected arguments %q", fs.Args())
	}
	if *cpuProf != "" {
		f, err := os.Create(*cpuProf)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	if *memProf != "" {
		defer func() {
			if f, err := os.Create(*memProf); err == nil {
				_ = pprof.Lookup("allocs").WriteTo(f, 0)
				f.Close()
			}
		}()
	}
	if *merge != "" {
		if *from != "" {
			return usage("-merge and -from: give one")
		}
		return mergeFiles(strings.Split(*merge, ","), *out, *md, stdout)
	}
	if *from != "" {
		b, err := os.ReadFile(*from)
		if err != nil {
			return err
		}
		var rep benchkit.Report
		if err := json.Unmarshal(b, &rep); err != nil {
			return fmt.Errorf("%s: %w", *from, err)
		}
		return benchkit.WriteMarkdown(*md, &rep)
	}
	if *idleQs != "" {
		d := serverDSN(*dsn)
		if d == "" {
			return usage("no server: pass -dsn or set AWA_TEST_DSN")
		}
		var counts []int
		for _, f := range strings.Split(*idleQs, ",") {
			n, err := strconv.Atoi(strings.TrimSpace(f))
			if err != nil || n < 1 {
				return usage("-idle-queues: want positive queue counts, got %q", f)
			}
			counts = append(counts, n)
		}
		_, err := benchkit.IdleQueues(ctx, benchkit.IdleOptions{DSN: d, DBName: *prefix + "_idle", Queues: counts,
			Settle: 3 * time.Second, Duration: *idleDur, Poll: *idlePoll}, stdout)
		return err
	}
	if *limits || *fair {
		// The awa-only instruments: a server, and -workers, -keep.
		d := serverDSN(*dsn)
		if d == "" {
			return usage("no server: pass -dsn or set AWA_TEST_DSN")
		}
		o, err := common.Options()
		if err != nil {
			return usage("%v", err)
		}
		if *limits {
			_, err = benchkit.Limits(ctx, benchkit.LimitsOptions{DSN: d, DBName: *prefix + "_limits", Duration: *limPhase,
				Clients: *limClients, Workers: o.Workers, RatePerSecond: *limRate, RateBurst: *limBurst, Keys: *limKeys,
				KeyLimit: *limKey, KeyWork: *limWork, MaxDepth: *limDepth, DepthBatch: 100, DepthWorkers: 5, Keep: o.Keep}, stdout)
			return err
		}
		_, err = benchkit.Fairness(ctx, benchkit.FairnessOptions{DSN: d, DBName: *prefix + "_fairness", Flood: *fairFlood,
			Limit: *fairLimit, Workers: o.Workers, Work: *fairWork, TrickleEvery: *fairEvery, Duration: *fairPhase,
			Keep: o.Keep}, stdout)
		return err
	}
	opts, err := common.Options()
	if err != nil {
		return usage("%v", err)
	}
	awa, err := benchkit.NewAwaSystem(opts.AwaSQL, stderr)
	if err != nil {
		return err
	}
	awa.Maintenance = opts.AwaMaintenance
	awa.Archive = opts.AwaArchive
	awa.FetchBatch = opts.AwaFetchBatch
	if err := awa.SetOtel(opts.AwaOtel); err != nil {
		return usage("%v", err)
	}
	rivers, err := riverSystems(*riverCf)
	if err != nil {
		return usage("%v", err)
	}
	var systems []benchkit.System
	switch *systemF {
	case "awa":
		systems = []benchkit.System{awa}
	case "river":
		systems = rivers
	case "both":
		systems = append([]benchkit.System{awa}, rivers...)
	default:
		return usage("-system: want awa, river or both, got %q", *systemF)
	}
	if opts.Parked+opts.Long > 0 && *systemF != "awa" {
		return usage("-parked and -long hold awa jobs: run them with -system awa")
	}
	opts.DSN = *dsn
	for _, env := range []string{"AWA_TEST_DSN", "DATABASE_URL"} {
		if strings.TrimSpace(opts.DSN) == "" {
			opts.DSN = os.Getenv(env)
		}
	}
	if strings.TrimSpace(opts.DSN) == "" {
		return usage("no server: pass -dsn or set AWA_TEST_DSN, or run `make bench`, which starts a private cluster")
	}
	opts.DBPrefix = *prefix
	opts.Command = commandLine(args)

	rep, err := benchkit.Execute(ctx, opts, systems, con)
	if err != nil {
		return err
	}
	rep.River = riverVersion()
	fmt.Fprintln(stdout)
	benchkit.PrintSummary(stdout, rep, rep.Config.Systems...)

	if *out != "" {
		if err := benchkit.WriteJSON(*out, rep); err != nil {
			return err
		}
		stamped := filepath.Join(filepath.Dir(*out), rep.StartedAt.Format("20060102T150405Z")+".json")
		if err := benchkit.WriteJSON(stamped, rep); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "\nresults: %s (and %s)\n", *out, stamped)
	}
	if *md != "" {
		if err := benchkit.WriteMarkdown(*md, rep); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "report:  %s\n", *md)
	}
	if n := rep.Failures(); n > 0 {
		return fmt.Errorf("%d of %d runs failed", n, len(rep.Runs))
	}
	return nil
}

// serverDSN is dsn, else $AWA_TEST_DSN, else $DATABASE_URL ("" if none).
func serverDSN(dsn string) string {
	for _, env := range []string{"AWA_TEST_DSN", "DATABASE_URL"} {
		if strings.TrimSpace(dsn) == "" {
			dsn = os.Getenv(env)
		}
	}
	return strings.TrimSpace(dsn)
}

// commandLine is the command line the report records, without the -dsn
// value (it may hold a password).
func commandLine(args []string) string {
	cmd := []string{"bench"}
	for i := 0; i < len(args); i++ {
		name, _, inline := strings.Cut(strings.TrimLeft(args[i], "-"), "=")
		if name == "dsn" && strings.HasPrefix(args[i], "-") {
			if !inline {
				i++
			}
			continue
		}
		cmd = append(cmd, args[i])
	}
	return strings.Join(cmd, " ")
}
