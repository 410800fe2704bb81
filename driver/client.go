package driver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"go.opentelemetry.io/otel/metric"
)

// Client inserts jobs and, when it has queues, works them.
type Client struct {
	pool   *pgxpool.Pool
	cfg    Config
	driver *Driver
	log    *slog.Logger
	// rt runs the runtime calls (claim, finalizers, heartbeat, queue_pending,
	// maintenance): the pool, or readCommitted over it when the database's
	// default isolation is not READ COMMITTED. Set by Start.
	rt DBTX
	// checked: the first-touch checks passed (checkDatabase; once per client):
	// no transaction pooler the pool's exec mode cannot serve, and a
	// substrate version this driver works against. versionChecked: the
	// second alone (the pooler probe may have to run again: poolerProbe).
	checked, versionChecked atomic.Bool

	mu       sync.Mutex
	started  bool
	stopping bool
	// workCtx is cancelled by a hard stop: running jobs see it.
	workCancel context.CancelFunc
	// fetchCancel stops claiming (graceful stop).
	fetchCancel context.CancelFunc
	// bgCancel stops background services (heartbeat, listener, maintenance).
	bgCancel context.CancelFunc
	fetchWG  sync.WaitGroup
	jobWG    sync.WaitGroup
	bgWG     sync.WaitGroup

	events eventBus
	// polledClaims counts claims woken by the poll ticker that found jobs,
	// for the listener's watch.
	polledClaims atomic.Int64
	// listenConfig is Config.ListenDSN parsed (nil when empty).
	listenConfig *pgx.ConnConfig
	// claimDeadline is every claim's attempt deadline (Workers.claimDeadline).
	claimDeadline time.Duration

	// metrics and tracing: nil when off (Config.MeterProvider,
	// Config.TracerProvider). depths is the leader's last queue-depth read,
	// which gauges (registered by Start) reports.
	metrics *metrics
	tracing *tracing
	depths  depthSnapshot
	gauges  metric.Registration
	// health: what the health checks read (health.go).
	health healthState

	queues map[string]*queueRunner
	// pollNow asks the shared poller (pollLoop) to poll at once: the
	// listener has just subscribed.
	pollNow   chan struct{}
	completer *completer
	// attempts: the running handlers, for cooperative cancel (cancel.go).
	attempts attemptSet
	elector  *elector
}

// NewClient returns a client over pool. It does not start working until Start.
func NewClient(pool *pgxpool.Pool, config *Config) (*Client, error) {
	if pool == nil {
		return nil, errors.New("awa: NewClient needs a pool")
	}
	cfg, err := config.withDefaults()
	if err != nil {
		return nil, err
	}
	d, err := NewSchema(cfg.Schema)
	if err != nil {
		return nil, err
	}
	c := &Client{pool: pool, cfg: cfg, driver: d, log: cfg.Logger,
		claimDeadline: cfg.Workers.claimDeadline(cfg.JobTimeoutGrace, cfg.RescueStuckAfter)}
	if cfg.ListenDSN != "" {
		c.listenConfig, _ = pgx.ParseConfig(cfg.ListenDSN) // validated by withDefaults
	}
	if c.metrics, err = newMetrics(meterProvider(cfg.MeterProvider), cfg.Workers); err != nil {
		return nil, fmt.Errorf("awa: create metric instruments: %w", err)
	}
	c.tracing = newTracing(cfg.TracerProvider, cfg.Propagator)
	return c, nil
}

func encodeArgs(args JobArgs) (InsertParams, error) {
	if args == nil {
		return InsertParams{}, errors.New("awa: nil job args")
	}
	raw, err := json.Marshal(args)
	if err != nil {
		return InsertParams{}, fmt.Errorf("awa: encode args of kind %q: %w", args.Kind(), err)
	}
	return InsertParams{Kind: args.Kind(), Args: raw}, nil
}

// Insert inserts one job in its own transaction.
func (c *Client) Insert(ctx context.Context, args JobArgs, opts *InsertOpts) (InsertedJob, error) {
	return c.insert(ctx, c.pool, args, opts)
}

// InsertTx inserts one job in the caller's transaction: it becomes visible
// when tx commits and never exists if tx rolls back.
func (c *Client) InsertTx(ctx context.Context, tx pgx.Tx, args JobArgs, opts *InsertOpts) (InsertedJob, error) {
	return c.insert(ctx, tx, args, opts)
}

func (c *Client) insert(ctx context.Context, db DBTX, args JobArgs, opts *InsertOpts) (InsertedJob, error) {
	if err := c.checkDatabase(ctx, db); err != nil {
		return InsertedJob{}, err
	}
	p, err := encodeArgs(args)
	if err != nil {
		return InsertedJob{}, err
	}
	if opts != nil {
		p.Opts = *opts
	}
	began := time.Now()
	ctx, span := c.tracing.startInsert(ctx, queueName(p.Opts.Queue), 1)
	p.Opts.Metadata = withTraceContext(p.Opts.Metadata, c.tracing.traceContext(ctx))
	job, err := c.driver.Insert(ctx, db, p)
	if err != nil {
		c.metrics.inserted(ctx, nil, began, err)
	} else {
		c.metrics.inserted(ctx, []InsertedJob{job}, began, nil)
	}
	endSpan(span, err)
	return job, err
}

// defaultQueue is the queue of a job whose opts name none.
const defaultQueue = "default"

// queueName is the queue an insert's opts name ("" for the default).
func queueName(q string) string {
	if q == "" {
		return defaultQueue
	}
	return q
}

// InsertManyParams is one job of an InsertMany call.
type InsertManyParams struct {
	Args JobArgs
	Opts *InsertOpts
}

// InsertMany inserts jobs in order, all or none, in its own transaction (one
// awa.insert_jobs call per 10000 jobs).
func (c *Client) InsertMany(ctx context.Context, jobs []InsertManyParams) ([]InsertedJob, error) {
	return inTx(ctx, c.pool, func(tx pgx.Tx) ([]InsertedJob, error) { return c.InsertManyTx(ctx, tx, jobs) })
}

// InsertManyTx is InsertMany in the caller's transaction.
func (c *Client) InsertManyTx(ctx context.Context, tx pgx.Tx, jobs []InsertManyParams) ([]InsertedJob, error) {
	return c.insertManyTx(ctx, tx, jobs, false)
}

// insertManyTx checks the substrate version, builds the rows and inserts them
// through Driver.InsertManyCopy (viaCopy) or Driver.InsertMany.
func (c *Client) insertManyTx(ctx context.Context, tx pgx.Tx, jobs []InsertManyParams, viaCopy bool) ([]InsertedJob, error) {
	if err := c.checkDatabase(ctx, tx); err != nil {
		return nil, err
	}
	ps, err := insertParams(jobs)
	if err != nil {
		return nil, err
	}
	began := time.Now()
	ctx, span := c.tracing.startInsert(ctx, batchQueue(ps), len(ps))
	if tc := c.tracing.traceContext(ctx); tc != nil {
		for i := range ps {
			ps[i].Opts.Metadata = withTraceContext(ps[i].Opts.Metadata, tc)
		}
	}
	var inserted []InsertedJob
	if viaCopy {
		inserted, err = c.driver.InsertManyCopy(ctx, tx, ps)
	} else {
		inserted, err = c.driver.InsertMany(ctx, tx, ps)
	}
	c.metrics.inserted(ctx, inserted, began, err)
	endSpan(span, err)
	return inserted, err
}

// batchQueue is the queue every job of ps goes to, "" when they go to several.
func batchQueue(ps []InsertParams) string {
	if len(ps) == 0 {
		return ""
	}
	q := queueName(ps[0].Opts.Queue)
	for _, p := range ps[1:] {
		if queueName(p.Opts.Queue) != q {
			return ""
		}
	}
	return q
}

// InsertManyCopy is InsertMany through the COPY path (Driver.InsertManyCopy):
// one round trip for the rows whatever their number. Same results and errors
// as InsertMany, which is a little faster for batches that fit in memory
// (docs/benchmarks.md).
func (c *Client) InsertManyCopy(ctx context.Context, jobs []InsertManyParams) ([]InsertedJob, error) {
	return inTx(ctx, c.pool, func(tx pgx.Tx) ([]InsertedJob, error) { return c.InsertManyCopyTx(ctx, tx, jobs) })
}

// InsertManyCopyTx is InsertManyCopy in the caller's transaction.
func (c *Client) InsertManyCopyTx(ctx context.Context, tx pgx.Tx, jobs []InsertManyParams) ([]InsertedJob, error) {
	return c.insertManyTx(ctx, tx, jobs, true)
}

// CheckDatabase runs, on the client's pool, the checks of the client's first
// touch of the database, which Start and the first insert run by themselves:
// ErrTransactionPooler for a transaction pooler the pool's exec mode cannot
// serve, ErrSubstrateVersion for a substrate this driver does not work
// against. Driver calls run no check: a program that makes some on the pool
// before the client's first insert calls it first, to fail fast with the
// clear error rather than pgx's.
func (c *Client) CheckDatabase(ctx context.Context) error {
	return c.checkDatabase(ctx, c.pool)
}

// checkDatabase runs the checks of a client's first touch of the database
// (Start, or an insert of a client that only produces), on db (the pool, or
// the caller's transaction on it): it refuses a transaction pooler the pool's
// exec mode cannot serve (ErrTransactionPooler; the probe runs once per pool),
// then a substrate this driver does not work against
// (Driver.CheckSubstrateVersion). Later calls cost one atomic load.
func (c *Client) checkDatabase(ctx context.Context, db DBTX) error {
	if c.checked.Load() {
		return nil
	}
	if _, err := c.refuseTransactionPooler(ctx, db, false); err != nil {
		return err
	}
	if !c.versionChecked.Load() {
		if _, err := c.driver.CheckSubstrateVersion(ctx, db); err != nil {
			return fmt.Errorf("awa: %w", err)
		}
		c.versionChecked.Store(true)
	}
	if probeOf(c.pool).settled() {
		c.checked.Store(true)
	}
	return nil
}

// inTx runs f in a transaction on pool and returns its result once committed.
func inTx[T any](ctx context.Context, pool *pgxpool.Pool, f func(tx pgx.Tx) (T, error)) (T, error) {
	var out T
	err := pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		var err error
		out, err = f(tx)
		return err
	})
	return out, err
}

func insertParams(jobs []InsertManyParams) ([]InsertParams, error) {
	ps := make([]InsertParams, 0, len(jobs))
	for _, j := range jobs {
		p, err := encodeArgs(j.Args)
		if err != nil {
			return nil, err
		}
		if j.Opts != nil {
			p.Opts = *j.Opts
		}
		ps = append(ps, p)
	}
	return ps, nil
}

// Driver returns the typed SQL layer the client uses, for operator calls
// (queue counts, cancel, DLQ) on the client's pool or a transaction. Cancel
// and DLQ retry/purge need a READ COMMITTED transaction
// (ErrReadCommittedRequired otherwise).
func (c *Client) Driver() *Driver { return c.driver }

// InstanceID returns the id this process claims and heartbeats under.
func (c *Client) InstanceID() [16]byte { return c.cfg.InstanceID }

// Start registers the process, then starts claiming and running jobs of the
// configured queues, heartbeating, listening for notifications and taking
// part in maintenance leader election. It returns once everything runs, or,
// having started nothing: ErrInvalidQueue for a queue name no job can have,
// ErrTransactionPooler for a pooler the pool's exec mode cannot serve,
// ErrSubstrateVersion, or ErrMaintenancePrivileges for a role that may not
// run the maintenance it would take part in.
func (c *Client) Start(ctx context.Context) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.started {
		return errors.New("awa: client already started")
	}
	// First, as the other calls would fail through a pooler in an exec mode
	// it does not support, and less clearly.
	if err := c.checkPooler(ctx); err != nil {
		return err
	}
	if err := c.checkDatabase(ctx, c.pool); err != nil {
		return err
	}
	// The runtime functions refuse a transaction that is not READ COMMITTED
	// (AW040). With another database default, run them in explicit READ
	// COMMITTED transactions; with READ COMMITTED, straight on the pool.
	level, err := c.driver.TransactionIsolation(ctx, c.pool)
	if err != nil {
		return fmt.Errorf("awa: %w", err)
	}
	c.rt = c.pool
	if level != "read committed" {
		c.rt = readCommitted{pool: c.pool}
		c.log.InfoContext(ctx, "awa: Runtime calls run in READ COMMITTED transactions", slog.String("default_isolation", level))
	}
	// A queue name no insert accepts could only be claimed from in vain,
	// forever: refuse it (ErrInvalidQueue) before anything starts. One call
	// per queue, at Start only.
	for name := range c.cfg.Queues {
		if _, err := c.driver.QueuePending(ctx, c.rt, name); err != nil {
			return fmt.Errorf("awa: %w", err)
		}
	}
	if !c.cfg.DisableMaintenance {
		if err := c.checkMaintenancePrivileges(ctx); err != nil {
			return err
		}
	}
	if err := c.driver.Heartbeat(ctx, c.rt, c.cfg.InstanceID); err != nil {
		return fmt.Errorf("awa: register process: %w", err)
	}
	now := time.Now().UnixNano()
	c.health.heartbeatTried.Store(now)
	c.health.heartbeatOK.Store(now)

	workCtx, workCancel := context.WithCancel(context.WithoutCancel(ctx))
	// A hard stop ends the running handlers' contexts through the attempt
	// set: none is registered on workCtx itself (deadlineCtx).
	context.AfterFunc(workCtx, func() { c.attempts.cancelAll(workCtx) })
	fetchCtx, fetchCancel := context.WithCancel(workCtx)
	bgCtx, bgCancel := context.WithCancel(context.WithoutCancel(ctx))
	c.workCancel, c.fetchCancel, c.bgCancel = workCancel, fetchCancel, bgCancel

	c.completer = newCompleter(c.rt, c.driver, c.cfg, c.log, &c.events, c.metrics)
	c.bgWG.Add(1)
	go func() { defer c.bgWG.Done(); c.completer.run(bgCtx) }()

	c.queues = map[string]*queueRunner{}
	for name, qc := range c.cfg.Queues {
		q := newQueueRunner(c, name, qc)
		c.queues[name] = q
		c.fetchWG.Add(1)
		go func() { defer c.fetchWG.Done(); q.run(fetchCtx, workCtx) }()
	}
	c.pollNow = make(chan struct{}, 1)
	if len(c.queues) > 0 {
		c.fetchWG.Add(1)
		go func() { defer c.fetchWG.Done(); c.pollLoop(fetchCtx) }()
	}

	c.bgWG.Add(1)
	go func() { defer c.bgWG.Done(); c.heartbeatLoop(bgCtx) }()

	// The listener hears the promotion channel for the elector's promoter.
	promoteWake := make(chan struct{}, 1)
	if !c.cfg.DisableListen && len(c.queues) > 0 {
		l := &listener{pool: c.pool, direct: c.listenConfig, log: c.log, driver: c.driver, queues: c.queues,
			attempts: &c.attempts, subscribed: c.pollSoon, promote: promoteWake}
		c.bgWG.Add(2)
		go func() { defer c.bgWG.Done(); l.run(bgCtx) }()
		go func() { defer c.bgWG.Done(); l.watch(bgCtx, c) }()
	}

	if !c.cfg.DisableMaintenance {
		c.elector = newElector(c.rt, c.driver, c.cfg, c.log, &c.events)
		c.elector.health, c.elector.metrics, c.elector.depths = &c.health, c.metrics, &c.depths
		c.elector.promoteWake = promoteWake
		c.bgWG.Add(1)
		go func() { defer c.bgWG.Done(); c.elector.run(bgCtx) }()
		// Queue depths are read every QueueDepthInterval; a read missed
		// twice is too old to report.
		reg, err := c.metrics.registerGauges(c.elector.isLeading, &c.depths, 3*c.cfg.Maintenance.QueueDepthInterval)
		if err != nil {
			c.log.WarnContext(ctx, "awa: Registering the metric gauges failed; they are not reported", slog.String("error", err.Error()))
		}
		c.gauges = reg
	}

	c.started = true
	c.log.InfoContext(ctx, "awa: Client started", slog.Int("queues", len(c.queues)))
	return nil
}

// Stop stops gracefully: no new claims, running jobs finish, their results
// are flushed, then background services stop and leadership is released. If
// ctx ends first, running jobs are cancelled (as StopAndCancel) and Stop still
// waits for them to return and for their results to flush.
func (c *Client) Stop(ctx context.Context) error {
	return c.stop(ctx, false)
}

// StopAndCancel stops at once: running jobs' contexts are cancelled, their
// results (usually retries) are flushed, and everything shuts down.
func (c *Client) StopAndCancel(ctx context.Context) error {
	return c.stop(ctx, true)
}

func (c *Client) stop(ctx context.Context, hard bool) error {
	c.mu.Lock()
	if !c.started || c.stopping {
		c.mu.Unlock()
		return nil
	}
	c.stopping = true
	c.mu.Unlock()

	c.fetchCancel()
	if hard {
		c.workCancel()
	}
	c.fetchWG.Wait()

	jobsDone := make(chan struct{})
	go func() { c.jobWG.Wait(); close(jobsDone) }()
	var err error
	select {
	case <-jobsDone:
	case <-ctx.Done():
		err = ctx.Err()
		c.workCancel()
		<-jobsDone
	}
	c.workCancel()

	// Every job has handed its result to the completer; flush them all
	// before the background services stop.
	c.completer.drain()
	c.bgCancel()
	c.bgWG.Wait()
	if c.elector != nil {
		c.elector.release()
	}
	if c.gauges != nil {
		if err := c.gauges.Unregister(); err != nil {
			c.log.Warn("awa: Unregistering the metric gauges failed", slog.String("error", err.Error()))
		}
		c.gauges = nil
	}

	c.mu.Lock()
	c.started, c.stopping = false, false
	c.mu.Unlock()
	c.log.Info("awa: Client stopped")
	return err
}

// pollLoop is the client's one poller, whatever its number of queues: every
// FetchPollInterval (and at once after the listener subscribes: pollSoon) it
// asks, in one statement (awa.queues_ready), which of its queues a claim may
// find work in, and wakes those queues' fetch loops; a queue that finds work
// claims until it runs dry, then waits again. A rate-limited queue whose
// bucket is empty is left to its own recheck, due with its next token. When
// the call fails, it wakes every queue, as a poll of each would.
func (c *Client) pollLoop(ctx context.Context) {
	names := make([]string, 0, len(c.queues))
	for name := range c.queues {
		names = append(names, name)
	}
	t := time.NewTicker(c.cfg.FetchPollInterval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		case <-c.pollNow:
		}
		pctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		ready, err := c.driver.QueuesReady(pctx, c.rt, names)
		cancel()
		if err != nil {
			if ctx.Err() != nil {
				return
			}
			c.log.Warn("awa: QueuesReady failed; polling every queue", slog.String("error", err.Error()))
			for _, q := range c.queues {
				q.notifyPolled()
			}
			continue
		}
		for _, r := range ready {
			if q, ok := c.queues[r.Queue]; ok && r.WaitFor <= 0 {
				q.notifyPolled()
			}
		}
	}
}

// pollSoon makes the shared poller poll now (non-blocking).
func (c *Client) pollSoon() {
	select {
	case c.pollNow <- struct{}{}:
	default:
	}
}

func (c *Client) heartbeatLoop(ctx context.Context) {
	t := time.NewTicker(c.cfg.HeartbeatInterval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			hctx, cancel := context.WithTimeout(ctx, c.cfg.HeartbeatInterval)
			c.health.heartbeatTried.Store(time.Now().UnixNano())
			err := c.driver.Heartbeat(hctx, c.rt, c.cfg.InstanceID)
			if err == nil {
				c.health.heartbeatOK.Store(time.Now().UnixNano())
			}
			if err != nil && ctx.Err() == nil {
				c.log.Warn("awa: Heartbeat failed", slog.String("error", err.Error()))
			}
			// Cooperative cancel's fallback: handlers whose attempt was
			// closed meanwhile (a missed notification) are cancelled here.
			if err := c.closeStale(hctx); err != nil && ctx.Err() == nil {
				c.log.Warn("awa: Checking running attempts failed", slog.String("error", err.Error()))
			}
			cancel()
		}
	}
}
