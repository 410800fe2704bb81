// Command crashworker is the worker process of the driver's crash tests
// (driver/crash_test.go): it works queue "crash" with a driver.Client whose
// handler records each run in crash_runs(job_id, run_lease, pid, at), sleeps
// a little and succeeds. The tests kill it (SIGKILL), freeze it
// (SIGSTOP/SIGCONT) and stop it (SIGTERM: graceful Stop, exit 0).
//
// It logs JSON to stderr (the tests read the stale-result records) and exits
// when its stdin reaches EOF, so a worker outlives no crashed test binary.
package main

import (
	"context"
	"encoding/hex"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/awa-queue/awa/driver"
)

type crashArgs struct {
	N int `json:"n"`
}

func (crashArgs) Kind() string { return "crash" }

func main() {
	dsn := flag.String("dsn", os.Getenv("AWA_CRASH_DSN"), "database DSN (default $AWA_CRASH_DSN)")
	instance := flag.String("instance", "", "instance id, 32 hex digits (default random)")
	workers := flag.Int("workers", 4, "MaxWorkers of queue crash")
	sleepMin := flag.Duration("sleep-min", 20*time.Millisecond, "shortest handler run")
	sleepMax := flag.Duration("sleep-max", 100*time.Millisecond, "longest handler run")
	flag.Parse()
	log := slog.New(slog.NewJSONHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelInfo}))
	if err := run(log, *dsn, *instance, *workers, *sleepMin, *sleepMax); err != nil {
		log.Error("crashworker failed", slog.String("error", err.Error()))
		os.Exit(1)
	}
}

func run(log *slog.Logger, dsn, instance string, workers int, sleepMin, sleepMax time.Duration) error {
	if dsn == "" {
		return fmt.Errorf("no DSN: pass -dsn or set AWA_CRASH_DSN")
	}
	var id [16]byte
	if instance != "" {
		raw, err := hex.DecodeString(strings.ReplaceAll(instance, "-", ""))
		if err != nil || len(raw) != 16 {
			return fmt.Errorf("bad -instance %q: want 32 hex digits", instance)
		}
		copy(id[:], raw)
	}

	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	go func() { // the parent's end closes our stdin
		_, _ = io.Copy(io.Discard, os.Stdin)
		log.Warn("stdin closed: exiting")
		os.Exit(3)
	}()

	pool, err := pgxpool.New(ctx, dsn)
	if err != nil {
		return err
	}
	defer pool.Close()

	pid := os.Getpid()
	ws := driver.NewWorkers()
	driver.AddWorker(ws, driver.WorkFunc(func(ctx context.Context, j *driver.Job[crashArgs]) error {
		if _, err := pool.Exec(ctx, "INSERT INTO crash_runs (job_id, run_lease, pid, at) VALUES ($1, $2, $3, now())",
			j.ID, j.RunLease, pid); err != nil {
			return fmt.Errorf("record run: %w", err)
		}
		d := sleepMin
		if sleepMax > sleepMin {
			d += rand.N(sleepMax - sleepMin)
		}
		time.Sleep(d)
		return nil
	}))
	client, err := driver.NewClient(pool, &driver.Config{
		Queues:            map[string]driver.QueueConfig{"crash": {MaxWorkers: workers}},
		Workers:           ws,
		Logger:            log,
		FetchPollInterval: 100 * time.Millisecond,
		HeartbeatInterval: 200 * time.Millisecond,
		InstanceID:        id,
		// Alike fastMaintenance (driver tests) in shape only: other values.
		Maintenance: &driver.MaintenanceConfig{
			LeaderTTL:          2 * time.Second,
			ElectInterval:      200 * time.Millisecond,
			PromoteInterval:    100 * time.Millisecond,
			RescueInterval:     200 * time.Millisecond,
			RescueStaleAfter:   2 * time.Second,
			QueueRingInterval:  time.Hour,
			ClaimRingInterval:  time.Hour,
			LeaseRingInterval:  time.Hour,
			CursorRingInterval: time.Hour,
		},
	})
	if err != nil {
		return err
	}
	if err := client.Start(ctx); err != nil {
		return err
	}
	id = client.InstanceID()
	log.Info("crashworker running", slog.Int("pid", pid), slog.String("instance", hex.EncodeToString(id[:])))
	<-ctx.Done()
	sctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return client.Stop(sctx)
}
