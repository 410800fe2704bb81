package driver_test

// The per-attempt execution path (queue_runner.go execute, deadline.go's
// handler context, cancel.go's attempt set, completer.go), pinned from
// outside with real clients on real databases: what a handler's context
// does after the handler returns, when its attempt is rescued, when Stop
// cancels thousands of attempts as they start, when many SetDeadline calls
// race, and what the completer does with a flood of results while the
// database stalls. A rewrite of that path for speed must keep every one.

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/awa-queue/awa/driver"
	"github.com/awa-queue/awa/internal/pgtest"
)

// TestHandlerContextIsDoneOnceItsHandlerReturns: a handler that keeps its
// context (and one derived from it) after returning finds it done, with an
// error, by the time the next job of its queue starts (one worker: the next
// job waits for the slot the first gives back), and every later handler gets
// a context of its own, not a finished one made alive again.
func TestHandlerContextIsDoneOnceItsHandlerReturns(t *testing.T) {
	ctx, pool := parallelDB(t, time.Minute)
	const n = 6
	var mu sync.Mutex
	var kept []context.Context // each handler's context and a context derived from it
	var problems []string
	workers := workersFor(func(hctx context.Context, j *driver.Job[execArgs]) error {
		mu.Lock()
		defer mu.Unlock()
		for i, old := range kept {
			if old.Err() == nil {
				problems = append(problems, fmt.Sprintf("job %d started while kept context %d (of an earlier handler) was not done", j.Args.N, i))
			}
			select {
			case <-old.Done():
			default:
				problems = append(problems, fmt.Sprintf("job %d started while kept context %d's Done was open", j.Args.N, i))
			}
			if old.Done() == hctx.Done() {
				problems = append(problems, fmt.Sprintf("job %d got kept context %d's Done channel", j.Args.N, i))
			}
		}
		if hctx.Err() != nil {
			problems = append(problems, fmt.Sprintf("job %d started with a done context: %v", j.Args.N, hctx.Err()))
		}
		derived, cancel := context.WithCancel(hctx)
		_ = cancel // never called: only the handler's end may end it
		kept = append(kept, hctx, derived)
		return nil
	})
	log, _ := testLogger(t, "client")
	client := startClient(t, pool, workConfig("keepctx", 1, workers, log, nil))
	ids := insertExec(t, ctx, client, "keepctx", n, threeAttempts)
	for _, id := range ids {
		waitJobState(t, pool, id, "completed", 20*time.Second)
	}
	waitFor(t, 5*time.Second, "every kept context to be done", func() (bool, string) {
		mu.Lock()
		defer mu.Unlock()
		for i, c := range kept {
			if c.Err() == nil {
				return false, fmt.Sprintf("kept context %d of %d not done", i, len(kept))
			}
		}
		return len(kept) == 2*n, fmt.Sprintf("%d contexts kept", len(kept))
	})
	mu.Lock()
	defer mu.Unlock()
	if len(problems) > 0 {
		t.Fatalf("%d problems:\n%s", len(problems), strings.Join(problems, "\n"))
	}
}

// TestRescueCancelsTheRunningHandlerWithErrAttemptClosed: a rescue closes an
// attempt whose handler still runs, with its context alive (the deadline
// rescue run with a clock past the claim's deadline; the stale-claim rescue
// run with a clock past the heartbeat's staleness). No notification is sent
// for a rescue: the heartbeat's awa.closed_attempts finds it, and the
// handler's context ends with cause ErrAttemptClosed within one heartbeat
// interval (plus slack). The attempt's late result is stale: the job is
// retryable with the rescue's error only.
func TestRescueCancelsTheRunningHandlerWithErrAttemptClosed(t *testing.T) {
	for _, tc := range []struct{ name, rescue string }{
		{"deadline", `SELECT count(*) FROM awa.rescue_expired_deadlines(1000, now() + interval '3 hours')`},
		{"stale", `SELECT count(*) FROM awa.rescue_stale_claims(interval '90 seconds', 1000, now() + interval '1 hour')`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, pool := parallelDB(t, 2*time.Minute)
			started := make(chan struct{}, 1)
			cause := make(chan error, 1)
			workers := workersFor(func(hctx context.Context, j *driver.Job[execArgs]) error {
				started <- struct{}{}
				select {
				case <-hctx.Done():
					cause <- context.Cause(hctx)
					return hctx.Err()
				case <-time.After(40 * time.Second):
					cause <- errors.New("the handler's context was never cancelled")
					return nil
				}
			})
			log, rec := testLogger(t, "client")
			const heartbeat = 300 * time.Millisecond
			client := startClient(t, pool, workConfig("rescued", 2, workers, log, &driver.Config{HeartbeatInterval: heartbeat}))
			ids := insertExec(t, ctx, client, "rescued", 1, threeAttempts)
			select {
			case <-started:
			case <-ctx.Done():
				t.Fatal("the handler never started")
			}
			var rescued int
			if err := pool.QueryRow(ctx, tc.rescue).Scan(&rescued); err != nil || rescued != 1 {
				t.Fatalf("rescue: %v, %d attempts rescued; want 1", err, rescued)
			}
			at := time.Now()
			bound := heartbeat + 3*time.Second
			select {
			case c := <-cause:
				if !errors.Is(c, driver.ErrAttemptClosed) {
					t.Fatalf("the handler's context ended with cause %v, want ErrAttemptClosed", c)
				}
				if took := time.Since(at); took > bound {
					t.Fatalf("the handler's context ended %s after the rescue, want within %s", took, bound)
				}
			case <-time.After(bound + 5*time.Second):
				t.Fatalf("the handler's context was not cancelled %s after the rescue", bound+5*time.Second)
			}
			// The rescue's clock is hours ahead, so the retry is due then:
			// the job waits retryable, with the rescue's error alone.
			got := waitJobState(t, pool, ids[0], "retryable", 10*time.Second)
			if got.Attempt != 1 || len(got.Errors) != 1 || !strings.HasPrefix(got.Errors[0].Error, "rescued: ") {
				t.Fatalf("job %v; want retryable after attempt 1 with the rescue's error only", got)
			}
			waitFor(t, 10*time.Second, "attempt 1's result to be dropped as stale", func() (bool, string) {
				n := len(rec.find("Stale result dropped", func(e logEntry) bool { return e.Attrs["run_lease"] == int64(1) }))
				return n == 1, fmt.Sprintf("%d stale results of attempt 1", n)
			})
		})
	}
}

// TestStopAndCancelReachesEveryAttemptWhileThousandsStart: 2,000 workers
// over 4,000 jobs whose handlers wait for their context; StopAndCancel comes
// as soon as the first handler runs, as soon as 600 run (the first claim's
// 1,024 still being handed to workers and starting), and as soon as 1,500
// run (the second claim's). Every handler that started sees its context
// cancelled (context.Canceled; none waits for its 40 s fallback, none is
// abandoned), StopAndCancel returns with every one of them finished and its
// attempt retryable, no job is left running, and no goroutine outlives the
// pool.
func TestStopAndCancelReachesEveryAttemptWhileThousandsStart(t *testing.T) {
	dsn := pgtest.NewDBDSN(t)
	base := baselineGoroutines()
	pool := openPool(t, dsn)
	ctx := pgtest.Context(t, 6*time.Minute)
	const workersN, jobs = 2000, 4000

	for round, stopAt := range []int64{1, 600, 1500} {
		queue := fmt.Sprintf("thousands_%d", round)
		var started, finished, cancelled, missed, other atomic.Int64
		stopNow := make(chan struct{})
		var stopOnce sync.Once
		workers := workersFor(func(hctx context.Context, j *driver.Job[execArgs]) error {
			defer finished.Add(1)
			if started.Add(1) == stopAt {
				stopOnce.Do(func() { close(stopNow) })
			}
			select {
			case <-hctx.Done():
				if errors.Is(hctx.Err(), context.Canceled) {
					cancelled.Add(1)
				} else {
					other.Add(1)
				}
				return hctx.Err()
			case <-time.After(40 * time.Second):
				missed.Add(1)
				return nil
			}
		})
		log, rec := testLogger(t, queue)
		client, err := driver.NewClient(pool, workConfig(queue, workersN, workers, log, &driver.Config{
			JobTimeout:      2 * time.Minute,
			JobTimeoutGrace: time.Minute,
		}))
		if err != nil {
			t.Fatal(err)
		}
		insertExec(t, ctx, client, queue, jobs, threeAttempts)
		if err := client.Start(ctx); err != nil {
			t.Fatal(err)
		}
		select {
		case <-stopNow:
		case <-ctx.Done():
			t.Fatalf("round %d: only %d handlers started", round, started.Load())
		}
		err = stopWithin(t, 90*time.Second, "StopAndCancel", func() error {
			sctx, cancel := context.WithTimeout(context.Background(), 75*time.Second)
			defer cancel()
			return client.StopAndCancel(sctx)
		})
		if err != nil {
			t.Fatalf("round %d: StopAndCancel: %v", round, err)
		}
		s, f := started.Load(), finished.Load()
		t.Logf("round %d (stop at the start of handler %d): %d handlers started", round, stopAt, s)
		if f != s || cancelled.Load() != s || missed.Load() != 0 || other.Load() != 0 {
			t.Fatalf("round %d, at StopAndCancel's return: %d started, %d finished, %d saw context.Canceled, %d another "+
				"error, %d never saw the cancel; want every started handler cancelled and finished",
				round, s, f, cancelled.Load(), other.Load(), missed.Load())
		}
		if n := len(rec.find("did not return within its timeout", nil)) + len(rec.find("Abandoned handler", nil)); n != 0 {
			t.Fatalf("round %d: %d handlers were abandoned, want none", round, n)
		}
		var running, retryable int
		if err := pool.QueryRow(ctx, `SELECT count(*) FILTER (WHERE state = 'running'), count(*) FILTER (WHERE state = 'retryable')
			FROM awa.jobs WHERE queue = $1`, queue).Scan(&running, &retryable); err != nil {
			t.Fatal(err)
		}
		if running != 0 || retryable != int(s) {
			t.Fatalf("round %d: after StopAndCancel %d jobs are running and %d retryable; want none running and the %d started ones retryable",
				round, running, retryable, s)
		}
	}
	closeAndCheck(t, pool, base, "after StopAndCancel of 2,000 workers and pool.Close")
}

// TestConcurrentSetDeadlineCallsEndAtTheLastOne: 16 handlers each move their
// attempt's deadline 40 times from 4 goroutines at once (each call a time 20
// to 40 s ahead), then once more, alone, to 4 s after they started: past
// their 3 s timeout. Every call succeeds; the handler's context and a context
// it derived before the calls report that last deadline and end at it (not
// at the timeout, not before), with context.DeadlineExceeded; a context
// derived with a shorter timeout of its own ended at that one.
func TestConcurrentSetDeadlineCallsEndAtTheLastOne(t *testing.T) {
	ctx, pool := parallelDB(t, 2*time.Minute)
	const handlers = 16
	var mu sync.Mutex
	var problems []string
	problem := func(format string, args ...any) {
		mu.Lock()
		problems = append(problems, fmt.Sprintf(format, args...))
		mu.Unlock()
	}
	var done sync.WaitGroup
	done.Add(handlers)
	workers := workersFor(func(hctx context.Context, j *driver.Job[execArgs]) error {
		defer done.Done()
		start := time.Now()
		child, cancelChild := context.WithCancel(hctx)
		defer cancelChild()
		short, cancelShort := context.WithTimeout(hctx, 50*time.Millisecond)
		defer cancelShort()
		shortDeadline, _ := short.Deadline()

		var calls sync.WaitGroup
		for g := 0; g < 4; g++ {
			calls.Add(1)
			go func() {
				defer calls.Done()
				for i := 0; i < 10; i++ {
					at := time.Now().Add(20*time.Second + time.Duration(rand.IntN(20000))*time.Millisecond)
					if err := j.SetDeadline(hctx, at); err != nil {
						problem("job %d: concurrent SetDeadline: %v", j.Args.N, err)
						return
					}
				}
			}()
		}
		calls.Wait()
		last := start.Add(4 * time.Second)
		if time.Until(last) < 200*time.Millisecond {
			problem("job %d: the concurrent calls took %s, too long for the test's 4 s deadline", j.Args.N, time.Since(start))
			return nil
		}
		if err := j.SetDeadline(hctx, last); err != nil {
			problem("job %d: last SetDeadline: %v", j.Args.N, err)
			return err
		}
		for name, c := range map[string]context.Context{"handler's": hctx, "derived": child} {
			if d, ok := c.Deadline(); !ok || d.Sub(last).Abs() > time.Microsecond {
				problem("job %d: the %s context's Deadline() = %v, %v after the last call; want %v", j.Args.N, name, d, ok, last)
			}
		}
		if d, _ := short.Deadline(); !d.Equal(shortDeadline) || !errors.Is(short.Err(), context.DeadlineExceeded) {
			problem("job %d: the context with a 50 ms timeout of its own: Deadline() %v (was %v), err %v; want its own, ended",
				j.Args.N, d, shortDeadline, short.Err())
		}
		select {
		case <-child.Done():
		case <-time.After(time.Until(last) + 10*time.Second):
			problem("job %d: the derived context did not end 10 s after the last deadline", j.Args.N)
			return nil
		}
		endedAt := time.Now()
		if endedAt.Before(last.Add(-time.Millisecond)) {
			problem("job %d: the derived context ended %s before the last deadline (err %v)", j.Args.N, last.Sub(endedAt), child.Err())
		}
		if !errors.Is(hctx.Err(), context.DeadlineExceeded) || !errors.Is(child.Err(), context.DeadlineExceeded) {
			problem("job %d: ended with %v (derived %v), want context.DeadlineExceeded", j.Args.N, hctx.Err(), child.Err())
		}
		return nil
	})
	log, _ := testLogger(t, "client")
	client := startClient(t, pool, workConfig("deadlines_race", handlers, workers, log,
		&driver.Config{JobTimeout: 3 * time.Second, JobTimeoutGrace: 30 * time.Second}))
	insertExec(t, ctx, client, "deadlines_race", handlers, threeAttempts)
	waited := make(chan struct{})
	go func() { done.Wait(); close(waited) }()
	select {
	case <-waited:
	case <-ctx.Done():
		t.Fatal("the handlers did not all return")
	}
	mu.Lock()
	defer mu.Unlock()
	if len(problems) > 0 {
		t.Fatalf("%d problems:\n%s", len(problems), strings.Join(problems, "\n"))
	}
}

// TestCompleterFloodWhileTheDatabaseStallsCompletesEachJobOnce: 3,000 quick
// jobs on 100 workers; once 500 handlers ran, a session holds the closure
// table (ACCESS EXCLUSIVE on awa.claim_closures) for 3 s, so every finalizer
// call waits while handlers keep finishing and their results pile up. Once
// it lets go, every job is completed exactly once and each handler ran once:
// no result lost, none finalized twice, no attempt rescued or retried.
func TestCompleterFloodWhileTheDatabaseStallsCompletesEachJobOnce(t *testing.T) {
	ctx, pool := parallelDB(t, 3*time.Minute)
	const jobs = 3000
	var runs runCounts
	var ran atomic.Int64
	workers := workersFor(func(hctx context.Context, j *driver.Job[execArgs]) error {
		runs.add(j.ID)
		ran.Add(1)
		return nil
	})
	log, _ := testLogger(t, "client")
	client := startClient(t, pool, workConfig("flood", 100, workers, log, &driver.Config{CompleterBatchSize: 50}))
	ids := insertExec(t, ctx, client, "flood", jobs, threeAttempts)

	waitFor(t, time.Minute, "500 handlers to run", func() (bool, string) {
		return ran.Load() >= 500, fmt.Sprintf("%d ran", ran.Load())
	})
	// The stall and its watch use a pool of their own: the client's, its
	// connections waiting on the lock, could not serve them.
	side := openPool(t, pool.Config().ConnString())
	tx, err := side.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(ctx, `LOCK TABLE awa.claim_closures IN ACCESS EXCLUSIVE MODE`); err != nil {
		t.Fatal(err)
	}
	ranAtStall := ran.Load()
	stalledCalls := 0
	for end := time.Now().Add(3 * time.Second); time.Now().Before(end); time.Sleep(100 * time.Millisecond) {
		var n int
		if err := side.QueryRow(ctx, `SELECT count(*) FROM pg_stat_activity
			WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE '%complete_jobs%'`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		stalledCalls = max(stalledCalls, n)
	}
	ranInStall := ran.Load() - ranAtStall
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	if stalledCalls == 0 || ranInStall == 0 {
		t.Fatalf("the stall did not hold the completer (%d complete_jobs calls seen waiting) or no handler ran during it (%d)",
			stalledCalls, ranInStall)
	}
	t.Logf("%d handlers finished while the completer's calls waited", ranInStall)

	waitFor(t, 2*time.Minute, "every job to complete", func() (bool, string) {
		c := stateCounts(t, ctx, pool)
		return c["completed"] == jobs, fmt.Sprint(c)
	})
	var rows, distinct int
	if err := pool.QueryRow(ctx, `SELECT count(*), count(DISTINCT id) FROM awa.terminal_jobs WHERE state = 'completed'`).
		Scan(&rows, &distinct); err != nil {
		t.Fatal(err)
	}
	if rows != jobs || distinct != jobs {
		t.Fatalf("%d completion rows of %d jobs, want %d of %d", rows, distinct, jobs, jobs)
	}
	for _, id := range ids {
		if n := runs.get(id); n != 1 {
			t.Fatalf("job %d's handler ran %d times, want once", id, n)
		}
	}
	var attempts int
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM awa.jobs WHERE attempt <> 1`).Scan(&attempts); err != nil {
		t.Fatal(err)
	}
	if attempts != 0 {
		t.Fatalf("%d jobs ran more than one attempt, want none", attempts)
	}
}

// threeAttempts gives every job inserted with insertExec 3 attempts.
func threeAttempts(int) driver.InsertOpts { return driver.InsertOpts{MaxAttempts: 3} }

// timedArgs carries its job's timeout (WorkerTimeout from the args).
type timedArgs struct {
	N         int `json:"n"`
	TimeoutMS int `json:"timeout_ms"`
}

func (timedArgs) Kind() string { return "timed_kind" }

// timedWorker waits for its context and records, per job, the deadline its
// context reported, when it ended and with what.
type timedWorker struct {
	mu  sync.Mutex
	saw map[int]timedSaw
}

type timedSaw struct {
	start, deadline, ended time.Time
	err                    error
}

func (w *timedWorker) Timeout(j *driver.Job[timedArgs]) time.Duration {
	return time.Duration(j.Args.TimeoutMS) * time.Millisecond
}

func (w *timedWorker) Work(ctx context.Context, j *driver.Job[timedArgs]) error {
	s := timedSaw{start: time.Now()}
	s.deadline, _ = ctx.Deadline()
	select {
	case <-ctx.Done():
		s.ended, s.err = time.Now(), ctx.Err()
	case <-time.After(30 * time.Second):
	}
	w.mu.Lock()
	w.saw[j.Args.N] = s
	w.mu.Unlock()
	return nil
}

// TestAttemptsRunOneAfterAnotherEachEndAtTheirOwnTimeout: one worker runs 12
// jobs in turn (each waits for its context), their timeouts alternating long
// and short (400, 60, 250, 30 ms, ...): whatever the previous attempt on the
// same worker armed, each handler's context reports its own deadline (its
// start plus its timeout) and ends at it, with context.DeadlineExceeded:
// never before it, and not long after.
func TestAttemptsRunOneAfterAnotherEachEndAtTheirOwnTimeout(t *testing.T) {
	ctx, pool := parallelDB(t, 2*time.Minute)
	w := &timedWorker{saw: map[int]timedSaw{}}
	workers := driver.NewWorkers()
	driver.AddWorker[timedArgs](workers, w)
	log, _ := testLogger(t, "client")
	client := startClient(t, pool, workConfig("one_worker", 1, workers, log, &driver.Config{JobTimeoutGrace: 30 * time.Second}))
	timeouts := []int{400, 60, 250, 30, 500, 40, 300, 20, 350, 80, 200, 50}
	params := make([]driver.InsertManyParams, len(timeouts))
	for i, ms := range timeouts {
		params[i] = driver.InsertManyParams{Args: timedArgs{N: i, TimeoutMS: ms}, Opts: &driver.InsertOpts{Queue: "one_worker", MaxAttempts: 1}}
	}
	if _, err := client.InsertMany(ctx, params); err != nil {
		t.Fatal(err)
	}
	waitFor(t, time.Minute, "every handler to return", func() (bool, string) {
		w.mu.Lock()
		defer w.mu.Unlock()
		return len(w.saw) == len(timeouts), fmt.Sprintf("%d of %d returned", len(w.saw), len(timeouts))
	})
	w.mu.Lock()
	defer w.mu.Unlock()
	var problems []string
	for i, ms := range timeouts {
		s := w.saw[i]
		want := time.Duration(ms) * time.Millisecond
		if got := s.deadline.Sub(s.start); got > want || got < want-250*time.Millisecond {
			problems = append(problems, fmt.Sprintf("job %d (timeout %s): its context's deadline was %s after its start", i, want, got))
		}
		switch {
		case s.ended.IsZero():
			problems = append(problems, fmt.Sprintf("job %d (timeout %s): its context never ended", i, want))
		case s.ended.Before(s.deadline):
			problems = append(problems, fmt.Sprintf("job %d (timeout %s): its context ended %s before its deadline", i, want, s.deadline.Sub(s.ended)))
		case s.ended.Sub(s.deadline) > 2*time.Second:
			problems = append(problems, fmt.Sprintf("job %d (timeout %s): its context ended %s after its deadline", i, want, s.ended.Sub(s.deadline)))
		case !errors.Is(s.err, context.DeadlineExceeded):
			problems = append(problems, fmt.Sprintf("job %d (timeout %s): its context ended with %v", i, want, s.err))
		}
	}
	if len(problems) > 0 {
		t.Fatalf("%d problems:\n%s", len(problems), strings.Join(problems, "\n"))
	}
}

type ctxKey struct{}

// TestOperatorCancelCauseReachesEveryDerivedContext: a handler derives
// contexts of every kind from its own (WithCancel, WithTimeout, WithValue,
// WithCancelCause, WithoutCancel, and an AfterFunc registration) and an
// operator cancels its job. The handler's context ends with
// context.Canceled and cause ErrAttemptClosed, and so does every derived
// context, whether derived before the cancel or after it; the AfterFunc
// runs; the context made WithoutCancel does not end; the Start context's
// values still reach the handler through each of them.
func TestOperatorCancelCauseReachesEveryDerivedContext(t *testing.T) {
	ctx, pool := parallelDB(t, time.Minute)
	started := make(chan struct{}, 1)
	report := make(chan []string, 1)
	workers := workersFor(func(hctx context.Context, j *driver.Job[execArgs]) error {
		var problems []string
		derived := map[string]context.Context{}
		c1, cancel1 := context.WithCancel(hctx)
		defer cancel1()
		c2, cancel2 := context.WithTimeout(hctx, time.Minute)
		defer cancel2()
		c3 := context.WithValue(hctx, ctxKey{}, "derived")
		c4, cancel4 := context.WithCancelCause(hctx)
		defer cancel4(nil)
		derived["WithCancel"], derived["WithTimeout"], derived["WithValue"], derived["WithCancelCause"] = c1, c2, c3, c4
		without := context.WithoutCancel(hctx)
		after := make(chan struct{})
		stop := context.AfterFunc(hctx, func() { close(after) })
		defer stop()
		started <- struct{}{}
		select {
		case <-hctx.Done():
		case <-time.After(30 * time.Second):
			report <- []string{"the handler's context was not cancelled"}
			return nil
		}
		c5, cancel5 := context.WithCancel(hctx)
		defer cancel5()
		c6 := context.WithValue(hctx, ctxKey{}, "late")
		derived["WithCancel after the cancel"], derived["WithValue after the cancel"] = c5, c6
		derived["the handler's"] = hctx
		for name, c := range derived {
			select {
			case <-c.Done():
			case <-time.After(5 * time.Second):
				problems = append(problems, name+": not done 5 s after the handler's context")
				continue
			}
			if !errors.Is(c.Err(), context.Canceled) || !errors.Is(context.Cause(c), driver.ErrAttemptClosed) {
				problems = append(problems, fmt.Sprintf("%s: err %v, cause %v; want context.Canceled, ErrAttemptClosed", name, c.Err(), context.Cause(c)))
			}
			if v, _ := c.Value(startKey{}).(string); v != "start" {
				problems = append(problems, fmt.Sprintf("%s: the Start context's value is %q", name, v))
			}
		}
		select {
		case <-after:
		case <-time.After(5 * time.Second):
			problems = append(problems, "the AfterFunc did not run")
		}
		if without.Err() != nil || context.Cause(without) != nil {
			problems = append(problems, fmt.Sprintf("the WithoutCancel context ended: %v (%v)", without.Err(), context.Cause(without)))
		}
		report <- problems
		return hctx.Err()
	})
	log, _ := testLogger(t, "client")
	client, err := driver.NewClient(pool, workConfig("causes", 1, workers, log, nil))
	if err != nil {
		t.Fatal(err)
	}
	if err := client.Start(context.WithValue(ctx, startKey{}, "start")); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		sctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		_ = client.StopAndCancel(sctx)
	})
	ids := insertExec(t, ctx, client, "causes", 1, threeAttempts)
	select {
	case <-started:
	case <-ctx.Done():
		t.Fatal("the handler never started")
	}
	if _, err := pool.Exec(ctx, `SELECT * FROM awa.cancel_job($1, 'stop it')`, ids[0]); err != nil {
		t.Fatal(err)
	}
	select {
	case problems := <-report:
		if len(problems) > 0 {
			t.Fatalf("%d problems:\n%s", len(problems), strings.Join(problems, "\n"))
		}
	case <-ctx.Done():
		t.Fatal("the handler did not report")
	}
	waitJobState(t, pool, ids[0], "cancelled", 10*time.Second)
}

type startKey struct{}

// TestWeightedJobWhoseDeadlinePassedWhileItWaitedStartsWithAnEndedContext:
// on a queue whose attempts get 1 s (deadline_seconds), a job of weight 2
// is claimed while a job that ignores its context holds one of the two
// slots for 2.5 s: by the time the heavy job has its slots, its attempt's
// deadline has passed (the leader's deadline rescue is off, so the attempt
// is still open). Its handler runs once, with a context whose Deadline is in
// the past and that is done at once (within 200 ms, with
// context.DeadlineExceeded), and the attempt is retried as one that ran past
// its deadline.
func TestWeightedJobWhoseDeadlinePassedWhileItWaitedStartsWithAnEndedContext(t *testing.T) {
	ctx, pool := parallelDB(t, time.Minute)
	secs := 1
	if err := driver.New().ConfigureQueue(ctx, pool, "pastq", driver.QueueOptions{DeadlineSeconds: &secs}); err != nil {
		t.Fatal(err)
	}
	release, releaseBlocker := releaseLatch(t)
	blockerStarted := make(chan struct{}, 1)
	type saw struct {
		doneAtOnce bool
		err        error
		deadline   time.Time
		start      time.Time
	}
	heavySaw := make(chan saw, 2)
	workers := workersFor(func(hctx context.Context, j *driver.Job[execArgs]) error {
		if j.Args.N == 0 {
			blockerStarted <- struct{}{}
			<-release // ignores its context
			return nil
		}
		s := saw{start: time.Now()}
		// Done within 200 ms: the context's timer for a past deadline fires
		// at once, though on its own goroutine (context.WithDeadline would
		// end it before returning it).
		select {
		case <-hctx.Done():
			s.doneAtOnce = true
		case <-time.After(200 * time.Millisecond):
		}
		s.deadline, _ = hctx.Deadline()
		s.err = hctx.Err()
		heavySaw <- s
		return hctx.Err()
	})
	log, _ := testLogger(t, "client")
	cfg := workConfig("pastq", 2, workers, log, &driver.Config{JobTimeoutGrace: 30 * time.Second})
	cfg.Maintenance.DeadlineInterval = time.Hour
	client := startClient(t, pool, cfg)
	if _, err := client.Insert(ctx, execArgs{N: 0}, &driver.InsertOpts{Queue: "pastq", MaxAttempts: 1}); err != nil {
		t.Fatal(err)
	}
	<-blockerStarted
	heavy, err := client.Insert(ctx, execArgs{N: 1}, &driver.InsertOpts{Queue: "pastq", Weight: 2, MaxAttempts: 3})
	if err != nil {
		t.Fatal(err)
	}
	waitJobState(t, pool, heavy.ID, "running", 20*time.Second) // claimed, waiting for its second slot
	time.Sleep(2500 * time.Millisecond)
	releaseBlocker()
	var s saw
	select {
	case s = <-heavySaw:
	case <-ctx.Done():
		t.Fatal("the heavy job's handler never ran")
	}
	if !s.doneAtOnce || !errors.Is(s.err, context.DeadlineExceeded) || !s.deadline.Before(s.start) {
		t.Fatalf("the heavy job's handler started with its context done %v (err %v), deadline %v, started %v; "+
			"want done at once with context.DeadlineExceeded and a deadline in the past", s.doneAtOnce, s.err, s.deadline, s.start)
	}
	got := waitJobState(t, pool, heavy.ID, "retryable", 20*time.Second)
	if got.Attempt != 1 || !errorsContain(got.Errors, "ran past its attempt deadline") {
		t.Fatalf("heavy job %v; want retryable after attempt 1, as one that ran past its attempt deadline", got)
	}
	select {
	case <-heavySaw:
		t.Fatal("the heavy job's handler ran twice")
	default:
	}
}
