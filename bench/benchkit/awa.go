package benchkit

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"log/slog"
	"os"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	_ "github.com/jackc/pgx/v5/stdlib" // "pgx" database/sql driver for goose
	"go.opentelemetry.io/otel/metric"
	metricnoop "go.opentelemetry.io/otel/metric/noop"
	"go.opentelemetry.io/otel/propagation"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
	tracenoop "go.opentelemetry.io/otel/trace/noop"

	"github.com/awa-queue/awa/db"
	"github.com/awa-queue/awa/driver"
)

// AwaSystem runs the awa driver.
type AwaSystem struct {
	// ExtraSQL, when set (-awa-sql), runs after the migrations: a way to
	// measure a proposed SQL change without touching sql/ (the report says so).
	ExtraSQL string
	// Logger is the worker client's logger. Defaults to warnings on stderr.
	Logger *slog.Logger
	// Maintenance is the worker client's maintenance: "" or "default", "off",
	// or an interval every maintenance service runs at (-awa-maintenance).
	Maintenance string
	// Archive is the history retention: "" or "default" (the install's), or
	// "off" (nothing archived) (-awa-archive).
	Archive string
	// Otel is the clients' OpenTelemetry setting (-awa-otel), applied by
	// SetOtel: "" or "noop" (the global providers, never set: what a service
	// that sets none gets), "off" (the no-op providers: no instrumentation
	// at all, as a build without it) or "sdk" (the SDK's meter and tracer
	// providers, every span sampled and batched to an exporter that drops
	// them).
	Otel string
	// FetchBatch is the worker client's Config.FetchBatchSize (-awa-fetch-batch);
	// 0 leaves the driver's default.
	FetchBatch int
	telemetry  telemetry
}

// telemetry is what the clients' Config gets for the Otel setting.
type telemetry struct {
	mp   metric.MeterProvider
	tp   trace.TracerProvider
	prop propagation.TextMapPropagator
}

// SetOtel sets Otel to mode and builds its providers.
func (a *AwaSystem) SetOtel(mode string) error {
	a.Otel, a.telemetry = mode, telemetry{}
	switch mode {
	case "", "noop":
	case "off":
		a.telemetry = telemetry{mp: metricnoop.NewMeterProvider(), tp: tracenoop.NewTracerProvider()}
	case "sdk":
		a.telemetry = telemetry{
			mp: sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewManualReader())),
			tp: sdktrace.NewTracerProvider(sdktrace.WithSampler(sdktrace.AlwaysSample()),
				sdktrace.WithBatcher(tracetest.NewNoopExporter())),
			prop: propagation.TraceContext{},
		}
	default:
		return fmt.Errorf("-awa-otel: want noop, off or sdk, got %q", mode)
	}
	return nil
}

func (a AwaSystem) otelSetting() string {
	switch a.Otel {
	case "off":
		return "off (-awa-otel off: no-op providers, no instrumentation)"
	case "sdk":
		return "sdk (-awa-otel sdk: SDK meter provider, every span sampled and batched to a dropping exporter)"
	}
	return "noop (default: the global providers, never set)"
}

// maintenance turns Maintenance into the driver's settings.
func (a AwaSystem) maintenance() (cfg *driver.MaintenanceConfig, disable bool, err error) {
	switch a.Maintenance {
	case "", "default":
		return nil, false, nil
	case "off":
		return nil, true, nil
	}
	d, err := time.ParseDuration(a.Maintenance)
	if err != nil || d <= 0 {
		return nil, false, fmt.Errorf("-awa-maintenance %q: want default, off or a positive interval", a.Maintenance)
	}
	// No sealed queue slot kept: a prune can run on every tick, even in a
	// short run (the hot path's worst case).
	return &driver.MaintenanceConfig{PromoteInterval: d, RescueInterval: d, DeadlineInterval: d,
		QueueRingInterval: d, ClaimRingInterval: d, LeaseRingInterval: d, CursorRingInterval: d,
		KeepSealedQueueSlots: -1}, false, nil
}

// NewAwaSystem returns the awa system logging warnings to logs; sqlFile, when
// not empty, names the -awa-sql file run after the migrations.
func NewAwaSystem(sqlFile string, logs io.Writer) (AwaSystem, error) {
	a := AwaSystem{Logger: WarnLogger(logs)}
	if sqlFile != "" {
		b, err := os.ReadFile(sqlFile)
		if err != nil {
			return a, err
		}
		a.ExtraSQL = string(b)
	}
	return a, nil
}

// Name is "awa".
func (AwaSystem) Name() string { return "awa" }

// Migrate runs awa's embedded goose migrations, then ExtraSQL.
func (a AwaSystem) Migrate(ctx context.Context, dsn string) error {
	_, err := a.Install(ctx, dsn)
	return err
}

// Install is Migrate that also returns the migration version of schema awa.
func (a AwaSystem) Install(ctx context.Context, dsn string) (version int64, err error) {
	sqlDB, err := sql.Open("pgx", dsn)
	if err != nil {
		return 0, err
	}
	defer sqlDB.Close()
	p, err := db.Provider(sqlDB)
	if err != nil {
		return 0, err
	}
	if _, err = p.Up(ctx); err != nil {
		return 0, err
	}
	if a.Archive == "off" {
		if _, err := sqlDB.ExecContext(ctx, `SELECT awa.configure_archive(
			'{"completed_seconds": 0, "failed_seconds": 0, "cancelled_seconds": 0}')`); err != nil {
			return 0, fmt.Errorf("-awa-archive off: %w", err)
		}
	}
	if a.ExtraSQL != "" {
		if _, err := sqlDB.ExecContext(ctx, a.ExtraSQL); err != nil {
			return 0, fmt.Errorf("-awa-sql: %w", err)
		}
	}
	return p.GetDBVersion(ctx)
}

// Settings describes the driver configuration of the worker client.
func (a AwaSystem) Settings(w int) map[string]string {
	return map[string]string{
		"MaxWorkers":             fmt.Sprint(w),
		"FetchBatchSize":         a.fetchBatchSetting(w),
		"FetchPollInterval":      "1s (default; LISTEN/NOTIFY wakes the fetcher)",
		"fetch cooldown":         "2ms (built in)",
		"CompleterBatchSize":     "500 (default)",
		"CompleterFlushInterval": "2ms (default)",
		"Maintenance":            a.maintenanceSetting(),
		"Archive":                a.archiveSetting(),
		"OpenTelemetry":          a.otelSetting(),
	}
}

func (a AwaSystem) fetchBatchSetting(w int) string {
	if a.FetchBatch > 0 {
		return fmt.Sprint(a.FetchBatch)
	}
	return fmt.Sprintf("%d (default: MaxWorkers, at most 1024)", min(w, 1024))
}

func (a AwaSystem) archiveSetting() string {
	if a.Archive == "off" {
		return "off (retention 0: queue-ring prune copies nothing)"
	}
	return "default (completed 24 h, failed and cancelled 7 days)"
}

// Reclaim, after a run, turns the queue ring until no slot holds rows: each
// turn seals the current slot and prunes every sealed slot that holds rows
// (copying their terminal jobs to the archive, with a retention on). The
// WAL it writes is the rest of the jobs' lives. It returns how many slots it
// pruned.
func (AwaSystem) Reclaim(ctx context.Context, conn *pgx.Conn) (int, error) {
	pruned := 0
	for turn := 0; turn < 64; turn++ {
		var outcome string
		if err := conn.QueryRow(ctx, `SELECT outcome FROM awa.rotate_ring('queue', now(), interval '0')`).Scan(&outcome); err != nil {
			return pruned, fmt.Errorf("rotate: %w", err)
		}
		for {
			if err := conn.QueryRow(ctx, `SELECT outcome FROM awa.prune_ring('queue', 1000, 0, 100000)`).Scan(&outcome); err != nil {
				return pruned, fmt.Errorf("prune: %w", err)
			}
			if outcome == "pruned" {
				pruned++
			}
			if outcome != "pruned" && outcome != "carried" {
				break
			}
		}
		var rows bool
		if err := conn.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM awa.ready_entries)
			OR EXISTS (SELECT 1 FROM awa.done_entries) OR EXISTS (SELECT 1 FROM awa.done_completions)`).Scan(&rows); err != nil {
			return pruned, err
		}
		if !rows {
			return pruned, nil
		}
	}
	return pruned, fmt.Errorf("the queue ring still holds rows after 64 turns")
}

func (a AwaSystem) maintenanceSetting() string {
	switch a.Maintenance {
	case "", "default":
		return "on, defaults (this client is the elected leader: promote 1s, claim ring 2s, queue/lease ring 5s, 14 sealed queue slots kept)"
	case "off":
		return "off (-awa-maintenance off: no promotion, rescue, rotation or prune)"
	}
	return "on, every service (promotion, rescues, each ring's rotate+prune) every " + a.Maintenance +
		", no sealed queue slot kept (-awa-maintenance)"
}

// Start starts a driver client working the default queue with w workers.
func (a AwaSystem) Start(ctx context.Context, pool *pgxpool.Pool, w int, h *Handler) (Stopper, error) {
	workers := driver.NewWorkers()
	driver.AddWorker(workers, driver.WorkFunc(func(ctx context.Context, j *driver.Job[JobArgs]) error {
		return h.RunAttempt(ctx, j.Args, Attempt{CreatedAt: j.CreatedAt, Due: j.RunAt, Number: j.Attempt,
			Claimed: j.ClaimedAt})
	}))
	logger := a.Logger
	if logger == nil {
		logger = WarnLogger(os.Stderr)
	}
	maint, noMaint, err := a.maintenance()
	if err != nil {
		return nil, err
	}
	c, err := driver.NewClient(pool, &driver.Config{
		Queues:             map[string]driver.QueueConfig{"default": {MaxWorkers: w}},
		FetchBatchSize:     a.FetchBatch,
		Workers:            workers,
		Logger:             logger,
		Maintenance:        maint,
		DisableMaintenance: noMaint,
		MeterProvider:      a.telemetry.mp,
		TracerProvider:     a.telemetry.tp,
		Propagator:         a.telemetry.prop,
	})
	if err != nil {
		return nil, err
	}
	if h.Rings == nil {
		if err := c.Start(ctx); err != nil {
			return nil, err
		}
		return c, nil
	}
	// Subscribed before Start, so the leader's first tick is counted too.
	events, unsubscribe := c.SubscribeConfig(&driver.SubscribeConfig{
		Kinds: []driver.EventKind{driver.EventRingMaintenance}, ChanSize: 10_000})
	counted := make(chan struct{})
	go func() {
		defer close(counted)
		for e := range events {
			h.Rings.add(e.Ring)
		}
	}()
	t := &tallyingClient{c: c, unsubscribe: unsubscribe, counted: counted, rings: h.Rings}
	if err := c.Start(ctx); err != nil {
		t.finish()
		return nil, err
	}
	return t, nil
}

// tallyingClient is a worker client whose ring events feed a RingTally until
// it stops.
type tallyingClient struct {
	c           *driver.Client
	unsubscribe func()
	counted     chan struct{}
	rings       *RingTally
}

func (t *tallyingClient) Stop(ctx context.Context) error {
	err := t.c.Stop(ctx)
	t.finish()
	return err
}

// finish ends the subscription once every event sent is counted.
func (t *tallyingClient) finish() {
	t.unsubscribe()
	<-t.counted
	t.rings.mu.Lock()
	t.rings.dropped = t.c.EventsDropped()
	t.rings.mu.Unlock()
}

type awaInserter struct{ c *driver.Client }

// Inserter returns an insert-only driver client (no maintenance).
func (a AwaSystem) Inserter(pool *pgxpool.Pool) (Inserter, error) {
	c, err := driver.NewClient(pool, &driver.Config{Logger: QuietLogger(), DisableMaintenance: true,
		MeterProvider: a.telemetry.mp, TracerProvider: a.telemetry.tp, Propagator: a.telemetry.prop})
	if err != nil {
		return nil, err
	}
	return &awaInserter{c: c}, nil
}

// awaOpts are a job's insert options: nil but for a delayed job (At set).
func awaOpts(a JobArgs) *driver.InsertOpts {
	if a.At.IsZero() {
		return nil
	}
	return &driver.InsertOpts{RunAt: a.At}
}

func (i *awaInserter) One(ctx context.Context, a JobArgs) error {
	_, err := i.c.Insert(ctx, a, awaOpts(a))
	return err
}

func (i *awaInserter) Many(ctx context.Context, as []JobArgs) error {
	ps := make([]driver.InsertManyParams, len(as))
	for k, a := range as {
		ps[k].Args, ps[k].Opts = a, awaOpts(a)
	}
	_, err := i.c.InsertMany(ctx, ps)
	return err
}

// Bulk: InsertMany splits into awa.insert_jobs calls of at most 10,000.
func (i *awaInserter) Bulk(ctx context.Context, as []JobArgs) error {
	return i.Many(ctx, as)
}

// Pending sums awa.queue_counts of the default queue.
func (AwaSystem) Pending(ctx context.Context, conn *pgx.Conn) (int64, int64, error) {
	var avail, running int64
	err := conn.QueryRow(ctx, `/*bench*/ SELECT coalesce(sum(available), 0)::bigint, coalesce(sum(running), 0)::bigint
	                           FROM awa.queue_counts('default')`).Scan(&avail, &running)
	return avail, running, err
}

// OwnsTable: every table of schema awa.
func (AwaSystem) OwnsTable(schema, _ string) bool { return schema == "awa" }
