package main

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivermigrate"

	"github.com/awa-queue/awa/bench/benchkit"
)

// riverSystem runs River (riverpgxv5 driver) with the throughput settings
// of River's own benchmark command.
type riverSystem struct{}

func (riverSystem) Name() string { return "river" }

func (riverSystem) Migrate(ctx context.Context, dsn string) error {
	pool, err := pgxpool.New(ctx, dsn)
	if err != nil {
		return err
	}
	defer pool.Close()
	m, err := rivermigrate.New(riverpgxv5.New(pool), &rivermigrate.Config{Logger: benchkit.QuietLogger()})
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

func (riverSystem) Start(ctx context.Context, pool *pgxpool.Pool, w int, h *benchkit.Handler) (benchkit.Stopper, error) {
	workers := river.NewWorkers()
	river.AddWorker(workers, river.WorkFunc(func(ctx context.Context, j *river.Job[benchkit.JobArgs]) error {
		return h.RunAttempt(ctx, j.Args, benchkit.Attempt{CreatedAt: j.CreatedAt, Due: j.ScheduledAt, Number: j.Attempt})
	}))
	c, err := river.NewClient(riverpgxv5.New(pool), &river.Config{
		FetchCooldown:     riverFetchCooldown,
		FetchPollInterval: riverFetchPollInterval,
		Queues:            map[string]river.QueueConfig{river.QueueDefault: {MaxWorkers: w}},
		Workers:           workers,
		Logger:            benchkit.WarnLogger(os.Stderr),
	})
	if err != nil {
		return nil, err
	}
	if err := c.Start(ctx); err != nil {
		return nil, err
	}
	return riverRunner{c}, nil
}

type riverInserter struct{ c *river.Client[pgx.Tx] }

func (riverSystem) Inserter(pool *pgxpool.Pool) (benchkit.Inserter, error) {
	c, err := river.NewClient(riverpgxv5.New(pool), &river.Config{Logger: benchkit.QuietLogger()})
	if err != nil {
		return nil, err
	}
	return &riverInserter{c: c}, nil
}

// riverOpts are a job's insert options: nil but for a delayed job (At set).
func riverOpts(a benchkit.JobArgs) *river.InsertOpts {
	if a.At.IsZero() {
		return nil
	}
	return &river.InsertOpts{ScheduledAt: a.At}
}

func (i *riverInserter) One(ctx context.Context, a benchkit.JobArgs) error {
	_, err := i.c.Insert(ctx, a, riverOpts(a))
	return err
}

func riverParams(as []benchkit.JobArgs) []river.InsertManyParams {
	ps := make([]river.InsertManyParams, len(as))
	for k, a := range as {
		ps[k].Args, ps[k].InsertOpts = a, riverOpts(a)
	}
	return ps
}

func (i *riverInserter) Many(ctx context.Context, as []benchkit.JobArgs) error {
	_, err := i.c.InsertMany(ctx, riverParams(as))
	return err
}

func (i *riverInserter) Bulk(ctx context.Context, as []benchkit.JobArgs) error {
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
