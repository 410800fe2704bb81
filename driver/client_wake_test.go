package driver_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/awa-queue/awa/driver"
	"github.com/awa-queue/awa/internal/pgtest"
)

// wakeArgs: the tests' args types look alike on purpose: a kind is a
// type (driver.JobArgs), and each test names its own.
type wakeArgs struct{}

func (wakeArgs) Kind() string { return "wake_kind" }

type noteArgs struct {
	Note string `json:"note"`
}

func (noteArgs) Kind() string { return "note_kind" }

// runWakeClient starts a client on queue "wake" whose handler reports each run.
func runWakeClient(t *testing.T, cfg driver.Config) (chan int64, *driver.Client) {
	t.Helper()
	ran, c, _ := runWakeClientPool(t, cfg)
	return ran, c
}

// runWakeClientPool is runWakeClient that also returns the client's pool.
func runWakeClientPool(t *testing.T, cfg driver.Config) (chan int64, *driver.Client, *pgxpool.Pool) {
	t.Helper()
	pool := pgtest.NewDB(t)
	ran := make(chan int64, 16)
	workers := workersFor(func(ctx context.Context, j *driver.Job[wakeArgs]) error {
		ran <- j.ID
		return nil
	})
	cfg.Queues = map[string]driver.QueueConfig{"wake": {MaxWorkers: 2}}
	cfg.Workers = workers
	cfg.Maintenance = fastMaintenance()
	c := startClient(t, pool, &cfg)
	return ran, c, pool
}

// With polling effectively off (one poll an hour), a job inserted after the
// client went idle is still picked up at once: the insert's NOTIFY wakes it.
func TestNotifyWakesAnIdleQueue(t *testing.T) {
	t.Parallel()
	ctx := pgtest.Context(t, time.Minute)
	ran, c := runWakeClient(t, driver.Config{FetchPollInterval: time.Hour})
	time.Sleep(300 * time.Millisecond) // let the fetch loop go idle and the listener subscribe

	insertAndAwaitRun(t, ctx, c, ran, "with polling at 1h: the notification did not wake the queue")
}

// With LISTEN off (as behind a transaction-mode pooler), the poll fallback
// still finds new work.
func TestPollingFindsWorkWithoutNotifications(t *testing.T) {
	t.Parallel()
	ctx := pgtest.Context(t, time.Minute)
	ran, c := runWakeClient(t, driver.Config{DisableListen: true, FetchPollInterval: 100 * time.Millisecond})
	time.Sleep(300 * time.Millisecond)

	for i := 0; i < 3; i++ {
		insertAndAwaitRun(t, ctx, c, ran, "with LISTEN off and polling every 100ms")
	}
}

// insertAndAwaitRun inserts a job of queue wake and fails the test unless the
// client runs that job (ran, from runWakeClient) within 20s; why says how it
// should have been found.
func insertAndAwaitRun(t *testing.T, ctx context.Context, c *driver.Client, ran <-chan int64, why string) {
	t.Helper()
	job, err := c.Insert(ctx, wakeArgs{}, &driver.InsertOpts{Queue: "wake"})
	if err != nil {
		t.Fatalf("insert: %v", err)
	}
	select {
	case id := <-ran:
		if id != job.ID {
			t.Fatalf("ran job %d, want %d", id, job.ID)
		}
	case <-time.After(20 * time.Second):
		t.Fatalf("job %d did not run within 20s %s", job.ID, why)
	}
}

// TestNoJobWaitsForThePollWhenInsertsSkipNotify: inserts behind a waiting job
// send no NOTIFY, so a claimer that drains the queue while such a producer is
// still open must not go to sleep on it. Four producers (on their own
// connections, one to three jobs per transaction, a quarter rolled back,
// transactions held open up to 3 ms) feed a client whose poll is once an hour
// and whose handlers take 1-2 ms, so a backlog forms and drains over and over.
// Every committed job must run soon after the last commit, and the listener
// must have received fewer notifications than there were commits (the rule
// skipped some).
func TestNoJobWaitsForThePollWhenInsertsSkipNotify(t *testing.T) {
	ctx, pool := parallelDB(t, 2*time.Minute)
	var mu sync.Mutex
	ran := map[int64]bool{}
	workers := workersFor(func(ctx context.Context, j *driver.Job[wakeArgs]) error {
		time.Sleep(time.Duration(1000+j.ID%1000) * time.Microsecond)
		mu.Lock()
		ran[j.ID] = true
		mu.Unlock()
		return nil
	})
	startClient(t, pool, &driver.Config{
		Queues:            map[string]driver.QueueConfig{"wake": {MaxWorkers: 4}},
		Workers:           workers,
		FetchPollInterval: time.Hour,
		Maintenance:       fastMaintenance(),
	})
	counter, err := pool.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer counter.Release()
	if _, err := counter.Exec(ctx, `SELECT awa.listen_queues(ARRAY['wake'])`); err != nil {
		t.Fatal(err)
	}
	time.Sleep(300 * time.Millisecond) // the client goes idle and listens

	const producers, txs = 4, 120
	var (
		committed []int64
		commits   int
		errs      = make(chan error, producers)
	)
	for p := range producers {
		go func() {
			rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), uint64(p)))
			var err error
			defer func() { errs <- err }()
			conn, err := pool.Acquire(ctx)
			if err != nil {
				return
			}
			defer conn.Release()
			for range txs {
				tx, e := conn.Begin(ctx)
				if e != nil {
					err = e
					return
				}
				n := 1 + rng.IntN(3)
				var ids []int64
				rows, e := tx.Query(ctx, `SELECT j.id FROM awa.insert_jobs(array_fill('wake_kind'::text, ARRAY[$1::int]), NULL,
					array_fill('{"queue": "wake"}'::jsonb, ARRAY[$1::int])) AS j`, n)
				if e == nil {
					ids, e = pgx.CollectRows(rows, pgx.RowTo[int64])
				}
				if e != nil {
					tx.Rollback(ctx)
					err = e
					return
				}
				time.Sleep(time.Duration(rng.IntN(3000)) * time.Microsecond)
				if rng.IntN(4) == 0 {
					if e := tx.Rollback(ctx); e != nil {
						err = e
						return
					}
					continue
				}
				if e := tx.Commit(ctx); e != nil {
					err = e
					return
				}
				mu.Lock()
				committed = append(committed, ids...)
				commits++
				mu.Unlock()
				time.Sleep(time.Duration(rng.IntN(2000)) * time.Microsecond)
			}
		}()
	}
	for range producers {
		if err := <-errs; err != nil {
			t.Fatalf("producer: %v", err)
		}
	}

	deadline := time.Now().Add(20 * time.Second)
	for {
		mu.Lock()
		var missing []int64
		for _, id := range committed {
			if !ran[id] {
				missing = append(missing, id)
			}
		}
		mu.Unlock()
		if len(missing) == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d committed jobs did not run within 20 s of the last commit (poll: 1 h), e.g. %v",
				len(missing), len(committed), missing[:min(5, len(missing))])
		}
		time.Sleep(20 * time.Millisecond)
	}
	notes := 0
	for {
		wctx, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
		_, err := counter.Conn().WaitForNotification(wctx)
		cancel()
		if err != nil {
			break
		}
		notes++
	}
	t.Logf("%d jobs in %d commits, %d notifications", len(committed), commits, notes)
	if notes == 0 || notes >= commits {
		t.Fatalf("%d notifications for %d commits: want some, and fewer than the commits", notes, commits)
	}
}

// TestClaimerPollsAgainWhileAProducerIsOpen: the deterministic lost-wakeup
// case. Job A commits while the only worker is busy, so A waits unclaimed;
// a transaction then inserts B behind A in the same lane (no NOTIFY: A's
// producer notified) and stays open. The worker frees, claims A, finds
// nothing more, and would sleep for the hour-long poll; B's reserved position
// above the cursor (awa.queue_pending) must make it claim again soon, so B
// runs within seconds of its commit.
func TestClaimerPollsAgainWhileAProducerIsOpen(t *testing.T) {
	ctx, pool := parallelDB(t, time.Minute)
	release := make(chan struct{})
	ran := make(chan string, 4)
	workers := workersFor(func(ctx context.Context, j *driver.Job[noteArgs]) error {
		if j.Args.Note == "blocker" {
			<-release
		}
		ran <- j.Args.Note
		return nil
	})
	c := startClient(t, pool, &driver.Config{
		Queues:            map[string]driver.QueueConfig{"wake": {MaxWorkers: 1}},
		Workers:           workers,
		FetchPollInterval: time.Hour,
		Maintenance:       fastMaintenance(),
	})
	time.Sleep(300 * time.Millisecond) // idle and listening
	if _, err := c.Insert(ctx, noteArgs{Note: "blocker"}, &driver.InsertOpts{Queue: "wake"}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 20*time.Second, "the blocker to start", func() (bool, string) {
		n := countJobs(t, pool, "state = 'running'")
		return n == 1, fmt.Sprintf("%d running", n)
	})

	conn, err := pool.Acquire(ctx) // A and B from one session: one lane
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Release()
	txA, err := conn.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.InsertTx(ctx, txA, noteArgs{Note: "A"}, &driver.InsertOpts{Queue: "wake"}); err != nil {
		t.Fatal(err)
	}
	if err := txA.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	tx, err := conn.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx)
	if _, err := c.InsertTx(ctx, tx, noteArgs{Note: "B"}, &driver.InsertOpts{Queue: "wake"}); err != nil {
		t.Fatal(err)
	}
	close(release)
	for _, want := range []string{"blocker", "A"} {
		select {
		case got := <-ran:
			if got != want {
				t.Fatalf("ran %q, want %q", got, want)
			}
		case <-time.After(20 * time.Second):
			t.Fatalf("%q did not run", want)
		}
	}
	time.Sleep(200 * time.Millisecond) // the runner has claimed again and found nothing
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	select {
	case got := <-ran:
		if got != "B" {
			t.Fatalf("ran %q, want B", got)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("B, inserted without a notification while its queue drained, did not run within 10 s of its commit (poll: 1 h)")
	}
}

// TestPausedQueueIdlesAndResumeWakesItsWorkers: a job inserted into a paused
// queue is not run while the queue is paused (the client keeps polling it
// every 100ms), and with polling effectively off (one poll an hour) resuming
// the queue wakes the client at once: the resume's NOTIFY.
func TestPausedQueueIdlesAndResumeWakesItsWorkers(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name string
		poll time.Duration
	}{{"polling", 100 * time.Millisecond}, {"notify", time.Hour}} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			// Each subtest's own clock: a parallel subtest may wait long for
			// its turn on a loaded machine (a parent's minute ran out first).
			ctx := pgtest.Context(t, time.Minute)
			ran, client, db := runWakeClientPool(t, driver.Config{FetchPollInterval: c.poll})
			d := client.Driver()
			if _, err := d.PauseQueue(ctx, db, "wake"); err != nil {
				t.Fatal(err)
			}
			job, err := client.Insert(ctx, wakeArgs{}, &driver.InsertOpts{Queue: "wake"})
			if err != nil {
				t.Fatal(err)
			}
			select {
			case id := <-ran:
				t.Fatalf("job %d ran while its queue was paused", id)
			case <-time.After(time.Second):
			}
			paused, err := d.PausedQueues(ctx, db)
			if _, ok := paused["wake"]; err != nil || !ok || len(paused) != 1 {
				t.Fatalf("PausedQueues = %v, %v; want wake", paused, err)
			}
			if err := d.ResumeQueue(ctx, db, "wake"); err != nil {
				t.Fatal(err)
			}
			select {
			case id := <-ran:
				if id != job.ID {
					t.Fatalf("ran job %d, want %d", id, job.ID)
				}
			case <-time.After(10 * time.Second):
				t.Fatalf("the job did not run within 10s of the resume (poll %s)", c.poll)
			}
		})
	}
}

// TestDrainQueueWaitsForTheQueuesWork: DrainQueue returns once the client's
// workers have run every job of the queue; on a paused queue holding a job it
// gives up when its context ends, saying the job is still available.
func TestDrainQueueWaitsForTheQueuesWork(t *testing.T) {
	t.Parallel()
	ctx := pgtest.Context(t, time.Minute)
	ran, client, db := runWakeClientPool(t, driver.Config{})
	go func() {
		for range ran { // the handler's reports: not needed here
		}
	}()
	for i := 0; i < 20; i++ {
		if _, err := client.Insert(ctx, wakeArgs{}, &driver.InsertOpts{Queue: "wake"}); err != nil {
			t.Fatal(err)
		}
	}
	dctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	if err := client.DrainQueue(dctx, "wake"); err != nil {
		t.Fatalf("DrainQueue: %v", err)
	}
	var left int
	if err := db.QueryRow(ctx, `SELECT count(*) FROM awa.jobs WHERE queue = 'wake' AND state <> 'completed'`).Scan(&left); err != nil || left != 0 {
		t.Fatalf("after DrainQueue: %d jobs not completed, %v", left, err)
	}

	if _, err := client.Driver().PauseQueue(ctx, db, "wake"); err != nil {
		t.Fatal(err)
	}
	if _, err := client.Insert(ctx, wakeArgs{}, &driver.InsertOpts{Queue: "wake"}); err != nil {
		t.Fatal(err)
	}
	short, cancelShort := context.WithTimeout(ctx, 300*time.Millisecond)
	defer cancelShort()
	err := client.DrainQueue(short, "wake")
	if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "available true") {
		t.Fatalf("DrainQueue of a paused queue holding a job = %v; want the deadline, naming the available job", err)
	}
}
