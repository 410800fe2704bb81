// Command bench compares awa with River (riverqueue/river) on one PostgreSQL
// server: burn-down throughput, latency at an offered rate, and enqueue
// speed, with WAL, table churn and size, wait events and pg_stat_statements
// for every run. `make bench` runs it inside a private cluster; see
// docs/benchmarks.md for the latest results.
//
// The harness (scenarios, statistics, reports) and the awa system live in
// the main module (internal/benchkit), which `awa bench` runs too; this
// module adds River. Every run gets a fresh database (CREATE DATABASE on the
// -dsn server; awa installed with its goose migrations, River with
// rivermigrate), the same no-op handler, the same worker count and the same
// load generator.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"runtime/debug"
	"strings"
	"syscall"

	"github.com/awa-queue/awa/internal/benchkit"
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
	con := benchkit.NewConsole(os.Stdout, os.Stderr)
	if err := run(con); err != nil {
		con.ClearProgress()
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

func run(con *benchkit.Console) error {
	common := benchkit.RegisterFlags(flag.CommandLine)
	var (
		systemF = flag.String("system", "both", "awa, river or both")
		dsn     = flag.String("dsn", "", "PostgreSQL server DSN of a role that can create databases (default: $AWA_TEST_DSN)")
		out     = flag.String("out", "bench/results/latest.json", "JSON results file (a timestamped copy is written beside it)")
		md      = flag.String("md", "docs/benchmarks.md", "markdown report to rewrite (empty: none)")
		from    = flag.String("from", "", "run nothing: rewrite the -md report from this JSON results file")
	)
	flag.Parse()
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
	opts, err := common.Options()
	if err != nil {
		return err
	}
	opts.Command = strings.Join(append([]string{"bench"}, os.Args[1:]...), " ")
	opts.DSN = *dsn
	if opts.DSN == "" {
		opts.DSN = os.Getenv("AWA_TEST_DSN")
	}
	if opts.DSN == "" {
		return fmt.Errorf("no server: pass -dsn or set AWA_TEST_DSN, or run `make bench`, which starts a private cluster")
	}

	awa, err := benchkit.NewAwaSystem(opts.AwaSQL, os.Stderr)
	if err != nil {
		return err
	}
	awa.Maintenance = opts.AwaMaintenance
	var systems []benchkit.System
	switch *systemF {
	case "awa":
		systems = []benchkit.System{awa}
	case "river":
		systems = []benchkit.System{riverSystem{}}
	case "both":
		systems = []benchkit.System{awa, riverSystem{}}
	default:
		return fmt.Errorf("-system: want awa, river or both, got %q", *systemF)
	}

	ctx, cancel := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer cancel()
	rep, err := benchkit.Execute(ctx, opts, systems, con)
	if err != nil {
		return err
	}
	rep.River = riverVersion()
	fmt.Println()
	benchkit.PrintSummary(os.Stdout, rep, "awa", "river")

	if *out != "" {
		if err := benchkit.WriteJSON(*out, rep); err != nil {
			return err
		}
		stamped := filepath.Join(filepath.Dir(*out), rep.StartedAt.Format("20060102T150405Z")+".json")
		if err := benchkit.WriteJSON(stamped, rep); err != nil {
			return err
		}
		fmt.Printf("\nresults: %s (and %s)\n", *out, stamped)
	}
	if *md != "" {
		if err := benchkit.WriteMarkdown(*md, rep); err != nil {
			return err
		}
		fmt.Printf("report:  %s\n", *md)
	}
	return nil
}
