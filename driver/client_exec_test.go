package driver_test

// The client's job execution path: claimed jobs go through a buffered
// channel to long-lived worker goroutines; the watchdog that abandons a
// handler ignoring its context hangs on the handler's deadline context and on
// the close of its attempt from outside. These tests attack it with real
// clients on real databases: Stop and StopAndCancel while claimed jobs wait
// for a worker, the watchdog's paths alone and together, weighted jobs, and
// the worker goroutines' count over bursts.
//
// The tests that count goroutines do not call t.Parallel (see
// goroutineBaseline).

import (
	"context"
	"fmt"
	"runtime"
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

type execArgs struct {
	N int `json:"n"`
}

func (execArgs) Kind() string { return "exec_kind" }

// workerGoroutines counts the goroutines running a queue's worker loop, of
// every client in the process: only tests that do not call t.Parallel can
// read it as their own, after noWorkerGoroutines.
func workerGoroutines() int {
	buf := make([]byte, 4<<20)
	buf = buf[:runtime.Stack(buf, true)]
	return strings.Count(string(buf), "driver.(*queueRunner).worker(")
}

// noWorkerGoroutines waits until no worker goroutine of an earlier test's
// client is left (they end once their stopped client's jobs returned).
func noWorkerGoroutines(t *testing.T) {
	t.Helper()
	waitFor(t, 10*time.Second, "the worker goroutines of earlier tests to end", func() (bool, string) {
		w := workerGoroutines()
		return w == 0, fmt.Sprintf("%d worker goroutines", w)
	})
}

// runCounts counts handler runs per job.
type runCounts struct{ m sync.Map }

func (r *runCounts) add(id int64) int32 {
	v, _ := r.m.LoadOrStore(id, new(atomic.Int32))
	return v.(*atomic.Int32).Add(1)
}

func (r *runCounts) get(id int64) int32 {
	v, ok := r.m.Load(id)
	if !ok {
		return 0
	}
	return v.(*atomic.Int32).Load()
}

// stateCounts reads how many jobs of the database are in each state.
func stateCounts(t *testing.T, ctx context.Context, pool *pgxpool.Pool) map[string]int {
	t.Helper()
	rows, err := pool.Query(ctx, `SELECT state::text, count(*) FROM awa.jobs GROUP BY 1`)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]int{}
	for rows.Next() {
		var s string
		var n int
		if err := rows.Scan(&s, &n); err != nil {
			t.Fatal(err)
		}
		out[s] = n
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// insertExec inserts n execArgs jobs on queue, with opts for job i (nil:
// defaults).
func insertExec(t *testing.T, ctx context.Context, c *driver.Client, queue string, n int,
	opts func(i int) driver.InsertOpts) []int64 {
	t.Helper()
	params := make([]driver.InsertManyParams, n)
	for i := range params {
		o := driver.InsertOpts{}
		if opts != nil {
			o = opts(i)
		}
		o.Queue = queue
		params[i] = driver.InsertManyParams{Args: execArgs{N: i}, Opts: &o}
	}
	jobs, err := c.InsertMany(ctx, params)
	if err != nil {
		t.Fatal(err)
	}
	ids := make([]int64, n)
	for i, j := range jobs {
		ids[i] = j.ID
	}
	return ids
}

// TestStopWhileClaimedJobsWaitRunsEveryJobOnce: MaxWorkers 100 over a deep
// backlog of slow jobs, some weighted; each round starts a client and stops it (gracefully
// or with StopAndCancel, alternately) right after its first handler starts,
// a moment when its first claim's jobs sit in the work channel. After every
// stop no job is left running; in the end every job completed exactly once,
// and each handler run was one attempt (runs of a job = its attempt count:
// no attempt ran twice, no run was lost); no goroutine is left.
func TestStopWhileClaimedJobsWaitRunsEveryJobOnce(t *testing.T) {
	dsn := pgtest.NewDBDSN(t)
	base := baselineGoroutines()
	pool := openPool(t, dsn)
	ctx := pgtest.Context(t, 3*time.Minute)
	const queue, n = "stopq", 1500
	var runs runCounts
	first := make(chan struct{}, 1)
	ws := workersFor(func(ctx context.Context, j *driver.Job[execArgs]) error {
		runs.add(j.ID)
		select {
		case first <- struct{}{}:
		default:
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(10 * time.Millisecond):
			return nil
		}
	})
	producer, err := driver.NewClient(pool, nil)
	if err != nil {
		t.Fatal(err)
	}
	// One job in 5 weighs 2 or 3: it waits for its slots on its worker (and
	// the fetch loop waits for it) when a stop comes.
	ids := insertExec(t, ctx, producer, queue, n, func(i int) driver.InsertOpts {
		o := driver.InsertOpts{MaxAttempts: 25}
		if i%5 == 0 {
			o.Weight = 2 + i%2
		}
		return o
	})
	log, _ := testLogger(t, "client")

	for round := 0; round < 8; round++ {
		select {
		case <-first:
		default:
		}
		c, err := driver.NewClient(pool, workConfig(queue, 100, ws, log.With("round", round), nil))
		if err != nil {
			t.Fatal(err)
		}
		if err := c.Start(ctx); err != nil {
			t.Fatal(err)
		}
		select {
		case <-first:
		case <-ctx.Done():
			t.Fatalf("round %d: no handler started", round)
		}
		time.Sleep(time.Duration(round%4) * time.Millisecond) // vary the moment
		stop := c.Stop
		if round%2 == 1 {
			stop = c.StopAndCancel
		}
		if err := stopWithin(t, 30*time.Second, "stop", func() error { return stop(ctx) }); err != nil {
			t.Fatalf("round %d: stop: %v", round, err)
		}
		if s := stateCounts(t, ctx, pool); s["running"] != 0 {
			t.Fatalf("round %d: after the stop returned, jobs by state %v: some are left running", round, s)
		}
	}

	// One last client runs what is left, retries included.
	c := startClient(t, pool, workConfig(queue, 100, ws, log.With("round", "last"), nil))
	waitFor(t, 90*time.Second, "every job to complete", func() (bool, string) {
		s := stateCounts(t, ctx, pool)
		return s["completed"] == n, fmt.Sprint(s)
	})
	if err := stopWithin(t, 30*time.Second, "Stop", func() error { return c.Stop(ctx) }); err != nil {
		t.Fatal(err)
	}
	rows, err := pool.Query(ctx, `SELECT id, attempt, (SELECT count(*) FROM awa.terminal_jobs t WHERE t.id = j.id)
		FROM awa.jobs j WHERE j.id = ANY($1)`, ids)
	if err != nil {
		t.Fatal(err)
	}
	type done struct {
		id           int64
		attempt, fin int
	}
	all, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (done, error) {
		var d done
		return d, r.Scan(&d.id, &d.attempt, &d.fin)
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != n {
		t.Fatalf("%d jobs in awa.jobs, want %d", len(all), n)
	}
	retried := 0
	for _, d := range all {
		if got := runs.get(d.id); int(got) != d.attempt || d.fin != 1 {
			t.Fatalf("job %d: completed at attempt %d with %d terminal rows after %d handler runs; want one run per attempt, one terminal row",
				d.id, d.attempt, d.fin, got)
		}
		if d.attempt > 1 {
			retried++
		}
	}
	t.Logf("%d jobs completed once; %d of them after a StopAndCancel retried them", n, retried)
	closeAndCheck(t, pool, base, "after the stop rounds and pool.Close")
}

// TestIdleWorkersAreReusedAndBounded: a queue bursts to MaxWorkers handlers
// at once, then idles: its worker goroutines number MaxWorkers, no more; a
// second burst and a small third one reuse them (the count does not grow);
// after Stop none is left.
func TestIdleWorkersAreReusedAndBounded(t *testing.T) {
	dsn := pgtest.NewDBDSN(t)
	base := baselineGoroutines()
	pool := openPool(t, dsn)
	ctx := pgtest.Context(t, 2*time.Minute)
	noWorkerGoroutines(t)
	const queue, maxW = "burstq", 16
	var mu sync.Mutex
	var running, worst int
	release := make(chan struct{})
	ws := workersFor(func(ctx context.Context, j *driver.Job[execArgs]) error {
		mu.Lock()
		running++
		worst = max(worst, running)
		mu.Unlock()
		defer func() {
			mu.Lock()
			running--
			mu.Unlock()
		}()
		if j.Args.N < 0 { // quick jobs of the small burst
			return nil
		}
		select {
		case <-release:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	})
	log, _ := testLogger(t, "client")
	c, err := driver.NewClient(pool, workConfig(queue, maxW, ws, log, nil))
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.StopAndCancel(context.Background()) })
	burst := func(round int) {
		t.Helper()
		insertExec(t, ctx, c, queue, maxW, nil)
		waitFor(t, 30*time.Second, fmt.Sprintf("burst %d: all %d handlers running", round, maxW), func() (bool, string) {
			mu.Lock()
			defer mu.Unlock()
			return running == maxW, fmt.Sprintf("%d running", running)
		})
		if w := workerGoroutines(); w != maxW {
			t.Fatalf("burst %d: %d worker goroutines with %d handlers running, want %d", round, w, maxW, maxW)
		}
		release <- struct{}{} // one at a time: each handler takes one
		for i := 1; i < maxW; i++ {
			release <- struct{}{}
		}
		waitFor(t, 30*time.Second, fmt.Sprintf("burst %d: all jobs completed", round), func() (bool, string) {
			s := stateCounts(t, ctx, pool)
			return s["completed"] == maxW*round, fmt.Sprint(s)
		})
		if w := workerGoroutines(); w != maxW {
			t.Fatalf("burst %d: %d worker goroutines while idle, want %d (kept for the next burst)", round, w, maxW)
		}
	}
	burst(1)
	before := runtime.NumGoroutine()
	burst(2)
	// A small burst of quick jobs reuses idle workers too.
	params := make([]driver.InsertManyParams, 3)
	for i := range params {
		params[i] = driver.InsertManyParams{Args: execArgs{N: -1}, Opts: &driver.InsertOpts{Queue: queue}}
	}
	if _, err := c.InsertMany(ctx, params); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 30*time.Second, "the small burst to complete", func() (bool, string) {
		s := stateCounts(t, ctx, pool)
		return s["completed"] == 2*maxW+3, fmt.Sprint(s)
	})
	if w := workerGoroutines(); w != maxW {
		t.Fatalf("after the small burst: %d worker goroutines, want %d", w, maxW)
	}
	if after := runtime.NumGoroutine(); after > before+2 {
		t.Fatalf("goroutines grew from %d to %d over a second burst of the same size", before, after)
	}
	mu.Lock()
	if worst > maxW {
		t.Fatalf("%d handlers ran at once with MaxWorkers %d", worst, maxW)
	}
	mu.Unlock()
	if err := stopWithin(t, 30*time.Second, "Stop", func() error { return c.Stop(ctx) }); err != nil {
		t.Fatal(err)
	}
	closeAndCheck(t, pool, base, "after the bursts, Stop and pool.Close")
	if w := workerGoroutines(); w != 0 {
		t.Fatalf("%d worker goroutines after Stop", w)
	}
}

// releaseLatch returns a channel that stuck handlers wait on and the
// function that closes it (once; also at the test's clean-up, which runs
// before that of a client started earlier).
func releaseLatch(t *testing.T) (<-chan struct{}, func()) {
	ch := make(chan struct{})
	var once sync.Once
	release := func() { once.Do(func() { close(ch) }) }
	t.Cleanup(release)
	return ch, release
}

// cancelJob cancels job id as an operator would (awa.cancel_job) and returns
// the outcome.
func cancelJob(t *testing.T, ctx context.Context, pool *pgxpool.Pool, id int64) string {
	t.Helper()
	var outcome string
	if err := pool.QueryRow(ctx, `SELECT outcome::text FROM awa.cancel_job($1, 'test cancel')`, id).Scan(&outcome); err != nil {
		t.Fatalf("cancel_job(%d): %v", id, err)
	}
	return outcome
}

// abandonLogs counts the runtime's abandonment logs of job id.
func abandonLogs(rec *logRecorder, msg string, id int64) int {
	return len(rec.find(msg, func(e logEntry) bool { return e.Attrs["job_id"] == id }))
}

// TestCancelledHandlerIgnoringItsContextIsAbandonedAfterGrace: an operator
// cancels (awa.cancel_job) the attempt of a handler that ignores its
// context, with a JobTimeout of a minute. The close of the attempt arms the
// watchdog: the handler is abandoned JobTimeoutGrace later (not at its
// timeout), once; Stop no longer waits for it; its slot stays taken until it
// returns (the only slot: a second job runs only after); the job ends
// cancelled, the abandonment's retry and the late result change nothing.
// The close reaches the client by notification, or else by its heartbeat.
func TestCancelledHandlerIgnoringItsContextIsAbandonedAfterGrace(t *testing.T) {
	// With LISTEN the close arrives by notification; without, the heartbeat's
	// awa.closed_attempts finds it: both run the watchdog's hook.
	for _, tc := range []struct {
		name      string
		noListen  bool
		heartbeat time.Duration
	}{{"listen", false, 0}, {"no_listen", true, 300 * time.Millisecond}} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, pool := parallelDB(t, 2*time.Minute)
			const grace = 500 * time.Millisecond
			started := make(chan int64, 2)
			release, releaseHandler := releaseLatch(t) // its clean-up runs after the client's: the stop abandons the handler
			var firstReturned, secondEarly atomic.Bool
			var runs runCounts
			workers := workersFor(func(ctx context.Context, j *driver.Job[execArgs]) error {
				runs.add(j.ID)
				if j.Args.N == 1 {
					secondEarly.Store(!firstReturned.Load())
					return nil
				}
				started <- j.ID
				<-release // ignores ctx
				firstReturned.Store(true)
				return nil
			})
			log, rec := testLogger(t, "client")
			client := startClient(t, pool, workConfig("cancelwd", 1, workers, log, &driver.Config{
				JobTimeout: time.Minute, JobTimeoutGrace: grace, DisableListen: tc.noListen, HeartbeatInterval: tc.heartbeat,
			}))
			job, err := client.Insert(ctx, execArgs{N: 0}, &driver.InsertOpts{Queue: "cancelwd", MaxAttempts: 3})
			if err != nil {
				t.Fatal(err)
			}
			select {
			case <-started:
			case <-ctx.Done():
				t.Fatal("the job never started")
			}
			if o := cancelJob(t, ctx, pool, job.ID); o != "applied" {
				t.Fatalf("cancel_job: %s", o)
			}
			t0 := time.Now()
			waitFor(t, 20*time.Second, "the cancelled handler to be abandoned", func() (bool, string) {
				return abandonLogs(rec, "Handler did not return within its timeout", job.ID) > 0, "not yet"
			})
			if took := time.Since(t0); took < grace-50*time.Millisecond {
				t.Fatalf("abandoned %s after the cancel, before JobTimeoutGrace (%s)", took, grace)
			}
			// The abandonment's retry reaches a closed attempt: stale, dropped.
			waitFor(t, 10*time.Second, "the abandonment's retry to be found stale", func() (bool, string) {
				return abandonLogs(rec, "Stale result dropped", job.ID) == 1, "not yet"
			})
			second, err := client.Insert(ctx, execArgs{N: 1}, &driver.InsertOpts{Queue: "cancelwd"})
			if err != nil {
				t.Fatal(err)
			}
			time.Sleep(time.Second) // time for a free slot to run the second job (it must not)
			releaseHandler()
			waitJobState(t, pool, second.ID, "completed", 20*time.Second)
			waitFor(t, 10*time.Second, "the late result to be dropped", func() (bool, string) {
				return abandonLogs(rec, "Abandoned handler returned", job.ID) == 1, "not yet"
			})
			if err := stopWithin(t, 20*time.Second, "Stop", func() error { return client.Stop(ctx) }); err != nil {
				t.Fatal(err)
			}
			rows := jobRows(t, pool, job.ID)
			if len(rows) != 1 || rows[0].State != "cancelled" || rows[0].Attempt != 1 {
				t.Fatalf("cancelled job is %v, want cancelled at attempt 1", rows)
			}
			if secondEarly.Load() || runs.get(job.ID) != 1 || runs.get(second.ID) != 1 {
				t.Fatalf("second job started before the abandoned handler returned: %v; runs %d and %d, want 1 and 1",
					secondEarly.Load(), runs.get(job.ID), runs.get(second.ID))
			}
			abandoned := rec.find("Handler did not return within its timeout", func(e logEntry) bool { return e.Attrs["job_id"] == job.ID })
			if len(abandoned) != 1 {
				t.Fatalf("abandoned %d times, want 1", len(abandoned))
			}
			// The log says what the handler overstayed: the close, not its timeout.
			if why := fmt.Sprint(abandoned[0].Attrs["reason"]); !strings.Contains(why, "after its attempt was closed") {
				t.Fatalf("the abandonment gives the reason %q, want the attempt's close", why)
			}
			if n := abandonLogs(rec, "Stale result dropped", job.ID); n != 1 {
				t.Fatalf("%d stale results of the job, want 1 (the abandonment's retry; the late result is dropped unsent)", n)
			}
		})
	}
}

// TestTimeoutAndCancelTogetherAbandonOnce: handlers that ignore their
// context reach their timeout while an operator cancels their attempts, the
// cancels spread around the timeout; each handler is abandoned exactly once
// (the watchdog is armed by whichever comes first), every job ends
// cancelled, Stop returns while the handlers still run, and their late
// results are dropped. Then the same with StopAndCancel in place of the
// timeout.
func TestTimeoutAndCancelTogetherAbandonOnce(t *testing.T) {
	for _, tc := range []struct {
		name string
		hard bool // StopAndCancel ends the handlers' contexts, not a timeout
	}{{"timeout", false}, {"stop_and_cancel", true}} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, pool := parallelDB(t, 2*time.Minute)
			const n, timeout, grace = 10, 600 * time.Millisecond, 1500 * time.Millisecond
			started := make(chan int64, n)
			release, releaseHandlers := releaseLatch(t)
			var runs runCounts
			var returned atomic.Int64
			workers := workersFor(func(ctx context.Context, j *driver.Job[execArgs]) error {
				runs.add(j.ID)
				started <- j.ID
				<-release // ignores ctx
				returned.Add(1)
				return nil
			})
			jobTimeout := timeout
			if tc.hard {
				jobTimeout = time.Minute
			}
			log, rec := testLogger(t, "client")
			client := startClient(t, pool, workConfig("bothq", n, workers, log, &driver.Config{
				JobTimeout: jobTimeout, JobTimeoutGrace: grace,
			}))
			ids := insertExec(t, ctx, client, "bothq", n, func(int) driver.InsertOpts { return driver.InsertOpts{MaxAttempts: 3} })
			startAt := map[int64]time.Time{}
			for i := 0; i < n; i++ {
				select {
				case id := <-started:
					startAt[id] = time.Now()
				case <-ctx.Done():
					t.Fatalf("only %d of %d handlers started", i, n)
				}
			}
			var stopErr chan error
			if tc.hard {
				stopErr = make(chan error, 1)
				go func() { stopErr <- client.StopAndCancel(ctx) }()
			}
			// Cancel each job from 100 ms before its handler's context ends
			// to 80 ms after, one after another.
			for i, id := range ids {
				end := startAt[id].Add(timeout)
				if tc.hard {
					end = time.Now()
				}
				time.Sleep(time.Until(end.Add(time.Duration(i*20-100) * time.Millisecond)))
				if o := cancelJob(t, ctx, pool, id); o != "applied" {
					t.Fatalf("cancel_job(%d): %s", id, o)
				}
			}
			if tc.hard {
				select {
				case err := <-stopErr:
					if err != nil {
						t.Fatalf("StopAndCancel: %v", err)
					}
				case <-time.After(20 * time.Second):
					t.Fatal("StopAndCancel did not return")
				}
			} else {
				waitFor(t, 20*time.Second, "every handler to be abandoned", func() (bool, string) {
					k := len(rec.find("Handler did not return within its timeout", nil))
					return k >= n, fmt.Sprintf("%d abandoned", k)
				})
				if err := stopWithin(t, 20*time.Second, "Stop", func() error { return client.Stop(ctx) }); err != nil {
					t.Fatal(err)
				}
			}
			if r := returned.Load(); r != 0 {
				t.Fatalf("%d handlers returned before release: the test needs them stuck", r)
			}
			for _, id := range ids {
				if k := abandonLogs(rec, "Handler did not return within its timeout", id); k != 1 {
					t.Fatalf("job %d abandoned %d times, want 1", id, k)
				}
				rows := jobRows(t, pool, id)
				if len(rows) != 1 || rows[0].State != "cancelled" || rows[0].Attempt != 1 || runs.get(id) != 1 {
					t.Fatalf("job %d is %v after %d runs, want cancelled at attempt 1 after 1 run", id, rows, runs.get(id))
				}
			}
			releaseHandlers()
			waitFor(t, 10*time.Second, "every late result to be dropped", func() (bool, string) {
				k := len(rec.find("Abandoned handler returned", nil))
				return k == n, fmt.Sprintf("%d dropped", k)
			})
		})
	}
}

// TestWeightedJobsWithReusedWorkersKeepTheirSlots: jobs of weights 1 to 4
// with MaxWorkers 4 share worker goroutines: the weights running at once
// never pass 4, every job runs once and completes once, and Stop returns.
func TestWeightedJobsWithReusedWorkersKeepTheirSlots(t *testing.T) {
	ctx, pool := parallelDB(t, 2*time.Minute)
	const queue, maxW, n = "weightq", 4, 120
	var mu sync.Mutex
	var load, worst int
	var runs runCounts
	weights := map[int]int{}
	workers := workersFor(func(ctx context.Context, j *driver.Job[execArgs]) error {
		runs.add(j.ID)
		w := 1 + j.Args.N%maxW
		mu.Lock()
		load += w
		worst = max(worst, load)
		weights[w]++
		mu.Unlock()
		time.Sleep(3 * time.Millisecond)
		mu.Lock()
		load -= w
		mu.Unlock()
		return nil
	})
	log, _ := testLogger(t, "client")
	client := startClient(t, pool, workConfig(queue, maxW, workers, log, nil))
	ids := insertExec(t, ctx, client, queue, n, func(i int) driver.InsertOpts {
		return driver.InsertOpts{Weight: 1 + i%maxW}
	})
	waitFor(t, 60*time.Second, "every weighted job to complete", func() (bool, string) {
		s := stateCounts(t, ctx, pool)
		return s["completed"] == n, fmt.Sprint(s)
	})
	if err := stopWithin(t, 20*time.Second, "Stop", func() error { return client.Stop(ctx) }); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if worst > maxW {
		t.Fatalf("weights of %d ran at once with MaxWorkers %d", worst, maxW)
	}
	for _, id := range ids {
		if r := runs.get(id); r != 1 || completions(t, pool, id) != 1 {
			t.Fatalf("job %d ran %d times and completed %d times, want 1 and 1", id, r, completions(t, pool, id))
		}
	}
	t.Logf("worst load %d; runs by weight %v", worst, weights)
}

// TestHeavyJobsDoNotPileUpClaims: a backlog of jobs of weight 2 to 4 with
// MaxWorkers 4. A job waiting for its slots gives its one slot back; the
// fetch loop must not claim with it meanwhile, or every slot freed claims
// one more job that waits too: at any time the jobs claimed and not yet
// started stay within MaxWorkers, and so do the worker goroutines. (They
// reached 14 claimed and 13 workers with weight-4 jobs, the workers kept for
// the client's life; a job waiting that long behind slow ones outlives its
// attempt deadline and is rescued while claimed here.)
func TestHeavyJobsDoNotPileUpClaims(t *testing.T) {
	ctx, pool := pgtest.Context(t, 2*time.Minute), pgtest.NewDB(t) // counts worker goroutines: not parallel
	noWorkerGoroutines(t)
	const queue, maxW, n = "pileq", 4, 150
	var started sync.Map
	workers := workersFor(func(ctx context.Context, j *driver.Job[execArgs]) error {
		started.Store(j.ID, true)
		time.Sleep(10 * time.Millisecond)
		return nil
	})
	log, _ := testLogger(t, "client")
	client := startClient(t, pool, workConfig(queue, maxW, workers, log, nil))
	insertExec(t, ctx, client, queue, n, func(i int) driver.InsertOpts { return driver.InsertOpts{Weight: 2 + i%3} })
	worstWaiting, worstWorkers := 0, 0
	waitFor(t, 90*time.Second, "every heavy job to complete", func() (bool, string) {
		rows, err := pool.Query(ctx, `SELECT id FROM awa.jobs WHERE state = 'running'`)
		if err != nil {
			return false, err.Error()
		}
		running, err := pgx.CollectRows(rows, pgx.RowTo[int64])
		if err != nil {
			return false, err.Error()
		}
		waiting := 0
		for _, id := range running {
			if _, ok := started.Load(id); !ok {
				waiting++
			}
		}
		worstWaiting, worstWorkers = max(worstWaiting, waiting), max(worstWorkers, workerGoroutines())
		s := stateCounts(t, ctx, pool)
		return s["completed"] == n, fmt.Sprint(s)
	})
	if worstWaiting > maxW || worstWorkers > maxW {
		t.Fatalf("with MaxWorkers %d, up to %d jobs were claimed and not started, and %d worker goroutines ran",
			maxW, worstWaiting, worstWorkers)
	}
}

// TestRestartWhileAnAbandonedHandlerRuns: a handler ignoring its context is
// abandoned at its timeout; the client stops (Stop does not wait for it) and
// starts again while the handler still runs on the first run's worker. The
// restarted client has its slot (the abandoned handler holds the old run's)
// and runs the retried attempt and a new job; when the abandoned handler
// finally returns, its result is dropped and the client's accounting is
// untouched: a later Stop returns, no goroutine is left.
func TestRestartWhileAnAbandonedHandlerRuns(t *testing.T) {
	dsn := pgtest.NewDBDSN(t)
	base := baselineGoroutines()
	pool := openPool(t, dsn)
	ctx := pgtest.Context(t, 2*time.Minute)
	release, releaseHandler := releaseLatch(t)
	var runs runCounts
	ws := workersFor(func(ctx context.Context, j *driver.Job[execArgs]) error {
		runs.add(j.ID)
		if j.Args.N == 0 && j.Attempt == 1 {
			<-release // ignores ctx
		}
		return nil
	})
	log, rec := testLogger(t, "client")
	c, err := driver.NewClient(pool, workConfig("restartq", 1, ws, log, &driver.Config{
		JobTimeout: 300 * time.Millisecond, JobTimeoutGrace: 300 * time.Millisecond,
	}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.StopAndCancel(context.Background()) })
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	stuck := insertExec(t, ctx, c, "restartq", 1, func(int) driver.InsertOpts { return driver.InsertOpts{MaxAttempts: 3} })[0]
	waitFor(t, 20*time.Second, "the stuck handler to be abandoned", func() (bool, string) {
		return abandonLogs(rec, "Handler did not return within its timeout", stuck) == 1, "not yet"
	})
	if err := stopWithin(t, 20*time.Second, "Stop with an abandoned handler", func() error { return c.Stop(ctx) }); err != nil {
		t.Fatal(err)
	}
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	params := []driver.InsertManyParams{{Args: execArgs{N: 1}, Opts: &driver.InsertOpts{Queue: "restartq"}}}
	jobs, err := c.InsertMany(ctx, params)
	if err != nil {
		t.Fatal(err)
	}
	fresh := jobs[0].ID
	waitJobState(t, pool, fresh, "completed", 20*time.Second)
	final := waitJobState(t, pool, stuck, "completed", 30*time.Second) // after its retry backoff
	releaseHandler()
	waitFor(t, 10*time.Second, "the late result to be dropped", func() (bool, string) {
		return abandonLogs(rec, "Abandoned handler returned", stuck) == 1, "not yet"
	})
	if err := stopWithin(t, 20*time.Second, "the second Stop", func() error { return c.Stop(ctx) }); err != nil {
		t.Fatal(err)
	}
	if rows := jobRows(t, pool, stuck); len(rows) != 1 || rows[0].State != "completed" || rows[0].Attempt != 2 ||
		rows[0].RunLease != final.RunLease || runs.get(stuck) != 2 || completions(t, pool, stuck) != 1 {
		t.Fatalf("stuck job is %v after %d runs, want completed once by attempt 2", rows, runs.get(stuck))
	}
	if runs.get(fresh) != 1 || completions(t, pool, fresh) != 1 {
		t.Fatalf("fresh job ran %d times, completed %d times; want 1 and 1", runs.get(fresh), completions(t, pool, fresh))
	}
	closeAndCheck(t, pool, base, "after the restart, the late return, Stop and pool.Close")
}

type poisonArgs struct {
	Mode string `json:"mode"`
}

func (poisonArgs) Kind() string { return "poison_kind" }

// poisonWorker's Timeout panics for mode "timeout", its NextRetry for mode
// "next_retry" (whose handler fails); other jobs complete.
type poisonWorker struct{ runs *runCounts }

func (w poisonWorker) Timeout(j *driver.Job[poisonArgs]) time.Duration {
	if j.Args.Mode == "timeout" {
		panic("poisoned timeout")
	}
	return 0
}

func (w poisonWorker) NextRetry(j *driver.Job[poisonArgs]) time.Time {
	if j.Args.Mode == "next_retry" {
		panic("poisoned next retry")
	}
	return time.Time{}
}

func (w poisonWorker) Work(ctx context.Context, j *driver.Job[poisonArgs]) error {
	w.runs.add(j.ID)
	if j.Args.Mode == "next_retry" {
		return fmt.Errorf("fails, then NextRetry panics")
	}
	return nil
}

// TestPanickingTimeoutOrNextRetryIsContained: a worker's Timeout and
// NextRetry are its code, run by the runtime outside the handler; a panic in
// either must be contained as a handler's is, not end the process (the job
// would be claimed again by the next process, and end it too). A job whose
// Timeout panics is retried (its handler not run) with the panic in its
// error, until its attempts run out; one whose NextRetry panics is retried
// with the default backoff; the process goes on working other jobs.
func TestPanickingTimeoutOrNextRetryIsContained(t *testing.T) {
	ctx, pool := parallelDB(t, time.Minute)
	var runs runCounts
	ws := driver.NewWorkers()
	driver.AddWorker[poisonArgs](ws, poisonWorker{runs: &runs})
	log, _ := testLogger(t, "client")
	client := startClient(t, pool, workConfig("poisonq", 4, ws, log, nil))
	ins := func(mode string) int64 {
		j, err := client.Insert(ctx, poisonArgs{Mode: mode}, &driver.InsertOpts{Queue: "poisonq", MaxAttempts: 1})
		if err != nil {
			t.Fatal(err)
		}
		return j.ID
	}
	timeoutJob, retryJob := ins("timeout"), ins("next_retry")
	okJob := ins("ok")
	waitJobState(t, pool, okJob, "completed", 20*time.Second)
	for _, tc := range []struct {
		id        int64
		runs      int32
		errorText string
	}{{timeoutJob, 0, "poisoned timeout"}, {retryJob, 1, "fails, then NextRetry panics"}} {
		var last []jobSnap
		waitFor(t, 20*time.Second, fmt.Sprintf("job %d to end", tc.id), func() (bool, string) {
			last = jobRows(t, pool, tc.id)
			return len(last) == 1 && last[0].State != "running" && last[0].State != "available", fmt.Sprint(last)
		})
		if last[0].State != "failed" || !errorsContain(last[0].Errors, tc.errorText) || runs.get(tc.id) != tc.runs {
			t.Fatalf("job %d is %v after %d handler runs, want failed (attempts exhausted) with %q after %d runs",
				tc.id, last[0], runs.get(tc.id), tc.errorText, tc.runs)
		}
	}

	// Driver.Work, the runtime for runtimes of one's own, contains it too.
	d := driver.New()
	j, err := client.Insert(ctx, poisonArgs{Mode: "timeout"}, &driver.InsertOpts{Queue: "poisonq_own", MaxAttempts: 2})
	if err != nil {
		t.Fatal(err)
	}
	claimed, err := d.Claim(ctx, pool, "poisonq_own", 1, [16]byte{}, 0)
	if err != nil || len(claimed) != 1 {
		t.Fatalf("claim = %d jobs, %v", len(claimed), err)
	}
	res, err := d.Work(ctx, pool, ws, claimed[0], time.Minute)
	if err != nil || res.Event != driver.EventJobRetried || !strings.Contains(res.Error, "poisoned timeout") || runs.get(j.ID) != 0 {
		t.Fatalf("Work = %+v, %v after %d handler runs; want a retry with the panic, the handler not run", res, err, runs.get(j.ID))
	}
}

// TestWeightedJobCancelledWhileWaitingForSlotsDoesNotRun: a job of weight 2
// is claimed with the one free slot of two and waits for the other, which a
// running job holds. An operator cancels it meanwhile: its handler is not
// registered yet, so the notification finds nothing to cancel. When the
// slots free up, its handler must not run (the job is cancelled: its work
// would be done for nothing, or twice once retried elsewhere); the job stays
// cancelled and the client goes on.
func TestWeightedJobCancelledWhileWaitingForSlotsDoesNotRun(t *testing.T) {
	ctx, pool := parallelDB(t, time.Minute)
	release, releaseBlocker := releaseLatch(t)
	started := make(chan int64, 4)
	var runs runCounts
	workers := workersFor(func(ctx context.Context, j *driver.Job[execArgs]) error {
		runs.add(j.ID)
		started <- j.ID
		if j.Args.N == 0 {
			<-release
		}
		return nil
	})
	log, rec := testLogger(t, "client")
	client := startClient(t, pool, workConfig("waitslots", 2, workers, log, nil))
	blocker, err := client.Insert(ctx, execArgs{N: 0}, &driver.InsertOpts{Queue: "waitslots"})
	if err != nil {
		t.Fatal(err)
	}
	if id := <-started; id != blocker.ID {
		t.Fatalf("job %d started, want the blocker %d", id, blocker.ID)
	}
	heavy, err := client.Insert(ctx, execArgs{N: 1}, &driver.InsertOpts{Queue: "waitslots", Weight: 2})
	if err != nil {
		t.Fatal(err)
	}
	waitJobState(t, pool, heavy.ID, "running", 20*time.Second) // claimed, waiting for its second slot
	if o := cancelJob(t, ctx, pool, heavy.ID); o != "applied" {
		t.Fatalf("cancel_job: %s", o)
	}
	releaseBlocker()
	waitJobState(t, pool, blocker.ID, "completed", 20*time.Second)
	waitFor(t, 20*time.Second, "the cancelled heavy job to be dropped or run", func() (bool, string) {
		return runs.get(heavy.ID) > 0 || len(rec.find("the handler does not run", func(e logEntry) bool {
			return e.Attrs["job_id"] == heavy.ID
		})) > 0, "neither yet"
	})
	if n := runs.get(heavy.ID); n != 0 {
		t.Fatalf("the handler of job %d, cancelled while it waited for its slots, ran %d times", heavy.ID, n)
	}
	if rows := jobRows(t, pool, heavy.ID); len(rows) != 1 || rows[0].State != "cancelled" {
		t.Fatalf("heavy job is %v, want cancelled", rows)
	}
	// The client goes on: a job inserted now runs.
	next, err := client.Insert(ctx, execArgs{N: 2}, &driver.InsertOpts{Queue: "waitslots", Weight: 2})
	if err != nil {
		t.Fatal(err)
	}
	waitJobState(t, pool, next.ID, "completed", 20*time.Second)
}
