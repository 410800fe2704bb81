package driver

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// QueueConfig configures how a client works one queue.
type QueueConfig struct {
	// MaxWorkers is how many jobs of the queue run at once in this process.
	// Required (at least 1).
	MaxWorkers int
}

// Config configures a Client. A nil *Config, or zero fields, take defaults.
type Config struct {
	// Queues to work, by name. Leave empty for an insert-only client.
	Queues map[string]QueueConfig
	// Workers runs claimed jobs by kind. Required when Queues is not empty.
	Workers *Workers
	// Logger receives the client's logs. Defaults to slog.Default().
	Logger *slog.Logger
	// FetchBatchSize caps the jobs claimed in one call. Defaults to 100.
	FetchBatchSize int
	// FetchPollInterval is how often an idle queue is polled when no
	// notification arrives (notifications can be lost, e.g. behind a
	// transaction-mode pooler). Defaults to 1s.
	FetchPollInterval time.Duration
	// JobTimeout bounds each job's run through its context; a Worker can
	// override it with WorkerTimeout. Negative means no timeout of its own
	// (RescueStuckAfter still bounds every attempt). Defaults to 1 minute.
	JobTimeout time.Duration
	// JobTimeoutGrace is how long a handler may keep running after its
	// context ended (its timeout, its attempt deadline or StopAndCancel)
	// before the runtime abandons it: the attempt is then retried at once
	// ("did not return within its timeout"), the handler's slot stays taken
	// until it really returns, and its late result is dropped. Must not be
	// negative. Defaults to 10s.
	JobTimeoutGrace time.Duration
	// RescueStuckAfter is how long after its claim an attempt is closed (and
	// retried) by the maintenance leader even though its process still
	// heartbeats: the bound for an attempt whose result cannot be finalized
	// or whose handler never returns. Every claim carries it as its attempt
	// deadline (a queue's shorter deadline_seconds wins), and the handler's
	// context ends there too, so a job whose WorkerTimeout exceeds it is
	// still cut at RescueStuckAfter: long jobs raise it. Must exceed
	// JobTimeout. Defaults to 1 hour.
	RescueStuckAfter time.Duration
	// CompleterBatchSize caps the jobs finalized in one SQL call. Defaults to 500.
	CompleterBatchSize int
	// CompleterFlushInterval is how long a finished job may wait for others
	// to share its finalizer call. Defaults to 2ms.
	CompleterFlushInterval time.Duration
	// CompleterRetryInterval is how often results whose finalizer calls kept
	// failing through the fast retries (about 5s) are tried again, one
	// result per call, until applied or stale. Defaults to 5s.
	CompleterRetryInterval time.Duration
	// HeartbeatInterval is how often the process refreshes its heartbeat,
	// which keeps its running jobs from stale rescue. Defaults to 5s.
	HeartbeatInterval time.Duration
	// DisableListen turns LISTEN/NOTIFY off; queues are then polled only.
	DisableListen bool
	// Maintenance configures the maintenance services the elected leader
	// runs. Defaults to DefaultMaintenance().
	Maintenance *MaintenanceConfig
	// DisableMaintenance keeps this client out of leader election.
	DisableMaintenance bool
	// InstanceID names this process in heartbeats and claims. Defaults to a
	// random id.
	InstanceID [16]byte
}

func (c *Config) withDefaults() Config {
	var cfg Config
	if c != nil {
		cfg = *c
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.FetchBatchSize <= 0 {
		cfg.FetchBatchSize = 100
	}
	if cfg.FetchBatchSize > 1024 {
		cfg.FetchBatchSize = 1024
	}
	if cfg.FetchPollInterval <= 0 {
		cfg.FetchPollInterval = time.Second
	}
	if cfg.JobTimeout == 0 {
		cfg.JobTimeout = time.Minute
	}
	if cfg.CompleterBatchSize <= 0 {
		cfg.CompleterBatchSize = 500
	}
	if cfg.CompleterFlushInterval <= 0 {
		cfg.CompleterFlushInterval = 2 * time.Millisecond
	}
	if cfg.CompleterRetryInterval <= 0 {
		cfg.CompleterRetryInterval = 5 * time.Second
	}
	if cfg.JobTimeoutGrace == 0 {
		cfg.JobTimeoutGrace = 10 * time.Second
	}
	if cfg.RescueStuckAfter == 0 {
		cfg.RescueStuckAfter = time.Hour
	}
	if cfg.HeartbeatInterval <= 0 {
		cfg.HeartbeatInterval = 5 * time.Second
	}
	if cfg.Maintenance == nil {
		cfg.Maintenance = DefaultMaintenance()
	} else {
		m := cfg.Maintenance.withDefaults()
		cfg.Maintenance = &m
	}
	if cfg.InstanceID == [16]byte{} {
		_, _ = rand.Read(cfg.InstanceID[:])
		cfg.InstanceID[6] = cfg.InstanceID[6]&0x0f | 0x40 // UUID v4
		cfg.InstanceID[8] = cfg.InstanceID[8]&0x3f | 0x80
	}
	return cfg
}

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

	queues    map[string]*queueRunner
	completer *completer
	elector   *elector
}

// NewClient returns a client over pool. It does not start working until Start.
func NewClient(pool *pgxpool.Pool, config *Config) (*Client, error) {
	if pool == nil {
		return nil, errors.New("awa: NewClient needs a pool")
	}
	cfg := config.withDefaults()
	if len(cfg.Queues) > 0 && cfg.Workers == nil {
		return nil, errors.New("awa: Config.Workers is required to work queues")
	}
	if cfg.JobTimeoutGrace < 0 {
		return nil, fmt.Errorf("awa: Config.JobTimeoutGrace must not be negative, got %s", cfg.JobTimeoutGrace)
	}
	if cfg.RescueStuckAfter < 0 {
		return nil, fmt.Errorf("awa: Config.RescueStuckAfter must be positive, got %s", cfg.RescueStuckAfter)
	}
	if cfg.JobTimeout > 0 && cfg.RescueStuckAfter <= cfg.JobTimeout {
		return nil, fmt.Errorf("awa: Config.RescueStuckAfter (%s) must exceed JobTimeout (%s)", cfg.RescueStuckAfter, cfg.JobTimeout)
	}
	for name, q := range cfg.Queues {
		if q.MaxWorkers < 1 {
			return nil, fmt.Errorf("awa: queue %q: MaxWorkers must be at least 1", name)
		}
	}
	return &Client{pool: pool, cfg: cfg, driver: New(), log: cfg.Logger}, nil
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
	p, err := encodeArgs(args)
	if err != nil {
		return InsertedJob{}, err
	}
	if opts != nil {
		p.Opts = *opts
	}
	return c.driver.Insert(ctx, db, p)
}

// InsertManyParams is one job of an InsertMany call.
type InsertManyParams struct {
	Args JobArgs
	Opts *InsertOpts
}

// InsertMany inserts jobs in one transaction, in batches of up to 10000 per SQL call.
func (c *Client) InsertMany(ctx context.Context, jobs []InsertManyParams) ([]InsertedJob, error) {
	var out []InsertedJob
	err := pgx.BeginFunc(ctx, c.pool, func(tx pgx.Tx) error {
		var err error
		out, err = c.InsertManyTx(ctx, tx, jobs)
		return err
	})
	return out, err
}

// InsertManyTx inserts jobs in the caller's transaction.
func (c *Client) InsertManyTx(ctx context.Context, tx pgx.Tx, jobs []InsertManyParams) ([]InsertedJob, error) {
	const maxBatch = 10000
	out := make([]InsertedJob, 0, len(jobs))
	for start := 0; start < len(jobs); start += maxBatch {
		ps, err := insertParams(jobs[start:min(start+maxBatch, len(jobs))])
		if err != nil {
			return nil, err
		}
		got, err := c.driver.InsertMany(ctx, tx, ps)
		if err != nil {
			return nil, err
		}
		out = append(out, got...)
	}
	return out, nil
}

// InsertManyCopy inserts jobs in one transaction through the COPY path
// (awa.open_job_stage, COPY, awa.insert_staged_jobs): one round trip for the
// rows whatever their number. Same results and errors as InsertMany, which is
// a little faster for batches that fit in memory (docs/benchmarks.md).
func (c *Client) InsertManyCopy(ctx context.Context, jobs []InsertManyParams) ([]InsertedJob, error) {
	var out []InsertedJob
	err := pgx.BeginFunc(ctx, c.pool, func(tx pgx.Tx) error {
		var err error
		out, err = c.InsertManyCopyTx(ctx, tx, jobs)
		return err
	})
	return out, err
}

// InsertManyCopyTx is InsertManyCopy in the caller's transaction.
func (c *Client) InsertManyCopyTx(ctx context.Context, tx pgx.Tx, jobs []InsertManyParams) ([]InsertedJob, error) {
	if len(jobs) == 0 {
		return nil, nil // as InsertManyTx; the substrate raises for an empty stage
	}
	ps, err := insertParams(jobs)
	if err != nil {
		return nil, err
	}
	return c.driver.CopyInsertMany(ctx, tx, ps)
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
// part in maintenance leader election. It returns once everything runs.
func (c *Client) Start(ctx context.Context) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.started {
		return errors.New("awa: client already started")
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
	if err := c.driver.Heartbeat(ctx, c.rt, c.cfg.InstanceID); err != nil {
		return fmt.Errorf("awa: register process: %w", err)
	}

	workCtx, workCancel := context.WithCancel(context.WithoutCancel(ctx))
	fetchCtx, fetchCancel := context.WithCancel(workCtx)
	bgCtx, bgCancel := context.WithCancel(context.WithoutCancel(ctx))
	c.workCancel, c.fetchCancel, c.bgCancel = workCancel, fetchCancel, bgCancel

	c.completer = newCompleter(c.rt, c.driver, c.cfg, c.log)
	c.bgWG.Add(1)
	go func() { defer c.bgWG.Done(); c.completer.run(bgCtx) }()

	c.queues = map[string]*queueRunner{}
	for name, qc := range c.cfg.Queues {
		q := newQueueRunner(c, name, qc)
		c.queues[name] = q
		c.fetchWG.Add(1)
		go func() { defer c.fetchWG.Done(); q.run(fetchCtx, workCtx) }()
	}

	c.bgWG.Add(1)
	go func() { defer c.bgWG.Done(); c.heartbeatLoop(bgCtx) }()

	if !c.cfg.DisableListen && len(c.queues) > 0 {
		l := &listener{pool: c.pool, log: c.log, queues: c.queues}
		c.bgWG.Add(1)
		go func() { defer c.bgWG.Done(); l.run(bgCtx) }()
	}

	if !c.cfg.DisableMaintenance {
		c.elector = newElector(c.rt, c.driver, c.cfg, c.log)
		c.bgWG.Add(1)
		go func() { defer c.bgWG.Done(); c.elector.run(bgCtx) }()
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

	c.mu.Lock()
	c.started, c.stopping = false, false
	c.mu.Unlock()
	c.log.Info("awa: Client stopped")
	return err
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
			err := c.driver.Heartbeat(hctx, c.rt, c.cfg.InstanceID)
			cancel()
			if err != nil && ctx.Err() == nil {
				c.log.Warn("awa: Heartbeat failed", slog.String("error", err.Error()))
			}
		}
	}
}
