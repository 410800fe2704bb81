package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/awa-queue/awa/db"
	"github.com/awa-queue/awa/driver"
	"github.com/awa-queue/awa/internal/pgstats"
)

// demoOptions are the flags of `awa demo`.
type demoOptions struct {
	DSN      string
	Listen   string        // Config.ListenDSN: a direct DSN for LISTEN when DSN goes through a transaction pooler
	Jobs     int           // bulk process_order jobs; the special ones come on top
	Workers  int           // jobs run at once per queue
	Duration time.Duration // give up (and fail) after this long working
	Reset    bool          // drop schema awa before installing it
	Verbose  bool
}

func cmdDemo(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs, dsn := newFlagSet("demo", "[-dsn DSN] [-listen-dsn DSN] [-jobs N] [-workers W] [-duration D] [-reset] [-v]", stderr)
	var o demoOptions
	fs.StringVar(&o.Listen, "listen-dsn", "", listenDSNUsage)
	fs.IntVar(&o.Jobs, "jobs", 75000, "bulk jobs to enqueue from Go; a few hundred special ones (retry, DLQ, snooze, cancel, scheduled) come on top")
	fs.IntVar(&o.Workers, "workers", 50, "jobs run at once per queue")
	fs.DurationVar(&o.Duration, "duration", 2*time.Minute, "stop working after this long even if jobs remain (the demo then fails)")
	fs.BoolVar(&o.Reset, "reset", false, "drop schema awa and every job in it (goose down to 0) before installing it: for reruns on one database")
	fs.BoolVar(&o.Verbose, "v", false, "log at info level (default: warnings only)")
	if err := parseFlagsOnly(fs, args, dsn); err != nil {
		return err
	}
	if o.Jobs < 0 || o.Workers < 1 || o.Duration <= 0 {
		return usageErrorf("-jobs must be >= 0, -workers >= 1 and -duration > 0")
	}
	o.DSN = *dsn

	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	rep, err := runDemo(ctx, o, stdout, stderr)
	if err != nil {
		return err
	}
	if !rep.ok() {
		return errors.New("not every job is accounted for (see above)")
	}
	return nil
}

// demoPlan is what the demo enqueued and what each job should end as.
type demoPlan struct {
	expect     map[int64]outcome // job id -> the final outcome its kind and args ask for
	rolledBack int64             // id a rolled-back InsertTx got: it must never run
	fromSQL    int
	fromGo     int
	retryOnce  int
	snoozeOnce int
	scheduled  int
	took       time.Duration
}

// runDemo is `awa demo`: install, enqueue, work with progress, report.
func runDemo(ctx context.Context, o demoOptions, stdout, stderr io.Writer) (*demoReport, error) {
	began := time.Now()
	log := newLogger(stderr, o.Verbose)

	fmt.Fprintln(stdout, "== awa demo: install the substrate (embedded goose migrations)")
	if o.Reset {
		if err := migrateDown(ctx, o.DSN, db.DefaultSchema, stdout); err != nil {
			return nil, err
		}
	}
	if _, err := migrateUp(ctx, o.DSN, db.DefaultSchema, stdout); err != nil {
		return nil, err
	}

	queues := []string{queueDefault, queueMail, queueRisky}
	pool, err := openPool(ctx, o.DSN, len(queues)+1) // and queue ops
	if err != nil {
		return nil, err
	}
	defer pool.Close()
	d := driver.New()

	rec := newOutcomes(map[string]bool{queueRisky: true}, true)
	ws := driver.NewWorkers()
	addDemoWorkers(ws, rec)
	show := addShowcaseWorkers(ws)
	addPeriodicDemoWorker(ws)
	feats := addFeatureWorkers(ws)
	addUniqueDemoWorker(ws)
	qcfg := map[string]driver.QueueConfig{queueOps: {MaxWorkers: 2}, queueAging: {MaxWorkers: 1}, queueFlow: {MaxWorkers: 4}}
	for _, q := range queues {
		qcfg[q] = driver.QueueConfig{MaxWorkers: o.Workers}
	}
	client, err := driver.NewClient(pool, &driver.Config{
		Queues:            qcfg,
		Workers:           ws,
		Logger:            log,
		FetchPollInterval: 250 * time.Millisecond,
		ListenDSN:         o.Listen,
		// A literal of its own on purpose: the demo's values, not the tests'.
		Maintenance: &driver.MaintenanceConfig{
			ElectInterval:      250 * time.Millisecond,
			PromoteInterval:    200 * time.Millisecond,
			QueueRingInterval:  time.Second,
			ClaimRingInterval:  time.Second,
			LeaseRingInterval:  time.Second,
			CursorRingInterval: time.Second,
			// Keep two sealed slots of terminal history (instead of 14), so
			// the short demo shows whole slots being reclaimed.
			KeepSealedQueueSlots: 2,
		},
	})
	if err != nil {
		return nil, fmt.Errorf("new client: %w", err)
	}
	// Before the demo's first Driver call, which runs no check: a pooler the
	// DSN's exec mode cannot serve fails here, with the clear error.
	if err := client.CheckDatabase(ctx); err != nil {
		return nil, err
	}
	if err := requireNoJobs(ctx, d, pool); err != nil {
		return nil, err
	}
	dlqOn := true
	if err := d.ConfigureQueue(ctx, pool, queueRisky, driver.QueueOptions{DLQ: &dlqOn}); err != nil {
		return nil, err
	}
	fmt.Fprintf(stdout, "SELECT * FROM awa.configure_queue('%s', '{\"dlq\": true}');  -- jobs failing for good in %s go to the DLQ\n",
		queueRisky, queueRisky)
	base, err := pgstats.Read(ctx, pool, pgstats.InSchema("awa"))
	if err != nil {
		return nil, err
	}

	rings := &ringCounter{}
	stopRings := rings.follow(client)
	defer stopRings()

	plan, err := enqueueDemo(ctx, client, pool, o.Jobs, stdout)
	if err != nil {
		return nil, err
	}

	fmt.Fprintf(stdout, "\n== Work: %d workers per queue on %s; maintenance promotes every 200ms, rotates and prunes the rings every 1s\n",
		o.Workers, strings.Join(queues, ", "))
	if err := client.Start(ctx); err != nil {
		return nil, fmt.Errorf("start client: %w", err)
	}
	workStart := time.Now()
	prog := progress{w: stdout, tty: isTerminal(stdout), expected: int64(len(plan.expect)), start: workStart}
	endedBy, workTook, progErr := prog.run(ctx, d, pool, rec, o.Duration)

	if endedBy == endedDone {
		catchUp(ctx, rings, stdout)
		if err := show.run(ctx, client, pool, stdout); err != nil {
			return nil, fmt.Errorf("long jobs and callbacks: %w", err)
		}
		if err := show.pauseAndDrain(ctx, client, pool, stdout); err != nil {
			return nil, fmt.Errorf("pause and drain: %w", err)
		}
		if err := showPeriodic(ctx, client, pool, stdout); err != nil {
			return nil, fmt.Errorf("periodic jobs: %w", err)
		}
		if err := feats.run(ctx, client, pool, o, log, stdout); err != nil {
			return nil, err
		}
		if err := showUnique(ctx, client, pool, stdout); err != nil {
			return nil, fmt.Errorf("unique jobs: %w", err)
		}
	}

	stopCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	if err := client.Stop(stopCtx); err != nil {
		return nil, fmt.Errorf("stop client: %w", err)
	}
	stopRings()
	if progErr != nil {
		return nil, progErr
	}
	counts, err := sumCounts(stopCtx, d, pool)
	if err != nil {
		return nil, err
	}
	pool.Close() // ends the backends, which flushes their statistics

	stats, err := settledStats(stopCtx, o.DSN)
	if err != nil {
		return nil, err
	}
	rep := buildReport(plan, rec, counts, endedBy, workTook, time.Since(began), rings, pgstats.Since(base, stats))
	rep.print(stdout)
	return rep, nil
}

// catchUpLimit bounds how long the demo lets maintenance run once the jobs
// are done.
const catchUpLimit = 5 * time.Second

// catchUp lets the maintenance leader run on after the load until it has
// pruned both the queue and the claim ring once more (under load a prune can
// be skipped: slots still live, or their locks busy), or catchUpLimit passes.
func catchUp(ctx context.Context, rings *ringCounter, w io.Writer) {
	start := time.Now()
	q0, c0 := rings.get("queue", "prune", "pruned"), rings.get("claim", "prune", "pruned")
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for time.Since(start) < catchUpLimit {
		if rings.get("queue", "prune", "pruned") > q0 && rings.get("claim", "prune", "pruned") > c0 {
			break
		}
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
	fmt.Fprintf(w, "Maintenance after the load, %s: queue ring +%s, claim ring +%s\n",
		time.Since(start).Round(100*time.Millisecond), plural(rings.get("queue", "prune", "pruned")-q0, "prune"),
		plural(rings.get("claim", "prune", "pruned")-c0, "prune"))
}

// requireNoJobs fails when the database already holds jobs (of an earlier
// run): the demo accounts for every job, so it needs an empty queue.
func requireNoJobs(ctx context.Context, d *driver.Driver, db driver.DBTX) error {
	counts, err := d.QueueCounts(ctx, db, "")
	if err != nil {
		return err
	}
	for _, c := range counts {
		if c.Available+c.Running+c.Scheduled+c.Retryable+c.Completed+c.Cancelled+c.Failed+c.DLQ > 0 {
			return fmt.Errorf("the database already holds awa jobs (queue %q: %+v); "+
				"use a fresh database, or pass -reset to drop schema awa and every job in it first", c.Queue, c)
		}
	}
	return nil
}

// enqueueDemo enqueues the demo's jobs: some from SQL (the statements any
// language would run, executed through the driver), most from Go.
func enqueueDemo(ctx context.Context, client *driver.Client, pool *pgxpool.Pool, bulk int, w io.Writer) (*demoPlan, error) {
	start := time.Now()
	special := min(max(bulk/100, 5), 200)
	mail := min(max(bulk/20, 10), 1000)
	plan := &demoPlan{expect: map[int64]outcome{}}
	d := client.Driver()

	// From SQL: what any language runs in its own transaction. The args and
	// opts are plain JSON text, as another language would write them.
	first := driver.InsertParams{Kind: "send_email", Args: []byte(`{"to": "ada@example.com", "subject": "Welcome to awa"}`),
		Opts: driver.InsertOpts{Queue: queueMail}}
	var batch []driver.InsertParams
	var want []outcome
	for i := 1; i < mail; i++ {
		batch = append(batch, driver.InsertParams{Kind: "send_email",
			Args: fmt.Appendf(nil, `{"to": "user%d@example.com", "subject": "Your receipt #%d"}`, i, i),
			Opts: driver.InsertOpts{Queue: queueMail}})
		want = append(want, outcomeCompleted)
	}
	for i := 1; i <= special; i++ {
		batch = append(batch, driver.InsertParams{Kind: "call_webhook",
			Args: fmt.Appendf(nil, `{"url": "https://hooks.example.com/orders/%d", "fail_attempts": 1}`, i),
			Opts: driver.InsertOpts{Priority: 1}})
		want = append(want, outcomeCompleted)
	}
	for i := 1; i <= special; i++ {
		batch = append(batch, driver.InsertParams{Kind: "export_report", Args: fmt.Appendf(nil, `{"report_id": %d}`, i),
			Opts: driver.InsertOpts{Queue: queueRisky, MaxAttempts: 2}})
		want = append(want, outcomeDLQ)
	}
	fmt.Fprintln(w, "\n== Enqueue from SQL: what any language runs in its own transaction (executed here through the driver's typed layer)")
	fmt.Fprint(w, renderSQL(first, batch))
	err := pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		j, err := d.Insert(ctx, tx, first)
		if err != nil {
			return err
		}
		plan.expect[j.ID] = outcomeCompleted
		got, err := d.InsertMany(ctx, tx, batch)
		if err != nil {
			return err
		}
		for i, j := range got {
			plan.expect[j.ID] = want[i]
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("enqueue from SQL: %w", err)
	}
	plan.fromSQL = 1 + len(batch)
	plan.retryOnce = special

	// From Go: one job in a committed transaction, one in a rolled-back one
	// (first, so the claim cursor passes its reserved position right away).
	fmt.Fprintln(w, "\n== Enqueue from Go (typed args, client.Insert / InsertTx / InsertMany)")
	var kept driver.InsertedJob
	err = pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		// ... the application's own writes would go here, in the same transaction ...
		var err error
		kept, err = client.InsertTx(ctx, tx, ProcessOrderArgs{OrderID: 1, AmountCents: 4200}, nil)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("enqueue in a transaction: %w", err)
	}
	plan.expect[kept.ID] = outcomeCompleted
	tx, err := pool.Begin(ctx)
	if err != nil {
		return nil, fmt.Errorf("begin: %w", err)
	}
	gone, err := client.InsertTx(ctx, tx, ProcessOrderArgs{OrderID: 2, AmountCents: 990}, nil)
	if rbErr := tx.Rollback(ctx); err == nil && rbErr != nil {
		err = rbErr
	}
	if err != nil {
		return nil, fmt.Errorf("enqueue in a rolled-back transaction: %w", err)
	}
	plan.rolledBack = gone.ID
	fmt.Fprintf(w, "client.InsertTx + COMMIT    job %d (process_order)\n", kept.ID)
	fmt.Fprintf(w, "client.InsertTx + ROLLBACK  job %d (process_order): never becomes visible and must never run\n", gone.ID)

	type goJob struct {
		args   driver.JobArgs
		expect outcome
	}
	var jobs []goJob
	for i := 0; i < bulk; i++ {
		jobs = append(jobs, goJob{ProcessOrderArgs{OrderID: int64(100 + i), AmountCents: int64(500 + i%10000)}, outcomeCompleted})
	}
	invalid := max(special/10, 2)
	for i := 0; i < invalid; i++ {
		jobs = append(jobs, goJob{ProcessOrderArgs{OrderID: int64(-1 - i), AmountCents: -100}, outcomeFailed})
	}
	for i := 0; i < special; i++ {
		jobs = append(jobs, goJob{WaitForStockArgs{SKU: fmt.Sprintf("SKU-%04d", i), SnoozeMillis: 1000}, outcomeCompleted})
		jobs = append(jobs, goJob{SyncLegacyArgs{AccountID: int64(i)}, outcomeCancelled})
	}
	rand.New(rand.NewPCG(1, 2)).Shuffle(len(jobs), func(i, j int) { jobs[i], jobs[j] = jobs[j], jobs[i] })
	params := make([]driver.InsertManyParams, len(jobs))
	for i, j := range jobs {
		params[i] = driver.InsertManyParams{Args: j.args}
	}
	got, err := client.InsertMany(ctx, params)
	if err != nil {
		return nil, fmt.Errorf("enqueue from Go: %w", err)
	}
	for i, j := range got {
		plan.expect[j.ID] = jobs[i].expect
	}
	plan.snoozeOnce = special
	fmt.Fprintf(w, "client.InsertMany           %s jobs in one transaction: %s process_order (%d with a negative amount: JobFail), "+
		"%d wait_for_stock (snooze 1s once), %d sync_legacy (JobCancel)\n",
		num(int64(len(got))), num(int64(bulk+invalid)), invalid, special, special)

	runAt := time.Now().Add(4 * time.Second)
	for i := 0; i < special; i++ {
		j, err := client.Insert(ctx, SendEmailArgs{To: fmt.Sprintf("late%d@example.com", i), Subject: "Reminder"},
			&driver.InsertOpts{Queue: queueMail, RunAt: runAt})
		if err != nil {
			return nil, fmt.Errorf("enqueue scheduled job: %w", err)
		}
		plan.expect[j.ID] = outcomeCompleted
	}
	plan.scheduled = special
	fmt.Fprintf(w, "client.Insert               %d send_email with RunAt %s (scheduled 4s ahead)\n", special, runAt.Format("15:04:05"))
	plan.fromGo = 1 + len(got) + special
	plan.took = time.Since(start)

	var exp [numOutcomes]int64
	for _, oc := range plan.expect {
		exp[oc]++
	}
	fmt.Fprintf(w, "\nEnqueued %s jobs in %s (%s from SQL, %s from Go). Expected outcomes: completed %s (%d after one retry, "+
		"%d after one snooze, %d scheduled), failed %s, cancelled %s, DLQ %s (max_attempts 2: one retry, then the DLQ)\n",
		num(int64(len(plan.expect))), plan.took.Round(time.Millisecond), num(int64(plan.fromSQL)), num(int64(plan.fromGo)),
		num(exp[outcomeCompleted]), plan.retryOnce, plan.snoozeOnce, plan.scheduled,
		num(exp[outcomeFailed]), num(exp[outcomeCancelled]), num(exp[outcomeDLQ]))
	return plan, nil
}

// renderSQL shows the SQL statements equivalent to inserting first alone and
// then batch in one awa.insert_jobs call (long arrays abbreviated).
func renderSQL(first driver.InsertParams, batch []driver.InsertParams) string {
	opts := func(o driver.InsertOpts) string {
		raw, _ := json.Marshal(o)
		return quote(string(raw))
	}
	var b strings.Builder
	b.WriteString("BEGIN;\n")
	fmt.Fprintf(&b, "SELECT * FROM awa.insert_job(%s, %s, %s);\n", quote(first.Kind), quote(string(first.Args)), opts(first.Opts))
	// One example per kind, in batch order.
	var kinds, args, optv, notes []string
	for i := 0; i < len(batch); {
		j := i
		for j < len(batch) && batch[j].Kind == batch[i].Kind {
			j++
		}
		kinds = append(kinds, quote(batch[i].Kind)+", ...")
		args = append(args, quote(string(batch[i].Args))+", ...")
		optv = append(optv, opts(batch[i].Opts)+", ...")
		notes = append(notes, fmt.Sprintf("%d %s", j-i, batch[i].Kind))
		i = j
	}
	fmt.Fprintf(&b, "SELECT * FROM awa.insert_jobs(  -- %s jobs: %s\n", num(int64(len(batch))), strings.Join(notes, ", "))
	fmt.Fprintf(&b, "  ARRAY[%s],\n", strings.Join(kinds, " "))
	fmt.Fprintf(&b, "  ARRAY[%s]::jsonb[],\n", strings.Join(args, "\n        "))
	fmt.Fprintf(&b, "  ARRAY[%s]::jsonb[]);\n", strings.Join(optv, " "))
	b.WriteString("COMMIT;  -- the jobs become visible exactly now\n")
	return b.String()
}

func quote(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// isTerminal reports whether w is a character device (a terminal).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
