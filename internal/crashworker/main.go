// Command crashworker is the worker process of the driver's crash tests
// (driver/crash_test.go): it works queue "crash" with a driver.Client whose
// handler records each run in crash_runs(job_id, run_lease, pid, at), sleeps
// a little and succeeds. The tests kill it (SIGKILL), freeze it
// (SIGSTOP/SIGCONT) and stop it (SIGTERM: graceful Stop, exit 0).
//
// With -callbacks it also runs two more kinds on queue crash: crash_park
// registers a callback, records its token in crash_parks(job_id, run_lease,
// token) and parks (driver.JobWaitForCallback), and once resumed records its
// run and completes; crash_long records its run and reports progress every
// 100ms for -long-run while the process heartbeats, then completes.
//
// With -periodic N it also declares N periodic jobs, crash_periodic_0 ..
// _N-1, each "@every 1s" (kind crash_periodic, queue crash_periodic, not
// worked), missed fire_once for even numbers and skip for odd ones, evaluated
// every 50ms by whichever worker leads (driver/crash_periodic_test.go).
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
	callbacks := flag.Bool("callbacks", false, "also run kinds crash_park and crash_long")
	longRun := flag.Duration("long-run", 4*time.Second, "how long a crash_long job runs")
	periodic := flag.Int("periodic", 0, "periodic jobs to declare (\"@every 1s\", kind crash_periodic)")
	flag.Parse()
	log := slog.New(slog.NewJSONHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelInfo}))
	opts := options{workers: *workers, sleepMin: *sleepMin, sleepMax: *sleepMax, callbacks: *callbacks, longRun: *longRun,
		periodic: *periodic}
	if err := run(log, *dsn, *instance, opts); err != nil {
		log.Error("crashworker failed", slog.String("error", err.Error()))
		os.Exit(1)
	}
}

type options struct {
	workers            int
	sleepMin, sleepMax time.Duration
	callbacks          bool
	longRun            time.Duration
	periodic           int
}

// periodicArgs (kind crash_periodic) is the job of the -periodic schedules.
type periodicArgs struct {
	N int `json:"n"`
}

// Kind implements driver.JobArgs.
func (periodicArgs) Kind() string { return "crash_periodic" }

// periodicJobs returns the n schedules of -periodic.
func periodicJobs(n int) []*driver.PeriodicJob {
	jobs := make([]*driver.PeriodicJob, n)
	for i := range jobs {
		missed := driver.MissedFireOnce
		if i%2 == 1 {
			missed = driver.MissedSkip
		}
		jobs[i] = &driver.PeriodicJob{Name: fmt.Sprintf("crash_periodic_%d", i), Schedule: "@every 1s",
			Args: periodicArgs{N: i}, Opts: &driver.InsertOpts{Queue: "crash_periodic"}, Missed: missed}
	}
	return jobs
}

func run(log *slog.Logger, dsn, instance string, o options) error {
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
	record := func(ctx context.Context, j *driver.JobRow) error {
		if _, err := pool.Exec(ctx, "INSERT INTO crash_runs (job_id, run_lease, pid, at) VALUES ($1, $2, $3, now())",
			j.ID, j.RunLease, pid); err != nil {
			return fmt.Errorf("record run: %w", err)
		}
		return nil
	}
	ws := driver.NewWorkers()
	driver.AddWorker(ws, driver.WorkFunc(func(ctx context.Context, j *driver.Job[crashArgs]) error {
		if err := record(ctx, j.JobRow); err != nil {
			return err
		}
		d := o.sleepMin
		if o.sleepMax > o.sleepMin {
			d += rand.N(o.sleepMax - o.sleepMin)
		}
		time.Sleep(d)
		return nil
	}))
	if o.callbacks {
		addCallbackWorkers(ws, pool, record, o.longRun)
	}
	client, err := driver.NewClient(pool, &driver.Config{
		Queues:            map[string]driver.QueueConfig{"crash": {MaxWorkers: o.workers}},
		Workers:           ws,
		Logger:            log,
		FetchPollInterval: 100 * time.Millisecond,
		HeartbeatInterval: 200 * time.Millisecond,
		InstanceID:        id,
		PeriodicJobs:      periodicJobs(o.periodic),
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
			PeriodicInterval:   50 * time.Millisecond,
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

type parkArgs struct{}

func (parkArgs) Kind() string { return "crash_park" }

type longArgs struct{}

func (longArgs) Kind() string { return "crash_long" }

// longWorker runs for longRun, checkpointing every 100ms.
type longWorker struct {
	record  func(ctx context.Context, j *driver.JobRow) error
	longRun time.Duration
}

func (w longWorker) Work(ctx context.Context, j *driver.Job[longArgs]) error {
	if err := w.record(ctx, j.JobRow); err != nil {
		return err
	}
	t := time.NewTicker(100 * time.Millisecond)
	defer t.Stop()
	for end, step := time.Now().Add(w.longRun), 1; time.Now().Before(end); step++ {
		if err := j.SetProgress(ctx, map[string]int{"step": step}); err != nil {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
		}
	}
	return nil
}

// Timeout: longer than RescueStuckAfter would allow alone (the claim
// deadline covers it).
func (longWorker) Timeout(*driver.Job[longArgs]) time.Duration { return 2 * time.Hour }

func addCallbackWorkers(ws *driver.Workers, pool *pgxpool.Pool, record func(context.Context, *driver.JobRow) error,
	longRun time.Duration) {
	driver.AddWorker(ws, driver.WorkFunc(func(ctx context.Context, j *driver.Job[parkArgs]) error {
		if err := record(ctx, j.JobRow); err != nil {
			return err
		}
		if _, ok := j.CallbackResult(); ok {
			return nil
		}
		token, err := j.RegisterCallback(ctx, time.Hour)
		if err != nil {
			return err
		}
		if _, err := pool.Exec(ctx, "INSERT INTO crash_parks (job_id, run_lease, token) VALUES ($1, $2, $3)",
			j.ID, j.RunLease, token); err != nil {
			return fmt.Errorf("record token: %w", err)
		}
		return driver.JobWaitForCallback()
	}))
	driver.AddWorker[longArgs](ws, longWorker{record: record, longRun: longRun})
}
