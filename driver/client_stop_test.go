package driver_test

// These tests do not call t.Parallel: each checks for leaked goroutines,
// which needs the package's other tests paused.

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/awa-queue/awa/driver"
	"github.com/awa-queue/awa/internal/pgtest"
)

// blockArgs: the tests' args types look alike on purpose: a kind is a
// type (driver.JobArgs), and each test names its own.
type blockArgs struct {
	N int `json:"n"`
}

func (blockArgs) Kind() string { return "block" }

// openPool opens a pool on a fresh database; the caller closes it (and the
// test's clean-up closes it again, harmlessly).
func openPool(t *testing.T, dsn string) *pgxpool.Pool {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	pool, err := pgxpool.New(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	return pool
}

// stopWithin runs stop in the background and returns its error, failing the
// test when it has not returned within d.
func stopWithin(t *testing.T, d time.Duration, what string, stop func() error) error {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- stop() }()
	select {
	case err := <-done:
		return err
	case <-time.After(d):
		t.Fatalf("%s did not return within %s", what, d)
		return nil
	}
}

// requireEachJob fails the test unless every job of ids has exactly one row
// and ok accepts it; when and want describe the moment and what ok asks for.
func requireEachJob(t *testing.T, pool *pgxpool.Pool, ids []int64, when, want string, ok func(jobSnap) bool) {
	t.Helper()
	for _, id := range ids {
		if rows := jobRows(t, pool, id); len(rows) != 1 || !ok(rows[0]) {
			t.Fatalf("%s, job %d is %v, want %s", when, id, rows, want)
		}
	}
}

// closeAndCheck closes the test's pool and requires that no goroutine
// outlives it (base: taken before the pool was opened).
func closeAndCheck(t *testing.T, pool *pgxpool.Pool, base goroutineBaseline, what string) {
	t.Helper()
	pool.Close()
	base.check(t, what)
}

// blockingClient is a started client whose handler reports each start on
// started, then waits for release or for its context to end, and counts the
// handlers that finished and those that saw ctx.Done. Tests stop it
// themselves; a clean-up stops it hard should the test end early.
type blockingClient struct {
	client   *driver.Client
	started  chan int64
	release  chan struct{}
	finished atomic.Int64
	ctxEnded atomic.Int64 // handlers that saw ctx.Done
}

func newBlockingClient(t *testing.T, pool *pgxpool.Pool, workers int, flush time.Duration) *blockingClient {
	t.Helper()
	bc := &blockingClient{started: make(chan int64, 100), release: make(chan struct{})}
	ws := driver.NewWorkers()
	driver.AddWorker(ws, driver.WorkFunc(func(ctx context.Context, j *driver.Job[blockArgs]) error {
		defer bc.finished.Add(1)
		bc.started <- j.ID
		select {
		case <-bc.release:
			return nil
		case <-ctx.Done():
			bc.ctxEnded.Add(1)
			return ctx.Err()
		case <-time.After(60 * time.Second):
			return errors.New("never released")
		}
	}))
	log, _ := testLogger(t, "client")
	c, err := driver.NewClient(pool, &driver.Config{
		Queues:                 map[string]driver.QueueConfig{"stopq": {MaxWorkers: workers}},
		Workers:                ws,
		Logger:                 log,
		FetchPollInterval:      50 * time.Millisecond,
		CompleterFlushInterval: flush,
		Maintenance:            fastMaintenance(),
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.StopAndCancel(context.Background()) }) // no-op once stopped
	bc.client = c
	return bc
}

// startBlocked gives a stop test a fresh database, the goroutine baseline
// taken before its pool opens, the pool, a blockingClient of n workers
// (completer flush interval flush) and n jobs whose handlers all run.
func startBlocked(t *testing.T, n int, flush time.Duration) (goroutineBaseline, *pgxpool.Pool, *blockingClient, []int64) {
	t.Helper()
	dsn := pgtest.NewDBDSN(t)
	base := baselineGoroutines()
	pool := openPool(t, dsn)
	bc := newBlockingClient(t, pool, n, flush)
	return base, pool, bc, bc.insertAndAwaitStart(t, n)
}

// insertAndAwaitStart inserts n jobs and waits until all n handlers run.
func (bc *blockingClient) insertAndAwaitStart(t *testing.T, n int) []int64 {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	params := make([]driver.InsertManyParams, n)
	for i := range params {
		params[i] = driver.InsertManyParams{Args: blockArgs{N: i}, Opts: &driver.InsertOpts{Queue: "stopq", MaxAttempts: 3}}
	}
	jobs, err := bc.client.InsertMany(ctx, params)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < n; i++ {
		select {
		case <-bc.started:
		case <-ctx.Done():
			t.Fatalf("only %d of %d handlers started within 30s", i, n)
		}
	}
	ids := make([]int64, n)
	for i, j := range jobs {
		ids[i] = j.ID
	}
	return ids
}

// TestStopFinishesInFlightJobs: Stop waits for running handlers, which keep
// their context, and returns only once their completions are in the
// database, even with a completer flush interval of a minute.
func TestStopFinishesInFlightJobs(t *testing.T) {
	const n = 4
	base, pool, bc, ids := startBlocked(t, n, time.Minute)
	requireEachJob(t, pool, ids, "while its handler runs", "running", func(j jobSnap) bool { return j.State == "running" })

	stopped := make(chan error, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		stopped <- bc.client.Stop(ctx)
	}()
	select {
	case err := <-stopped:
		t.Fatalf("Stop returned (%v) while %d handlers were still running", err, n)
	case <-time.After(300 * time.Millisecond):
	}
	var finishedAtStop int64
	close(bc.release)
	select {
	case err := <-stopped:
		finishedAtStop = bc.finished.Load()
		if err != nil {
			t.Fatalf("Stop: %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("Stop did not return within 30s of releasing the handlers")
	}
	if finishedAtStop != n {
		t.Fatalf("Stop returned when %d of %d handlers had finished", finishedAtStop, n)
	}
	if e := bc.ctxEnded.Load(); e != 0 {
		t.Fatalf("%d handlers saw their context cancelled by a graceful Stop, want 0", e)
	}
	// Right after Stop: completed, not running or pending in a buffer.
	requireEachJob(t, pool, ids, "right after Stop returned", "completed", func(j jobSnap) bool { return j.State == "completed" })
	closeAndCheck(t, pool, base, "after Stop and pool.Close")
}

// TestStopAndCancelCancelsRunningJobs: StopAndCancel cancels the running
// handlers' contexts and flushes their results as retries before returning.
func TestStopAndCancelCancelsRunningJobs(t *testing.T) {
	const n = 3
	base, pool, bc, ids := startBlocked(t, n, time.Minute)

	err := stopWithin(t, 30*time.Second, "StopAndCancel", func() error {
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		return bc.client.StopAndCancel(ctx)
	})
	if err != nil {
		t.Fatalf("StopAndCancel: %v", err)
	}
	if e, f := bc.ctxEnded.Load(), bc.finished.Load(); e != n || f != n {
		t.Fatalf("at return of StopAndCancel %d handlers had finished and %d had seen ctx.Done, want %d and %d", f, e, n, n)
	}
	requireEachJob(t, pool, ids, "right after StopAndCancel", "retryable after attempt 1 with a 'context canceled' error",
		func(j jobSnap) bool {
			return j.State == "retryable" && j.Attempt == 1 && len(j.Errors) == 1 &&
				strings.Contains(j.Errors[0].Error, context.Canceled.Error()) && !strings.Contains(j.Errors[0].Error, "timed out")
		})
	closeAndCheck(t, pool, base, "after StopAndCancel and pool.Close")
}

// TestStopContextExpiryCancelsJobs: when Stop's context ends before the
// handlers do, Stop cancels them, still flushes their results (retries) and
// returns the context's error.
func TestStopContextExpiryCancelsJobs(t *testing.T) {
	const n = 2
	base, pool, bc, ids := startBlocked(t, n, 2*time.Millisecond)

	err := stopWithin(t, 30*time.Second, "Stop with a 300ms context", func() error {
		ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
		defer cancel()
		return bc.client.Stop(ctx)
	})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Stop = %v, want context.DeadlineExceeded", err)
	}
	if e := bc.ctxEnded.Load(); e != n {
		t.Fatalf("%d handlers saw ctx.Done, want %d", e, n)
	}
	requireEachJob(t, pool, ids, "right after Stop returned", "retryable after attempt 1",
		func(j jobSnap) bool { return j.State == "retryable" && j.Attempt == 1 })
	closeAndCheck(t, pool, base, "after Stop (context expired) and pool.Close")
}

// numberedArgs is the job of the busy-run and strand tests (each test has a
// database of its own, so they share the kind).
type numberedArgs struct {
	N int `json:"n"`
}

func (numberedArgs) Kind() string { return "numbered" }

// TestNoGoroutineLeakAfterBusyRuns: a client that worked several queues,
// led maintenance, listened and heartbeated, and was started and stopped
// twice (gracefully, then hard), leaves no goroutine behind once its pool is
// closed.
func TestNoGoroutineLeakAfterBusyRuns(t *testing.T) {
	dsn := pgtest.NewDBDSN(t)
	base := baselineGoroutines()
	pool := openPool(t, dsn)
	ctx := pgtest.Context(t, 2*time.Minute)

	var ran atomic.Int64
	var snoozed sync.Map
	ws := driver.NewWorkers()
	driver.AddWorker(ws, driver.WorkFunc(func(ctx context.Context, j *driver.Job[numberedArgs]) error {
		ran.Add(1)
		switch j.Args.N % 10 {
		case 1:
			if _, again := snoozed.LoadOrStore(j.ID, true); !again {
				return driver.JobSnooze(50 * time.Millisecond)
			}
		case 2:
			return driver.JobCancel(errors.New("no"))
		case 3:
			return driver.JobFail(errors.New("bad"))
		}
		return nil
	}))
	log, _ := testLogger(t, "client")
	client, err := driver.NewClient(pool, &driver.Config{
		Queues:            map[string]driver.QueueConfig{"b1": {MaxWorkers: 5}, "b2": {MaxWorkers: 3}},
		Workers:           ws,
		Logger:            log,
		FetchPollInterval: 50 * time.Millisecond,
		HeartbeatInterval: 100 * time.Millisecond,
		Maintenance:       fastMaintenance(),
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = client.StopAndCancel(context.Background()) }) // no-op once stopped
	const n = 300
	for round, hard := range []bool{false, true} {
		if err := client.Start(ctx); err != nil {
			t.Fatalf("round %d: Start: %v", round, err)
		}
		if err := client.Start(ctx); err == nil {
			t.Fatalf("round %d: Start of a running client succeeded, want an error", round)
		}
		params := make([]driver.InsertManyParams, n)
		for i := range params {
			params[i] = driver.InsertManyParams{Args: numberedArgs{N: i}, Opts: &driver.InsertOpts{Queue: fmt.Sprintf("b%d", 1+i%2)}}
		}
		if _, err := client.InsertMany(ctx, params); err != nil {
			t.Fatal(err)
		}
		waitFor(t, 60*time.Second, fmt.Sprintf("round %d: all jobs terminal", round), func() (bool, string) {
			var open int
			if err := pool.QueryRow(ctx, "SELECT count(*) FROM awa.jobs WHERE state NOT IN ('completed', 'cancelled', 'failed')").
				Scan(&open); err != nil {
				return false, err.Error()
			}
			return open == 0, fmt.Sprintf("%d open jobs", open)
		})
		waitFor(t, 15*time.Second, fmt.Sprintf("round %d: client to lead", round), func() (bool, string) { return client.IsLeader(), "" })
		stop := client.Stop
		if hard {
			stop = client.StopAndCancel
		}
		if err := stopWithin(t, 30*time.Second, "Stop", func() error { return stop(ctx) }); err != nil {
			t.Fatalf("round %d: stop: %v", round, err)
		}
		if client.IsLeader() {
			t.Fatalf("round %d: client reports leading after it stopped", round)
		}
	}
	if got, want := ran.Load(), int64(2*(n+n/10)); got != want {
		t.Fatalf("handlers ran %d times, want %d (each job once, snoozed ones twice)", got, want)
	}
	closeAndCheck(t, pool, base, "after two Start/Stop rounds and pool.Close")
}

// TestGracefulStopStrandsNoClaimedJob: a graceful Stop must not leave jobs
// claimed but never run. Stop cancels the fetch loop; if that cancels a claim
// whose transaction already committed, the claimed jobs are dropped by the
// client yet stay "running" in the database until stale rescue (90s by
// default), which then counts an attempt they never made. The test stops a
// client at varied moments while it claims from a deep backlog and checks
// after each Stop that nothing is left running.
func TestGracefulStopStrandsNoClaimedJob(t *testing.T) {
	ctx := pgtest.Context(t, 2*time.Minute)
	pool := pgtest.NewDB(t)
	var handed sync.Map
	ws := driver.NewWorkers()
	driver.AddWorker(ws, driver.WorkFunc(func(ctx context.Context, j *driver.Job[numberedArgs]) error {
		handed.Store(j.ID, true)
		return nil
	}))
	params := make([]driver.InsertManyParams, 20000)
	for i := range params {
		params[i] = driver.InsertManyParams{Args: numberedArgs{N: i}, Opts: &driver.InsertOpts{Queue: "strand"}}
	}
	ins, err := driver.NewClient(pool, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ins.InsertMany(ctx, params); err != nil {
		t.Fatal(err)
	}
	log, _ := testLogger(t, "client")
	for round := 0; round < 150; round++ {
		c, err := driver.NewClient(pool, &driver.Config{
			Queues:             map[string]driver.QueueConfig{"strand": {MaxWorkers: 50}},
			Workers:            ws,
			Logger:             log.With("round", round),
			DisableMaintenance: true, // no rescue during the test
			DisableListen:      true,
		})
		if err != nil {
			t.Fatal(err)
		}
		if err := c.Start(ctx); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Duration(round%20) * time.Millisecond) // vary the moment of Stop
		if err := stopWithin(t, 30*time.Second, "Stop", func() error { return c.Stop(ctx) }); err != nil {
			t.Fatalf("round %d: Stop: %v", round, err)
		}
		rows, err := pool.Query(ctx, "SELECT id FROM awa.jobs WHERE state = 'running' ORDER BY id")
		if err != nil {
			t.Fatal(err)
		}
		ids, err := pgx.CollectRows(rows, pgx.RowTo[int64])
		if err != nil {
			t.Fatal(err)
		}
		if len(ids) > 0 {
			neverRun := 0
			for _, id := range ids {
				if _, ok := handed.Load(id); !ok {
					neverRun++
				}
			}
			t.Fatalf("round %d: after Stop returned, %d jobs are still running in the database (%d of them were never "+
				"handed to a handler: claimed by a claim call that Stop cancelled after it committed); ids %v",
				round, len(ids), neverRun, ids[:min(len(ids), 10)])
		}
	}
}
