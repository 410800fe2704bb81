package main

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	_ "github.com/jackc/pgx/v5/stdlib" // "pgx" database/sql driver for goose
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivermigrate"

	"github.com/awa-queue/awa/db"
	"github.com/awa-queue/awa/driver"
)

// benchArgs is the job payload of every run, for both systems.
type benchArgs struct {
	N int `json:"n"`
}

func (benchArgs) Kind() string { return "bench" }

// handler is the job body shared by both systems: it does no work, counts the
// job and, inside the measurement window, records insert→start latency (the
// job row's created_at, set by the database clock at insert, against the
// worker's clock at start; both run on this machine).
type handler struct {
	started     atomic.Int64
	windowStart atomic.Int64 // unix ns; 0 = record nothing
	windowEnd   atomic.Int64
	latency     hist
}

func (h *handler) run(createdAt time.Time) {
	now := time.Now()
	h.started.Add(1)
	ws := h.windowStart.Load()
	if ws == 0 {
		return
	}
	c := createdAt.UnixNano()
	if c >= ws && c < h.windowEnd.Load() {
		h.latency.Record(now.Sub(createdAt))
	}
}

// runner is a started worker client.
type runner interface {
	Stop(ctx context.Context) error
}

// inserter enqueues jobs through a system's client API.
type inserter interface {
	// One inserts a single job in its own transaction (awa:
	// SELECT * FROM awa.insert_job(...); River: Client.Insert).
	One(ctx context.Context, a benchArgs) error
	// Many inserts jobs in one transaction through the regular multi-row path
	// that returns the inserted rows (awa: awa.insert_jobs; River: InsertMany).
	Many(ctx context.Context, as []benchArgs) error
	// Bulk inserts jobs in one transaction through the system's fastest bulk
	// path (awa: awa.insert_jobs in calls of 10,000; River: InsertManyFast, COPY).
	Bulk(ctx context.Context, as []benchArgs) error
}

// system is one queue under test.
type system interface {
	Name() string
	// Migrate installs the system's schema into the database of dsn.
	Migrate(ctx context.Context, dsn string) error
	// Start starts a worker client on pool with w workers on the default queue.
	Start(ctx context.Context, pool *pgxpool.Pool, w int, h *handler) (runner, error)
	// Inserter returns an insert-only client on pool.
	Inserter(pool *pgxpool.Pool) (inserter, error)
	// Pending returns the jobs available and running (not yet finalized).
	Pending(ctx context.Context, conn *pgx.Conn) (available, running int64, err error)
	// OwnsTable says whether a table (schema, name) belongs to the system.
	OwnsTable(schema, name string) bool
	// Settings describes the client settings used, for the report.
	Settings(w int) map[string]string
}

func quietLogger() *slog.Logger {
	return slog.New(slog.NewTextHandler(io.Discard, nil))
}

func warnLogger() *slog.Logger {
	return slog.New(slog.NewTextHandler(errWriter{}, &slog.HandlerOptions{Level: slog.LevelWarn}))
}

// ---------------------------------------------------------------- awa

// awaSystem runs the awa driver. extraSQL, when set (-awa-sql), runs after
// the migrations: a way to measure a proposed SQL change without touching
// sql/ (the report says so).
type awaSystem struct{ extraSQL string }

func (awaSystem) Name() string { return "awa" }

func (a awaSystem) Migrate(ctx context.Context, dsn string) error {
	sqlDB, err := sql.Open("pgx", dsn)
	if err != nil {
		return err
	}
	defer sqlDB.Close()
	p, err := db.Provider(sqlDB)
	if err != nil {
		return err
	}
	if _, err = p.Up(ctx); err != nil {
		return err
	}
	if a.extraSQL != "" {
		if _, err := sqlDB.ExecContext(ctx, a.extraSQL); err != nil {
			return fmt.Errorf("-awa-sql: %w", err)
		}
	}
	return nil
}

func (awaSystem) Settings(w int) map[string]string {
	return map[string]string{
		"MaxWorkers":             fmt.Sprint(w),
		"FetchBatchSize":         "100 (default)",
		"FetchPollInterval":      "1s (default; LISTEN/NOTIFY wakes the fetcher)",
		"fetch cooldown":         "2ms (built in)",
		"CompleterBatchSize":     "500 (default)",
		"CompleterFlushInterval": "2ms (default)",
		"Maintenance":            "on, defaults (this client is the elected leader: promote 1s, claim ring 2s, queue/lease ring 5s, 14 sealed queue slots kept)",
	}
}

func (awaSystem) Start(ctx context.Context, pool *pgxpool.Pool, w int, h *handler) (runner, error) {
	workers := driver.NewWorkers()
	driver.AddWorker(workers, driver.WorkFunc(func(ctx context.Context, j *driver.Job[benchArgs]) error {
		h.run(j.CreatedAt)
		return nil
	}))
	c, err := driver.NewClient(pool, &driver.Config{
		Queues:  map[string]driver.QueueConfig{"default": {MaxWorkers: w}},
		Workers: workers,
		Logger:  warnLogger(),
	})
	if err != nil {
		return nil, err
	}
	if err := c.Start(ctx); err != nil {
		return nil, err
	}
	return c, nil
}

type awaInserter struct {
	c    *driver.Client
	pool *pgxpool.Pool
}

func (awaSystem) Inserter(pool *pgxpool.Pool) (inserter, error) {
	c, err := driver.NewClient(pool, &driver.Config{Logger: quietLogger(), DisableMaintenance: true})
	if err != nil {
		return nil, err
	}
	return &awaInserter{c: c, pool: pool}, nil
}

func (i *awaInserter) One(ctx context.Context, a benchArgs) error {
	_, err := i.c.Insert(ctx, a, nil)
	return err
}

func awaParams(as []benchArgs) []driver.InsertManyParams {
	ps := make([]driver.InsertManyParams, len(as))
	for k, a := range as {
		ps[k].Args = a
	}
	return ps
}

func (i *awaInserter) Many(ctx context.Context, as []benchArgs) error {
	_, err := i.c.InsertMany(ctx, awaParams(as))
	return err
}

// Bulk: InsertMany splits into awa.insert_jobs calls of at most 10,000.
func (i *awaInserter) Bulk(ctx context.Context, as []benchArgs) error {
	return i.Many(ctx, as)
}

func (awaSystem) Pending(ctx context.Context, conn *pgx.Conn) (int64, int64, error) {
	var avail, running int64
	err := conn.QueryRow(ctx, `/*bench*/ SELECT coalesce(sum(available), 0)::bigint, coalesce(sum(running), 0)::bigint
	                           FROM awa.queue_counts('default')`).Scan(&avail, &running)
	return avail, running, err
}

func (awaSystem) OwnsTable(schema, _ string) bool { return schema == "awa" }

// ---------------------------------------------------------------- River

type riverSystem struct{}

func (riverSystem) Name() string { return "river" }

func (riverSystem) Migrate(ctx context.Context, dsn string) error {
	pool, err := pgxpool.New(ctx, dsn)
	if err != nil {
		return err
	}
	defer pool.Close()
	m, err := rivermigrate.New(riverpgxv5.New(pool), &rivermigrate.Config{Logger: quietLogger()})
	if err != nil {
		return err
	}
	_, err = m.Migrate(ctx, rivermigrate.DirectionUp, nil)
	return err
}

// River's throughput settings, as its own benchmark command (cmd/river bench)
// sets them; MaxWorkers is the same W as awa's.
const (
	riverFetchCooldown     = 2 * time.Millisecond
	riverFetchPollInterval = 20 * time.Millisecond
)

func (riverSystem) Settings(w int) map[string]string {
	return map[string]string{
		"MaxWorkers":                  fmt.Sprint(w),
		"FetchCooldown":               riverFetchCooldown.String() + " (as River's bench command)",
		"FetchPollInterval":           riverFetchPollInterval.String() + " (as River's bench command)",
		"CompletedJobRetentionPeriod": "24h (default: completed rows stay in river_job)",
		"Maintenance":                 "on, defaults (leader elected, job cleaner/rescuer/scheduler)",
	}
}

type riverRunner struct{ c *river.Client[pgx.Tx] }

func (r riverRunner) Stop(ctx context.Context) error { return r.c.Stop(ctx) }

func (riverSystem) Start(ctx context.Context, pool *pgxpool.Pool, w int, h *handler) (runner, error) {
	workers := river.NewWorkers()
	river.AddWorker(workers, river.WorkFunc(func(ctx context.Context, j *river.Job[benchArgs]) error {
		h.run(j.CreatedAt)
		return nil
	}))
	c, err := river.NewClient(riverpgxv5.New(pool), &river.Config{
		FetchCooldown:     riverFetchCooldown,
		FetchPollInterval: riverFetchPollInterval,
		Queues:            map[string]river.QueueConfig{river.QueueDefault: {MaxWorkers: w}},
		Workers:           workers,
		Logger:            warnLogger(),
	})
	if err != nil {
		return nil, err
	}
	if err := c.Start(ctx); err != nil {
		return nil, err
	}
	return riverRunner{c}, nil
}

type riverInserter struct {
	c    *river.Client[pgx.Tx]
	pool *pgxpool.Pool
}

func (riverSystem) Inserter(pool *pgxpool.Pool) (inserter, error) {
	c, err := river.NewClient(riverpgxv5.New(pool), &river.Config{Logger: quietLogger()})
	if err != nil {
		return nil, err
	}
	return &riverInserter{c: c, pool: pool}, nil
}

func (i *riverInserter) One(ctx context.Context, a benchArgs) error {
	_, err := i.c.Insert(ctx, a, nil)
	return err
}

func riverParams(as []benchArgs) []river.InsertManyParams {
	ps := make([]river.InsertManyParams, len(as))
	for k, a := range as {
		ps[k].Args = a
	}
	return ps
}

func (i *riverInserter) Many(ctx context.Context, as []benchArgs) error {
	_, err := i.c.InsertMany(ctx, riverParams(as))
	return err
}

func (i *riverInserter) Bulk(ctx context.Context, as []benchArgs) error {
	_, err := i.c.InsertManyFast(ctx, riverParams(as))
	return err
}

func (riverSystem) Pending(ctx context.Context, conn *pgx.Conn) (int64, int64, error) {
	var avail, running int64
	err := conn.QueryRow(ctx, `/*bench*/ SELECT count(*) FILTER (WHERE state = 'available'),
	                                  count(*) FILTER (WHERE state = 'running')
	                           FROM river_job WHERE state IN ('available', 'running')`).Scan(&avail, &running)
	return avail, running, err
}

func (riverSystem) OwnsTable(schema, name string) bool {
	return schema == "public" && len(name) > 6 && name[:6] == "river_"
}
