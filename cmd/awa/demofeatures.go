package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/awa-queue/awa/driver"
)

// The demo's last lines, after the periodic jobs: priority aging, a worker's
// own retry policy and a rolling deploy, each on a queue of its own, outside
// the load's accounting. A second or so in all.
const (
	queueAging  = "aging"  // the demo client works it with one worker, aging on
	queueDeploy = "deploy" // worked by the rolling deploy's two processes only
)

// AgingTaskArgs (kind aging_task) reports the order it ran in.
type AgingTaskArgs struct {
	Label string `json:"label"`
}

// Kind implements driver.JobArgs.
func (AgingTaskArgs) Kind() string { return "aging_task" }

// ChargeCardArgs (kind charge_card) fails its first attempt (a card network
// timeout) and completes the next; its worker chooses the retry time.
type ChargeCardArgs struct {
	OrderID int64 `json:"order_id"`
}

// Kind implements driver.JobArgs.
func (ChargeCardArgs) Kind() string { return "charge_card" }

// RenderInvoiceArgs (kind render_invoice) is the kind the rolling deploy's
// new process brings: the old one has no worker for it.
type RenderInvoiceArgs struct {
	InvoiceID int64 `json:"invoice_id"`
}

// Kind implements driver.JobArgs.
func (RenderInvoiceArgs) Kind() string { return "render_invoice" }

// chargeCardRetry is charge_card's retry after a failure: far sooner than
// the default backoff (attempt^4 + 1 seconds: 2 s after the first).
const chargeCardRetry = 200 * time.Millisecond

// chargeCardWorker implements driver.WorkerNextRetry.
type chargeCardWorker struct{ attempts chan<- time.Time }

func (w chargeCardWorker) Work(ctx context.Context, job *driver.Job[ChargeCardArgs]) error {
	w.attempts <- time.Now()
	if job.Attempt == 1 {
		return errors.New("card network timeout")
	}
	return nil
}

// NextRetry implements driver.WorkerNextRetry.
func (chargeCardWorker) NextRetry(*driver.Job[ChargeCardArgs]) time.Time {
	return time.Now().Add(chargeCardRetry)
}

// features is what the demo's feature handlers tell it.
// queueFlow is the demo's keyed queue (per-tenant concurrency limit).
const queueFlow = "flow"

// TenantTaskArgs is a job of one tenant on the keyed queue.
type TenantTaskArgs struct {
	Tenant string `json:"tenant"`
}

func (TenantTaskArgs) Kind() string { return "tenant_task" }

type features struct {
	aging    chan string    // aging_task labels, in the order they ran
	attempts chan time.Time // when charge_card's attempts began
	flowMu   sync.Mutex
	running  map[string]int // tenant_task jobs running per tenant
	most     map[string]int // the most that ran at once
	flowDone chan struct{}
}

func addFeatureWorkers(ws *driver.Workers) *features {
	f := &features{aging: make(chan string, 8), attempts: make(chan time.Time, 4), running: map[string]int{},
		most: map[string]int{}, flowDone: make(chan struct{}, 16)}
	driver.AddWorker(ws, driver.WorkFunc(func(_ context.Context, job *driver.Job[TenantTaskArgs]) error {
		f.flowMu.Lock()
		f.running[job.Args.Tenant]++
		f.most[job.Args.Tenant] = max(f.most[job.Args.Tenant], f.running[job.Args.Tenant])
		f.flowMu.Unlock()
		time.Sleep(100 * time.Millisecond)
		f.flowMu.Lock()
		f.running[job.Args.Tenant]--
		f.flowMu.Unlock()
		f.flowDone <- struct{}{}
		return nil
	}))
	driver.AddWorker(ws, driver.WorkFunc(func(_ context.Context, job *driver.Job[AgingTaskArgs]) error {
		f.aging <- job.Args.Label
		return nil
	}))
	driver.AddWorker[ChargeCardArgs](ws, chargeCardWorker{attempts: f.attempts})
	return f
}

// run shows the three in turn.
func (f *features) run(ctx context.Context, client *driver.Client, db driver.DBTX, o demoOptions, log *slog.Logger,
	w io.Writer) error {
	if err := f.showAging(ctx, client, db, w); err != nil {
		return fmt.Errorf("priority aging: %w", err)
	}
	if err := f.showFlow(ctx, client, db, w); err != nil {
		return fmt.Errorf("flow control: %w", err)
	}
	if err := f.showRetryPolicy(ctx, client, w); err != nil {
		return fmt.Errorf("retry policy: %w", err)
	}
	if err := showRollingDeploy(ctx, client, db, o, log, w); err != nil {
		return fmt.Errorf("rolling deploy: %w", err)
	}
	return nil
}

// showAging pauses queue aging (one worker), turns aging on, enqueues three
// priority-1 jobs after a priority-4 job that has waited three aging
// intervals, resumes the queue and shows the priority-4 job ran first.
func (f *features) showAging(ctx context.Context, client *driver.Client, db driver.DBTX, w io.Writer) error {
	d := client.Driver()
	fmt.Fprintf(w, "\n== Priority aging (queue %s, one worker)\n", queueAging)
	if _, err := d.PauseQueue(ctx, db, queueAging); err != nil {
		return err
	}
	aging := 1
	if err := d.ConfigureQueue(ctx, db, queueAging, driver.QueueOptions{AgingSeconds: &aging}); err != nil {
		return err
	}
	fmt.Fprintf(w, "SELECT * FROM awa.configure_queue('%s', '{\"aging_seconds\": 1}');  -- paused meanwhile, to line the jobs up\n",
		queueAging)
	jobs := []driver.InsertManyParams{{Args: AgingTaskArgs{Label: "priority 4, due 3s ago"},
		Opts: &driver.InsertOpts{Queue: queueAging, Priority: 4, RunAt: time.Now().Add(-3 * time.Second)}}}
	for i := 1; i <= 3; i++ {
		jobs = append(jobs, driver.InsertManyParams{Args: AgingTaskArgs{Label: fmt.Sprintf("priority 1, #%d", i)},
			Opts: &driver.InsertOpts{Queue: queueAging, Priority: 1}})
	}
	if _, err := client.InsertMany(ctx, jobs); err != nil {
		return err
	}
	fmt.Fprintln(w, "client.InsertMany  a priority-4 job due 3s ago (3 aging intervals waited), then three priority-1 jobs")
	if err := d.ResumeQueue(ctx, db, queueAging); err != nil {
		return err
	}
	var order []string
	for range jobs {
		select {
		case l := <-f.aging:
			order = append(order, l)
		case <-time.After(10 * time.Second):
			return fmt.Errorf("the aging jobs did not run within 10s (ran: %q)", order)
		}
	}
	fmt.Fprintf(w, "claimed in this order: %s\n", strings.Join(order, "; "))
	if order[0] != jobs[0].Args.(AgingTaskArgs).Label {
		return fmt.Errorf("the aged priority-4 job did not run first: %q", order)
	}
	fmt.Fprintln(w, "  the priority-4 job counts as priority 1 and is the oldest: it goes first (without aging it would go last)")
	return nil
}

// showFlow limits queue flow to one running job per tenant (fleet-wide, in
// SQL), runs three jobs of one tenant and two of another on four workers,
// and shows a depth-limited queue refusing an insert.
func (f *features) showFlow(ctx context.Context, client *driver.Client, db driver.DBTX, w io.Writer) error {
	d := client.Driver()
	fmt.Fprintf(w, "\n== Flow control (queue %s, four workers)\n", queueFlow)
	if err := d.ConfigureQueue(ctx, db, queueFlow, driver.QueueOptions{
		Concurrency: &driver.Concurrency{Key: "args.tenant", Limit: 1}}); err != nil {
		return err
	}
	fmt.Fprintf(w, "SELECT * FROM awa.configure_queue('%s', '{\"concurrency\": {\"key\": \"args.tenant\", \"limit\": 1}}');\n", queueFlow)
	var jobs []driver.InsertManyParams
	for _, tn := range []string{"acme", "acme", "acme", "zed", "zed"} {
		jobs = append(jobs, driver.InsertManyParams{Args: TenantTaskArgs{Tenant: tn}, Opts: &driver.InsertOpts{Queue: queueFlow}})
	}
	if _, err := client.InsertMany(ctx, jobs); err != nil {
		return err
	}
	for range jobs {
		select {
		case <-f.flowDone:
		case <-time.After(10 * time.Second):
			return errors.New("the tenant jobs did not run within 10s")
		}
	}
	f.flowMu.Lock()
	acme, zed := f.most["acme"], f.most["zed"]
	f.flowMu.Unlock()
	fmt.Fprintf(w, "  3 acme and 2 zed jobs of 100 ms on 4 workers: at most %d acme and %d zed job ran at a time\n", acme, zed)
	if acme != 1 || zed != 1 {
		return fmt.Errorf("the per-tenant limit of 1 did not hold: acme %d, zed %d at once", acme, zed)
	}
	depth := 2
	if err := d.ConfigureQueue(ctx, db, "flow_full", driver.QueueOptions{MaxDepth: &depth}); err != nil {
		return err
	}
	fmt.Fprintln(w, "SELECT * FROM awa.configure_queue('flow_full', '{\"max_depth\": 2}');  -- no worker drains it")
	var held []int64
	for i := 0; i < 3; i++ {
		j, err := client.Insert(ctx, TenantTaskArgs{Tenant: "acme"}, &driver.InsertOpts{Queue: "flow_full"})
		switch {
		case i < 2 && err != nil:
			return err
		case i < 2:
			held = append(held, j.ID)
		case i == 2 && !errors.Is(err, driver.ErrQueueFull):
			return fmt.Errorf("the third insert into a queue of max_depth 2: %v, want ErrQueueFull", err)
		case i == 2:
			fmt.Fprintf(w, "  the third insert fails fast: %v (SQLSTATE AW060, driver.ErrQueueFull)\n", err)
		}
	}
	// The two that fit are cancelled, so the demo ends with every job final.
	for _, id := range held {
		if _, err := d.CancelJob(ctx, db, id, "flow demo: the queue has no worker"); err != nil {
			return err
		}
	}
	return nil
}

// showRetryPolicy runs a charge_card job, whose worker's NextRetry retries
// it after 200ms instead of the default backoff.
func (f *features) showRetryPolicy(ctx context.Context, client *driver.Client, w io.Writer) error {
	fmt.Fprintf(w, "\n== A worker's own retry policy (WorkerNextRetry, queue %s)\n", queueOps)
	j, err := client.Insert(ctx, ChargeCardArgs{OrderID: 42}, &driver.InsertOpts{Queue: queueOps})
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "client.Insert  job %d charge_card; its worker's NextRetry returns now + %s (default backoff after attempt 1: 2s)\n",
		j.ID, chargeCardRetry)
	var began [2]time.Time
	for i := range began {
		select {
		case began[i] = <-f.attempts:
		case <-time.After(10 * time.Second):
			return fmt.Errorf("charge_card job %d did not run twice within 10s", j.ID)
		}
	}
	gap := began[1].Sub(began[0])
	fmt.Fprintf(w, "  job %d attempt 1 failed (card network timeout); attempt 2 began %s later and completed "+
		"(NextRetry's %s, then the leader's next promotion)\n", j.ID, gap.Round(time.Millisecond), chargeCardRetry)
	if gap >= 2*time.Second {
		return fmt.Errorf("charge_card job %d waited %s, the default backoff: NextRetry was not used", j.ID, gap)
	}
	return nil
}

// showRollingDeploy runs an old process (it knows send_email only) and a new
// one (it also knows render_invoice) on queue deploy: the old one hands a
// render_invoice job back untouched, the new one runs it.
func showRollingDeploy(ctx context.Context, client *driver.Client, db driver.DBTX, o demoOptions, log *slog.Logger,
	w io.Writer) error {
	d := client.Driver()
	fmt.Fprintf(w, "\n== Rolling deploy (queue %s: an old process and a new one that knows one more kind)\n", queueDeploy)
	ran := make(chan int, 1)
	start := func(name string, newKinds bool) (func(), error) {
		pool, err := openPool(ctx, o.DSN, 1)
		if err != nil {
			return nil, err
		}
		ws := driver.NewWorkers()
		driver.AddWorker(ws, driver.WorkFunc(func(context.Context, *driver.Job[SendEmailArgs]) error { return nil }))
		if newKinds {
			driver.AddWorker(ws, driver.WorkFunc(func(_ context.Context, job *driver.Job[RenderInvoiceArgs]) error {
				ran <- job.Attempt
				return nil
			}))
		}
		c, err := driver.NewClient(pool, &driver.Config{Queues: map[string]driver.QueueConfig{queueDeploy: {MaxWorkers: 1}},
			Workers: ws, Logger: log.With("process", name), FetchPollInterval: 250 * time.Millisecond, ListenDSN: o.Listen,
			UnknownKindDelay: 300 * time.Millisecond, DisableMaintenance: true})
		if err == nil {
			err = c.Start(ctx)
		}
		if err != nil {
			pool.Close()
			return nil, err
		}
		return func() {
			stopCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
			defer cancel()
			if err := c.Stop(stopCtx); err != nil {
				log.Warn("demo: stop the deploy's process", "process", name, "error", err)
			}
			pool.Close()
		}, nil
	}
	stopOld, err := start("old", false)
	if err != nil {
		return err
	}
	defer stopOld()
	j, err := client.Insert(ctx, RenderInvoiceArgs{InvoiceID: 7}, &driver.InsertOpts{Queue: queueDeploy})
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "old process (Workers: send_email; UnknownKindDelay 300ms) running; client.Insert  job %d render_invoice\n", j.ID)
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		got, err := d.GetJob(ctx, db, j.ID)
		if err != nil {
			return err
		}
		if got.RunLease > 0 && got.State != driver.StateRunning {
			fmt.Fprintf(w, "  the old process claimed it and handed it back untouched: state %s, attempt %d (none spent), run_lease %d\n",
				got.State, got.Attempt, got.RunLease)
			break
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("the old process did not hand job %d back within 10s: %+v", j.ID, got)
		}
	}
	stopNew, err := start("new", true)
	if err != nil {
		return err
	}
	defer stopNew()
	fmt.Fprintln(w, "new process (Workers: send_email, render_invoice) started beside it")
	select {
	case attempt := <-ran:
		got, err := d.GetJob(ctx, db, j.ID)
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "  the new process ran job %d at attempt %d: %s after %d claims (every hand-back a snooze, no attempt)\n",
			j.ID, attempt, got.State, got.RunLease)
	case <-time.After(10 * time.Second):
		return fmt.Errorf("the new process did not run job %d within 10s", j.ID)
	}
	return nil
}
