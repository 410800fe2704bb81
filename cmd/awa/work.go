package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/awa-queue/awa/driver"
)

// workNote is what `awa work -h` says after the flags.
const workNote = `
awa work runs the demo's job kinds only (send_email, process_order,
call_webhook, export_report, wait_for_stock, sync_legacy): a prebuilt binary
cannot load your Go handlers. Run workers for your own kinds from your own
binary: driver.NewWorkers, driver.AddWorker, driver.NewClient, Client.Start
(examples/worker has a complete main).
`

// cmdWork is `awa work`: workers for the demo's job kinds.
func cmdWork(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs, dsn := newFlagSet("work", "[-dsn DSN] [-schema NAME] [-listen-dsn DSN] [-queues default,mail] [-workers W] [-v]", stderr)
	withNote(fs, workNote, stderr)
	queues := fs.String("queues", strings.Join([]string{queueDefault, queueMail, queueRisky}, ","), "comma-separated queues to work")
	workers := fs.Int("workers", 20, "jobs run at once per queue")
	listenDSN := fs.String("listen-dsn", "", listenDSNUsage)
	schema := fs.String("schema", driver.DefaultSchema, "schema awa is installed in (awa migrate -schema)")
	verbose := fs.Bool("v", false, "log at info level (default: warnings only)")
	if err := parseFlagsOnly(fs, args, dsn); err != nil {
		return err
	}
	if *workers < 1 {
		return usageErrorf("-workers must be at least 1")
	}
	qcfg := map[string]driver.QueueConfig{}
	for _, q := range strings.Split(*queues, ",") {
		if q = strings.TrimSpace(q); q != "" {
			qcfg[q] = driver.QueueConfig{MaxWorkers: *workers}
		}
	}
	if len(qcfg) == 0 {
		return usageErrorf("-queues names no queue")
	}
	log := newLogger(stderr, *verbose)

	pool, err := openPool(ctx, *dsn, len(qcfg))
	if err != nil {
		return err
	}
	defer pool.Close()

	rec := newOutcomes(nil, false)
	ws := driver.NewWorkers()
	addDemoWorkers(ws, rec)
	client, err := driver.NewClient(pool, &driver.Config{Schema: *schema, Queues: qcfg, Workers: ws, Logger: log, ListenDSN: *listenDSN})
	if err != nil {
		return fmt.Errorf("new client: %w", err)
	}

	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sigs)

	if err := client.Start(ctx); err != nil {
		return fmt.Errorf("start client: %w", err)
	}
	names := make([]string, 0, len(qcfg))
	for q := range qcfg {
		names = append(names, q)
	}
	fmt.Fprintf(stdout, "working queues %s with %d workers each; Ctrl-C stops gracefully, twice stops at once\n",
		strings.Join(names, ","), *workers)

	tick := time.NewTicker(10 * time.Second)
	defer tick.Stop()
	var last int64
	start := time.Now()
wait:
	for {
		select {
		case <-ctx.Done():
			break wait
		case <-sigs:
			break wait
		case <-tick.C:
			if n := rec.runs.Load(); n != last {
				last = n
				fmt.Fprintf(stdout, "%s  %s\n", time.Since(start).Round(time.Second), rec.summaryLine())
			}
		}
	}

	fmt.Fprintln(stdout, "stopping gracefully: running jobs finish (signal again to cancel them)")
	stopCtx, hardStop := context.WithCancel(context.WithoutCancel(ctx))
	defer hardStop()
	go func() {
		select {
		case <-sigs:
			fmt.Fprintln(stdout, "stopping at once: cancelling running jobs")
			hardStop()
		case <-stopCtx.Done():
		}
	}()
	err = client.Stop(stopCtx)
	fmt.Fprintf(stdout, "stopped after %s  %s\n", time.Since(start).Round(time.Second), rec.summaryLine())
	if err != nil && stopCtx.Err() == nil {
		return fmt.Errorf("stop client: %w", err)
	}
	log.Info("work: Stopped", slog.Int64("handler_runs", rec.runs.Load()))
	return nil
}

// summaryLine renders the handler outcome counters on one line.
func (o *outcomes) summaryLine() string {
	var b strings.Builder
	fmt.Fprintf(&b, "handler runs %s:", num(o.runs.Load()))
	for oc := outcome(0); oc < numOutcomes; oc++ {
		fmt.Fprintf(&b, " %s %s", oc, num(o.count(oc)))
	}
	return b.String()
}

// openPool opens a pgx pool sized for a client working queues queues plus
// its background services and the caller's own queries.
// listenDSNUsage documents the -listen-dsn flag of demo and work.
const listenDSNUsage = "PostgreSQL connection string for LISTEN (default: a connection of -dsn's pool); " +
	"when -dsn goes through a transaction-mode pooler, give a direct one (docs/poolers.md)"

func openPool(ctx context.Context, dsn string, queues int) (*pgxpool.Pool, error) {
	cfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		return nil, fmt.Errorf("parse DSN: %w", err)
	}
	// Per queue a claimer; then completer, listener, heartbeat, elector,
	// maintenance services and the caller's queries.
	cfg.MaxConns = int32(queues + 16)
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("open pool: %w", err)
	}
	if err := pool.Ping(ctx); err != nil {
		pool.Close()
		return nil, fmt.Errorf("connect to %s: %w", cfg.ConnConfig.Database, err)
	}
	return pool, nil
}
