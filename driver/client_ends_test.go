package driver_test

// Every attempt ends (issue 7, observation 5): whatever fails while the
// process lives and heartbeats (a handler that ignores its context, finalizer
// calls that keep failing), the attempt is closed within a documented bound.

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/awa-queue/awa/driver"
	"github.com/awa-queue/awa/internal/pgtest"
)

// stuckArgs: the tests' args types look alike on purpose: a kind is a
// type (driver.JobArgs), and each test names its own.
type stuckArgs struct{}

func (stuckArgs) Kind() string { return "stuck_kind" }

// failCompletions makes every complete_jobs call fail on the server (a
// trigger on the closure table raises for completed closures, so the whole
// finalizer statement errors and writes nothing) until the returned function
// is called. Rescue and retry closures still work.
func failCompletions(t *testing.T, pool *pgxpool.Pool) (restore func()) {
	t.Helper()
	ctx := pgtest.Context(t, 30*time.Second)
	_, err := pool.Exec(ctx, `
		CREATE FUNCTION public.test_fail_completion() RETURNS trigger LANGUAGE plpgsql AS $$
		BEGIN RAISE EXCEPTION 'test: completions are failing' USING ERRCODE = 'XX000'; END $$;
		CREATE TRIGGER test_fail_completion BEFORE INSERT ON awa.claim_closures
		FOR EACH ROW WHEN (NEW.outcome = 'completed') EXECUTE FUNCTION public.test_fail_completion();`)
	if err != nil {
		t.Fatalf("install the failing trigger: %v", err)
	}
	var done atomic.Bool
	restore = func() {
		if done.Swap(true) {
			return
		}
		if _, err := pool.Exec(context.Background(), `DROP TRIGGER test_fail_completion ON awa.claim_closures`); err != nil {
			t.Errorf("drop the failing trigger: %v", err)
		}
	}
	t.Cleanup(restore)
	return restore
}

// heartbeatAge is how long ago the process last heartbeated (database clock).
func heartbeatAge(t *testing.T, pool *pgxpool.Pool, id [16]byte) time.Duration {
	t.Helper()
	var age time.Duration
	err := pool.QueryRow(pgtest.Context(t, 10*time.Second),
		`SELECT now() - heartbeat_at FROM awa.runtime_instances WHERE instance_id = $1`, id).Scan(&age)
	if err != nil {
		t.Fatalf("read heartbeat: %v", err)
	}
	return age
}

// completions counts the completion records of job id (exactly one for a job
// completed once).
func completions(t *testing.T, pool *pgxpool.Pool, id int64) int {
	t.Helper()
	var n int
	err := pool.QueryRow(pgtest.Context(t, 10*time.Second),
		`SELECT count(*) FROM awa.terminal_jobs WHERE id = $1 AND state = 'completed'`, id).Scan(&n)
	if err != nil {
		t.Fatalf("count completions: %v", err)
	}
	return n
}

// TestHandlerIgnoringItsContextIsAbandonedAfterGrace: a handler that ignores
// its context past JobTimeout is abandoned JobTimeoutGrace later: its attempt
// is retried at once (not by any rescue: the process heartbeats and
// RescueStuckAfter is a minute), the job runs again and completes once, and
// when the abandoned handler finally returns its result changes nothing.
func TestHandlerIgnoringItsContextIsAbandonedAfterGrace(t *testing.T) {
	ctx, pool := parallelDB(t, 2*time.Minute)
	const timeout, grace = 400 * time.Millisecond, 600 * time.Millisecond
	release := make(chan struct{})
	started := make(chan time.Time, 1)
	var lateReturned atomic.Bool
	var secondRuns atomic.Int64
	workers := workersFor(func(ctx context.Context, j *driver.Job[stuckArgs]) error {
		if j.Attempt > 1 {
			secondRuns.Add(1)
			return nil
		}
		started <- time.Now()
		<-release // ignores ctx
		lateReturned.Store(true)
		return nil // would complete the job
	})
	log, rec := testLogger(t, "client")
	client := startClient(t, pool, workConfig("stuck", 2, workers, log, &driver.Config{
		JobTimeout:       timeout,
		JobTimeoutGrace:  grace,
		RescueStuckAfter: time.Minute,
	}))
	defer close(release)
	job, err := client.Insert(ctx, stuckArgs{}, &driver.InsertOpts{Queue: "stuck", MaxAttempts: 3})
	if err != nil {
		t.Fatal(err)
	}
	var t0 time.Time
	select {
	case t0 = <-started:
	case <-ctx.Done():
		t.Fatal("attempt 1 never started")
	}
	var closedAfter time.Duration
	waitFor(t, 20*time.Second, "attempt 1 to be closed", func() (bool, string) {
		rows := jobRows(t, pool, job.ID)
		closedAfter = time.Since(t0)
		return len(rows) == 1 && rows[0].State != "running", fmt.Sprint(rows)
	})
	if bound := timeout + grace + time.Second; closedAfter > bound {
		t.Fatalf("attempt 1 closed %s after it started, want within timeout + grace (+1s slack) = %s", closedAfter, bound)
	}
	if closedAfter < timeout+grace-50*time.Millisecond {
		t.Fatalf("attempt 1 closed %s after it started, before timeout + grace = %s", closedAfter, timeout+grace)
	}
	if age := heartbeatAge(t, pool, client.InstanceID()); age > 10*time.Second {
		t.Fatalf("the process's heartbeat is %s old: the test needs a heartbeating process", age)
	}
	final := waitJobState(t, pool, job.ID, "completed", 30*time.Second)
	if final.Attempt != 2 || !errorsContain(final.Errors, "did not return within its timeout") {
		t.Fatalf("completed row %v, want attempt 2 after attempt 1 was abandoned (did not return within its timeout)", final)
	}
	if lateReturned.Load() {
		t.Fatal("attempt 1's handler returned before the test released it")
	}
	if len(rec.find("Handler did not return within its timeout", nil)) != 1 {
		t.Fatal("the runtime did not log the abandonment once")
	}

	release <- struct{}{} // the abandoned handler returns nil now
	waitFor(t, 10*time.Second, "the late result to be dropped", func() (bool, string) {
		return len(rec.find("Abandoned handler returned", nil)) == 1, "no log yet"
	})
	time.Sleep(300 * time.Millisecond) // a finalizer call, were one made, would land now
	rows := jobRows(t, pool, job.ID)
	if len(rows) != 1 || rows[0].State != "completed" || rows[0].Attempt != 2 || rows[0].RunLease != final.RunLease {
		t.Fatalf("after the late return the job is %v, want unchanged %v", rows, final)
	}
	if n := completions(t, pool, job.ID); n != 1 || secondRuns.Load() != 1 {
		t.Fatalf("job completed %d times and attempt 2 ran %d times, want 1 and 1", n, secondRuns.Load())
	}
	if stale := rec.find("Stale result dropped", nil); len(stale) != 0 {
		t.Fatalf("the late result was sent to a finalizer (logged stale %d times); it must be dropped without a call", len(stale))
	}
}

// TestAbandonedHandlerKeepsItsSlot: with one worker slot, an abandoned
// handler's attempt is retried, but the retry cannot start until the handler
// really returns: a handler that ignores its context costs its slot, never
// extra goroutines.
func TestAbandonedHandlerKeepsItsSlot(t *testing.T) {
	ctx, pool := parallelDB(t, 2*time.Minute)
	release := make(chan struct{})
	var returned, secondStartedEarly atomic.Bool
	var secondRuns atomic.Int64
	workers := workersFor(func(ctx context.Context, j *driver.Job[stuckArgs]) error {
		if j.Attempt > 1 {
			secondRuns.Add(1)
			secondStartedEarly.Store(!returned.Load())
			return nil
		}
		<-release
		returned.Store(true)
		return nil
	})
	log, _ := testLogger(t, "client")
	client := startClient(t, pool, workConfig("slot", 1, workers, log, &driver.Config{
		JobTimeout:      200 * time.Millisecond,
		JobTimeoutGrace: 200 * time.Millisecond,
	}))
	var releaseOnce sync.Once
	releaseHandler := func() { releaseOnce.Do(func() { close(release) }) }
	t.Cleanup(releaseHandler) // runs before the client's clean-up stop
	job, err := client.Insert(ctx, stuckArgs{}, &driver.InsertOpts{Queue: "slot", MaxAttempts: 3})
	if err != nil {
		t.Fatal(err)
	}
	waitJobState(t, pool, job.ID, "retryable", 20*time.Second)
	waitJobState(t, pool, job.ID, "available", 20*time.Second) // promoted after the 2s backoff
	time.Sleep(time.Second)                                    // a free slot would have claimed it by now
	if rows := jobRows(t, pool, job.ID); len(rows) != 1 || rows[0].State != "available" || secondRuns.Load() != 0 {
		t.Fatalf("job %v ran again (%d runs) while the abandoned handler still held the only slot", rows, secondRuns.Load())
	}
	releaseHandler()
	waitJobState(t, pool, job.ID, "completed", 20*time.Second)
	if secondRuns.Load() != 1 || secondStartedEarly.Load() {
		t.Fatalf("attempt 2 ran %d times (started before the abandoned handler returned: %v), want once, after",
			secondRuns.Load(), secondStartedEarly.Load())
	}
}

// TestFailingFinalizerCallsAreRescuedAtTheAttemptDeadline: the handler
// completes but every complete call fails on the server while the process
// keeps heartbeating. The attempt is closed by the deadline rescue within
// RescueStuckAfter + DeadlineInterval of its claim; once calls work again the
// job runs and completes exactly once, and the first attempt's completion,
// still retried by the completer, is reported stale and changes nothing.
func TestFailingFinalizerCallsAreRescuedAtTheAttemptDeadline(t *testing.T) {
	ctx, pool := parallelDB(t, 2*time.Minute)
	restore := failCompletions(t, pool)
	workers, runs := countingWorkers[stuckArgs]()
	const stuckAfter = 2 * time.Second
	m := fastMaintenance() // DeadlineInterval 200ms
	log, rec := testLogger(t, "client")
	client := startClient(t, pool, &driver.Config{
		Queues:                 map[string]driver.QueueConfig{"fin": {MaxWorkers: 2}},
		Workers:                workers,
		Logger:                 log,
		FetchPollInterval:      50 * time.Millisecond,
		JobTimeout:             500 * time.Millisecond,
		RescueStuckAfter:       stuckAfter,
		CompleterRetryInterval: 300 * time.Millisecond,
		Maintenance:            m,
	})
	job, err := client.Insert(ctx, stuckArgs{}, &driver.InsertOpts{Queue: "fin", MaxAttempts: 3})
	if err != nil {
		t.Fatal(err)
	}
	snap := waitJobState(t, pool, job.ID, "retryable", 30*time.Second)
	var lateness time.Duration
	var outcome string
	err = pool.QueryRow(ctx, `
		SELECT c.closed_at - b.claimed_at, c.outcome
		FROM awa.claim_batches b JOIN awa.claim_closures c
		  ON c.claim_slot = b.claim_slot AND c.receipts @> awa._receipt_id(b.batch_id, 1)
		WHERE b.job_ids[1] = $1 AND b.run_leases[1] = 1`, job.ID).Scan(&lateness, &outcome)
	if err != nil {
		t.Fatalf("read attempt 1's claim and closure: %v", err)
	}
	if outcome != "deadline_expired" || !errorsContain(snap.Errors, "deadline exceeded") {
		t.Fatalf("attempt 1 closed as %q with errors %+v, want the deadline rescue", outcome, snap.Errors)
	}
	if bound := stuckAfter + m.DeadlineInterval + time.Second; lateness > bound || lateness < stuckAfter {
		t.Fatalf("attempt 1 closed %s after its claim, want between RescueStuckAfter (%s) and "+
			"RescueStuckAfter + DeadlineInterval (+1s slack) = %s", lateness, stuckAfter, bound)
	}
	if age := heartbeatAge(t, pool, client.InstanceID()); age > 10*time.Second {
		t.Fatalf("the process's heartbeat is %s old: the test needs a heartbeating process", age)
	}
	if len(rec.find("Finalizer call failed", nil)) == 0 {
		t.Fatal("no finalizer call failed: the injected failure did not work")
	}

	restore()
	final := waitJobState(t, pool, job.ID, "completed", 30*time.Second)
	waitFor(t, 30*time.Second, "attempt 1's completion to be reported stale", func() (bool, string) {
		n := len(rec.find("Stale result dropped", func(e logEntry) bool {
			return e.Attrs["job_id"] == job.ID && e.Attrs["run_lease"] == int64(1)
		}))
		return n == 1, fmt.Sprintf("%d stale logs", n)
	})
	rows := jobRows(t, pool, job.ID)
	if len(rows) != 1 || rows[0].State != "completed" || rows[0].Attempt != 2 || rows[0].RunLease != final.RunLease {
		t.Fatalf("job is %v after the stale completion, want completed by attempt 2 (%v)", rows, final)
	}
	if n := completions(t, pool, job.ID); n != 1 || runs.Load() != 2 {
		t.Fatalf("job completed %d times in %d runs, want 1 completion after 2 runs", n, runs.Load())
	}
}

// TestStrandedAttemptEndsWhileItsProcessHeartbeats is the regression of
// observation 5: finalizer calls fail for longer than the completer's fast
// retries while the process heartbeats. The completer must not give the
// result up (on the old main it did, and the attempt stayed running for
// ever): once calls work again the completion is applied, by attempt 1, and
// the job ran once.
func TestStrandedAttemptEndsWhileItsProcessHeartbeats(t *testing.T) {
	ctx, pool := parallelDB(t, 2*time.Minute)
	restore := failCompletions(t, pool)
	workers, runs := countingWorkers[stuckArgs]()
	log, rec := testLogger(t, "client")
	client := startClient(t, pool, workConfig("strand", 2, workers, log, &driver.Config{
		CompleterRetryInterval: 300 * time.Millisecond,
	}))
	job, err := client.Insert(ctx, stuckArgs{}, &driver.InsertOpts{Queue: "strand", MaxAttempts: 3})
	if err != nil {
		t.Fatal(err)
	}
	// Past the fast retries (about 5s of backoff).
	waitFor(t, 30*time.Second, "the fast retries to be exhausted", func() (bool, string) {
		return len(rec.find("Finalizer call keeps failing", nil)) > 0, fmt.Sprintf("%d failed calls",
			len(rec.find("Finalizer call failed", nil)))
	})
	time.Sleep(time.Second)
	if rows := jobRows(t, pool, job.ID); len(rows) != 1 || rows[0].State != "running" {
		t.Fatalf("job is %v while completions fail, want running", rows)
	}
	restore()
	final := waitJobState(t, pool, job.ID, "completed", 10*time.Second)
	if final.Attempt != 1 || runs.Load() != 1 || completions(t, pool, job.ID) != 1 {
		t.Fatalf("completed row %v after %d runs, want completed once by attempt 1", final, runs.Load())
	}
	if age := heartbeatAge(t, pool, client.InstanceID()); age > 10*time.Second {
		t.Fatalf("the process's heartbeat is %s old: the test needs a heartbeating process", age)
	}
}

// TestConfigRescueStuckAfterMustExceedJobTimeout: a RescueStuckAfter not above
// JobTimeout, or a negative one, or a negative JobTimeoutGrace, is an error.
func TestConfigRescueStuckAfterMustExceedJobTimeout(t *testing.T) {
	t.Parallel()
	pool := pgtest.NewDB(t)
	for _, tc := range []struct {
		name string
		cfg  driver.Config
		want string
	}{
		{"equal", driver.Config{JobTimeout: time.Minute, RescueStuckAfter: time.Minute}, "must exceed JobTimeout"},
		{"below", driver.Config{JobTimeout: 2 * time.Hour}, "must exceed JobTimeout"},
		{"negative", driver.Config{RescueStuckAfter: -time.Second}, "RescueStuckAfter must be positive"},
		{"negative grace", driver.Config{JobTimeoutGrace: -time.Second}, "JobTimeoutGrace must not be negative"},
	} {
		c, err := driver.NewClient(pool, &tc.cfg)
		if err == nil || !strings.Contains(err.Error(), tc.want) || c != nil {
			t.Errorf("%s: NewClient = %v, %v; want an error containing %q", tc.name, c, err, tc.want)
		}
	}
	for _, cfg := range []driver.Config{
		{},               // defaults: a minute vs an hour
		{JobTimeout: -1}, // no timeout
		{JobTimeout: 2 * time.Hour, RescueStuckAfter: 3 * time.Hour},
	} {
		if _, err := driver.NewClient(pool, &cfg); err != nil {
			t.Errorf("NewClient(%+v) = %v, want no error", cfg, err)
		}
	}
}

// TestStopAndCancelAbandonsAHandlerIgnoringItsContext: StopAndCancel ends
// every handler's context; one that ignores it is abandoned JobTimeoutGrace
// later, so Stop returns (instead of waiting for ever) and the attempt is
// retried, not left running.
func TestStopAndCancelAbandonsAHandlerIgnoringItsContext(t *testing.T) {
	ctx, pool := parallelDB(t, time.Minute)
	release := make(chan struct{})
	defer close(release)
	started := make(chan struct{}, 1)
	workers := workersFor(func(ctx context.Context, j *driver.Job[stuckArgs]) error {
		started <- struct{}{}
		<-release
		return nil
	})
	const grace = 500 * time.Millisecond
	log, rec := testLogger(t, "client")
	client := startClient(t, pool, workConfig("hard", 1, workers, log, &driver.Config{
		JobTimeoutGrace: grace,
	}))
	job, err := client.Insert(ctx, stuckArgs{}, &driver.InsertOpts{Queue: "hard", MaxAttempts: 3})
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-started:
	case <-ctx.Done():
		t.Fatal("the job never started")
	}
	t0 := time.Now()
	if err := stopWithin(t, 20*time.Second, "StopAndCancel", func() error { return client.StopAndCancel(ctx) }); err != nil {
		t.Fatalf("StopAndCancel: %v", err)
	}
	if took := time.Since(t0); took < grace || took > grace+5*time.Second {
		t.Fatalf("StopAndCancel took %s, want about JobTimeoutGrace (%s)", took, grace)
	}
	rows := jobRows(t, pool, job.ID)
	if len(rows) != 1 || rows[0].State != "retryable" || !errorsContain(rows[0].Errors, "after the client stopped and cancelled it") {
		t.Fatalf("after StopAndCancel job is %v, want retryable, abandoned after the stop", rows)
	}
	if len(rec.find("Handler did not return within its timeout", nil)) != 1 {
		t.Fatal("the abandonment was not logged")
	}
}

// TestOnePoisonResultDoesNotBlockTheOthers: two results share a failing
// complete call; only one of them makes calls fail (a trigger rejects the
// closure of that job's receipt). After the fast retries the completer tries
// them one per call: the other job completes, the poison one stays running
// (retried, until its deadline or until calls work), and completes once the
// failure is gone.
func TestOnePoisonResultDoesNotBlockTheOthers(t *testing.T) {
	ctx, pool := parallelDB(t, 2*time.Minute)
	if _, err := pool.Exec(ctx, `
		CREATE TABLE public.poison (job_id bigint);
		CREATE FUNCTION public.test_poison() RETURNS trigger LANGUAGE plpgsql AS $$
		BEGIN
		  IF EXISTS (SELECT 1 FROM awa.claim_batches b,
		                  unnest(b.job_ids) WITH ORDINALITY AS u (job_id, k)
		             WHERE b.claim_slot = NEW.claim_slot AND u.job_id IN (SELECT job_id FROM public.poison)
		               AND NEW.receipts @> awa._receipt_id(b.batch_id, u.k)) THEN
		    RAISE EXCEPTION 'test: poison result' USING ERRCODE = 'XX000';
		  END IF;
		  RETURN NEW;
		END $$;
		CREATE TRIGGER test_poison BEFORE INSERT ON awa.claim_closures
		FOR EACH ROW WHEN (NEW.outcome = 'completed') EXECUTE FUNCTION public.test_poison();`); err != nil {
		t.Fatalf("install the poison trigger: %v", err)
	}
	gate := make(chan struct{})
	var started atomic.Int64
	workers := workersFor(func(ctx context.Context, j *driver.Job[stuckArgs]) error {
		started.Add(1)
		<-gate // both finish together, so they share a complete call
		return nil
	})
	log, rec := testLogger(t, "client")
	client := startClient(t, pool, workConfig("poison", 2, workers, log, &driver.Config{
		CompleterFlushInterval: 200 * time.Millisecond,
		CompleterRetryInterval: 300 * time.Millisecond,
	}))
	jobs, err := client.InsertMany(ctx, []driver.InsertManyParams{
		{Args: stuckArgs{}, Opts: &driver.InsertOpts{Queue: "poison"}},
		{Args: stuckArgs{}, Opts: &driver.InsertOpts{Queue: "poison"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	bad, good := jobs[0].ID, jobs[1].ID
	if _, err := pool.Exec(ctx, `INSERT INTO public.poison VALUES ($1)`, bad); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 20*time.Second, "both jobs to start", func() (bool, string) {
		return started.Load() == 2, fmt.Sprintf("%d started", started.Load())
	})
	close(gate)
	waitFor(t, 30*time.Second, "the shared call to fail past its fast retries", func() (bool, string) {
		keeps := rec.find("Finalizer call keeps failing", func(e logEntry) bool { return e.Attrs["jobs"] == int64(2) })
		return len(keeps) == 1, fmt.Sprintf("%d failed calls", len(rec.find("Finalizer call failed", nil)))
	})
	waitJobState(t, pool, good, "completed", 10*time.Second)
	time.Sleep(time.Second) // several slow rounds
	if rows := jobRows(t, pool, bad); len(rows) != 1 || rows[0].State != "running" {
		t.Fatalf("poison job is %v, want still running (its completion keeps failing)", rows)
	}
	if _, err := pool.Exec(ctx, `DELETE FROM public.poison`); err != nil {
		t.Fatal(err)
	}
	final := waitJobState(t, pool, bad, "completed", 10*time.Second)
	if final.Attempt != 1 || started.Load() != 2 || completions(t, pool, bad) != 1 || completions(t, pool, good) != 1 {
		t.Fatalf("poison job %v after %d runs, want each job completed once by attempt 1", final, started.Load())
	}
}

// TestStopLeavesResultsItCannotFinalizeToRescue: a graceful Stop while
// completions fail makes one last attempt, logs the results it leaves and
// returns; the attempt stays open for rescue (the process's heartbeat stops).
func TestStopLeavesResultsItCannotFinalizeToRescue(t *testing.T) {
	ctx, pool := parallelDB(t, time.Minute)
	failCompletions(t, pool)
	workers := workersFor(func(ctx context.Context, j *driver.Job[stuckArgs]) error { return nil })
	log, rec := testLogger(t, "client")
	client := startClient(t, pool, workConfig("last", 1, workers, log, &driver.Config{
		CompleterRetryInterval: 300 * time.Millisecond,
	}))
	job, err := client.Insert(ctx, stuckArgs{}, &driver.InsertOpts{Queue: "last"})
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, 30*time.Second, "the fast retries to be exhausted", func() (bool, string) {
		return len(rec.find("Finalizer call keeps failing", nil)) > 0, "not yet"
	})
	before := len(rec.find("Finalizer retries still failing", nil))
	if err := stopWithin(t, 20*time.Second, "Stop", func() error { return client.Stop(ctx) }); err != nil {
		t.Fatalf("Stop: %v", err)
	}
	if len(rec.find("Finalizer retries still failing", nil)) <= before {
		t.Fatal("Stop made no last attempt")
	}
	left := rec.find("Stopping with results that could not be finalized", nil)
	if len(left) != 1 || fmt.Sprint(left[0].Attrs["job_ids"]) != fmt.Sprint([]int64{job.ID}) {
		t.Fatalf("Stop logged %+v, want one record naming job %d", left, job.ID)
	}
	if rows := jobRows(t, pool, job.ID); len(rows) != 1 || rows[0].State != "running" {
		t.Fatalf("after Stop the job is %v, want running (left to rescue)", rows)
	}
}
