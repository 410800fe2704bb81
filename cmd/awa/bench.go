package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/awa-queue/awa/internal/benchkit"
)

const benchSynopsis = "[-scenario burndown|rate|enqueue|all] [-jobs N] [-quick] [-workers N] [-rates 800,5000] " +
	"[-rate-duration D] [-enqueue-producers 1,8] [-repeat N] [-awa-maintenance default|off|1s] [-out FILE] [-keep] -dsn DSN"

// cmdBench runs the benchmark scenarios of bench/ (the awa vs River
// comparison) for awa alone, through the same harness (internal/benchkit).
func cmdBench(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs, dsn := newFlagSet("bench", benchSynopsis, stderr)
	fs.Lookup("dsn").Usage = "PostgreSQL server DSN of a role that can create databases (default $DATABASE_URL)"
	common := benchkit.RegisterFlags(fs)
	out := fs.String("out", "", "write the results as JSON to this file (default: none)")
	prefix := fs.String("db-prefix", "bench", "run databases are PREFIX_awa_SCENARIO on the -dsn server, created fresh for every run")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usageErrorf("unexpected arguments %q", pos)
	}
	opts, err := common.Options()
	if err != nil {
		return usageErrorf("%v", err)
	}
	for _, f := range []struct {
		name  string
		value int
	}{{"jobs", opts.Jobs}, {"workers", opts.Workers}, {"conns", opts.Conns}, {"producers", opts.Producers},
		{"bulk-batch", opts.BulkBatch}, {"repeat", opts.Repeat}} {
		if f.value < 1 {
			return usageErrorf("-%s must be at least 1", f.name)
		}
	}
	if err := resolveDSN(dsn); err != nil {
		return err
	}
	opts.DSN, opts.DBPrefix = *dsn, *prefix
	opts.Command = benchCommand(args)
	awa, err := benchkit.NewAwaSystem(opts.AwaSQL, stderr)
	if err != nil {
		return err
	}
	awa.Maintenance = opts.AwaMaintenance

	ctx, cancel := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer cancel()
	con := benchkit.NewConsole(stdout, stderr)
	rep, err := benchkit.Execute(ctx, opts, []benchkit.System{awa}, con)
	if err != nil {
		return err
	}
	fmt.Fprintln(stdout)
	benchkit.PrintSummary(stdout, rep, awa.Name())
	if *out != "" {
		if err := benchkit.WriteJSON(*out, rep); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "\nresults: %s\n", *out)
	}
	if n := rep.Failures(); n > 0 {
		return fmt.Errorf("%d of %d runs failed", n, len(rep.Runs))
	}
	return nil
}

// benchCommand is the command line the report records, without the -dsn
// value (it may hold a password).
func benchCommand(args []string) string {
	cmd := []string{"awa", "bench"}
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
