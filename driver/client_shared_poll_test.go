package driver_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/awa-queue/awa/driver"
	"github.com/awa-queue/awa/internal/pgtest"
)

// statementCounter is a pgx tracer that counts the statements a pool runs,
// by the awa function they call.
type statementCounter struct {
	mu    sync.Mutex
	total int
	byFn  map[string]int
}

func (s *statementCounter) TraceQueryStart(ctx context.Context, _ *pgx.Conn, d pgx.TraceQueryStartData) context.Context {
	fn := "other"
	if _, rest, ok := strings.Cut(d.SQL, "awa."); ok {
		fn, _, _ = strings.Cut(rest, "(")
	}
	s.mu.Lock()
	s.total++
	s.byFn[fn]++
	s.mu.Unlock()
	return ctx
}

func (s *statementCounter) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {}

// reset returns the counts so far and starts again from zero.
func (s *statementCounter) reset() (int, map[string]int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	total, by := s.total, s.byFn
	s.total, s.byFn = 0, map[string]int{}
	return total, by
}

// manyQueuesClient starts a client working queues mq0..mq<n-1> (one worker
// each) on a pool whose statements are counted; ran gets each job's queue.
func manyQueuesClient(t *testing.T, n int, cfg driver.Config) (*driver.Client, *statementCounter, chan string, *pgxpool.Pool) {
	t.Helper()
	pcfg, err := pgxpool.ParseConfig(pgtest.NewDBDSN(t))
	if err != nil {
		t.Fatal(err)
	}
	counter := &statementCounter{byFn: map[string]int{}}
	pcfg.ConnConfig.Tracer = counter
	pool, err := pgxpool.NewWithConfig(context.Background(), pcfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	ran := make(chan string, 16)
	cfg.Workers = workersFor(func(ctx context.Context, j *driver.Job[wakeArgs]) error {
		ran <- j.Queue
		return nil
	})
	cfg.Queues = map[string]driver.QueueConfig{}
	for i := range n {
		cfg.Queues[fmt.Sprintf("mq%d", i)] = driver.QueueConfig{MaxWorkers: 1}
	}
	cfg.DisableMaintenance = true
	return startClient(t, pool, &cfg), counter, ran, pool
}

// awaitQueueRun fails the test unless a job of queue runs within limit.
func awaitQueueRun(t *testing.T, ran <-chan string, queue string, limit time.Duration, why string) time.Duration {
	t.Helper()
	start := time.Now()
	select {
	case got := <-ran:
		if got != queue {
			t.Fatalf("ran a job of queue %q, want %q", got, queue)
		}
	case <-time.After(limit):
		t.Fatalf("the job of queue %s did not run within %s %s", queue, limit, why)
	}
	return time.Since(start)
}

// An idle client working 250 queues makes one statement per poll interval
// (awa.queues_ready, for all of them), not a claim per queue: over 2 s at a
// 200 ms poll, at most 10 polls plus a heartbeat and a few spares, and no
// claim at all. Then a job inserted into one of the queues starts by its
// notification (the poll is the same), and the statements while idle again
// stay as few.
func TestAnIdleClientOfManyQueuesPollsThemInOneStatement(t *testing.T) {
	t.Parallel()
	ctx := pgtest.Context(t, 2*time.Minute)
	const queues = 250
	poll := 200 * time.Millisecond
	c, counter, ran, _ := manyQueuesClient(t, queues, driver.Config{FetchPollInterval: poll})
	time.Sleep(time.Second) // every queue's first claim, the LISTEN and its poll are done
	counter.reset()
	window := 2 * time.Second
	time.Sleep(window)
	total, by := counter.reset()
	t.Logf("idle, %d queues, %s at a %s poll: %d statements %v", queues, window, poll, total, by)
	polls := int(window / poll)
	if by["claim_ready_runtime"] != 0 || total > polls+4 || by["queues_ready"] < polls/2 {
		t.Fatalf("idle, %d queues, %s at a %s poll: %d statements %v; want no claim, at most %d statements, "+
			"at least %d of them awa.queues_ready", queues, window, poll, total, by, polls+4, polls/2)
	}

	if _, err := c.Insert(ctx, wakeArgs{}, &driver.InsertOpts{Queue: "mq137"}); err != nil {
		t.Fatal(err)
	}
	took := awaitQueueRun(t, ran, "mq137", 10*time.Second, "")
	t.Logf("inserted into mq137: started after %s", took)
}

// With polling effectively off (one poll an hour), a job inserted into any
// one of 250 idle queues is started by its notification, promptly: the one
// listener connection LISTENs on every queue's channel.
func TestANotificationWakesOneOfManyIdleQueues(t *testing.T) {
	t.Parallel()
	ctx := pgtest.Context(t, 2*time.Minute)
	c, _, ran, _ := manyQueuesClient(t, 250, driver.Config{FetchPollInterval: time.Hour})
	time.Sleep(time.Second) // idle, and listening
	for _, q := range []string{"mq0", "mq249", "mq88"} {
		if _, err := c.Insert(ctx, wakeArgs{}, &driver.InsertOpts{Queue: q}); err != nil {
			t.Fatal(err)
		}
		took := awaitQueueRun(t, ran, q, 5*time.Second, "with polling at 1 h: the notification did not wake it")
		t.Logf("%s: started %s after its insert", q, took)
	}
}

// With LISTEN off, the shared poll alone finds a job inserted into any one
// of 250 idle queues, within a few poll intervals; a paused queue's job is
// left alone until its queue is resumed.
func TestTheSharedPollWakesOneOfManyIdleQueuesWithoutListen(t *testing.T) {
	t.Parallel()
	ctx := pgtest.Context(t, 2*time.Minute)
	poll := 200 * time.Millisecond
	c, counter, ran, pool := manyQueuesClient(t, 250, driver.Config{DisableListen: true, FetchPollInterval: poll})
	time.Sleep(time.Second)
	for _, q := range []string{"mq3", "mq200"} {
		if _, err := c.Insert(ctx, wakeArgs{}, &driver.InsertOpts{Queue: q}); err != nil {
			t.Fatal(err)
		}
		took := awaitQueueRun(t, ran, q, 10*time.Second, "with LISTEN off and a 200 ms shared poll")
		t.Logf("%s: started %s after its insert", q, took)
	}

	d := c.Driver()
	if _, err := d.PauseQueue(ctx, pool, "mq7"); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Insert(ctx, wakeArgs{}, &driver.InsertOpts{Queue: "mq7"}); err != nil {
		t.Fatal(err)
	}
	counter.reset()
	select {
	case q := <-ran:
		t.Fatalf("a job of queue %s ran while mq7, the only queue holding one, was paused", q)
	case <-time.After(5 * poll):
	}
	if _, by := counter.reset(); by["claim_ready_runtime"] != 0 {
		t.Fatalf("the paused queue was claimed from %d times; the shared poll must not wake it", by["claim_ready_runtime"])
	}
	if err := d.ResumeQueue(ctx, pool, "mq7"); err != nil {
		t.Fatal(err)
	}
	awaitQueueRun(t, ran, "mq7", 10*time.Second, "of its resume, with LISTEN off")
}

// QueuesReady, from a session that has remembered a queue quiet, reports it
// again once a producer inserts into it: pending but not ready while that
// producer's transaction is open (its lane is held), ready once it commits;
// quiet again once claimed. Two sessions: the producer and the asker.
func TestQueuesReadySeesAProducerOfARememberedQuietQueue(t *testing.T) {
	ctx, pool := parallelDB(t, time.Minute)
	d := driver.New()
	asker, err := pool.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer asker.Release()
	ask := func(want []driver.ReadyQueue, why string) {
		t.Helper()
		got, err := d.QueuesReady(ctx, asker.Conn(), []string{"rq", "rq_other"})
		if err != nil {
			t.Fatal(err)
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("%s: QueuesReady = %v, want %v", why, got, want)
		}
	}
	if _, err := pool.Exec(ctx, `SELECT * FROM awa.insert_job('k', '{}', '{"queue": "rq"}')`); err != nil {
		t.Fatal(err)
	}
	if _, err := d.Claim(ctx, pool, "rq", 10, [16]byte{}, 0); err != nil {
		t.Fatal(err)
	}
	ask(nil, "drained")
	ask(nil, "drained, remembered quiet")

	tx, err := pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, `SELECT * FROM awa.insert_job('k', '{}', '{"queue": "rq"}')`); err != nil {
		t.Fatal(err)
	}
	ask([]driver.ReadyQueue{{Queue: "rq"}}, "a producer holds the lane, uncommitted")
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	ask([]driver.ReadyQueue{{Queue: "rq", Ready: true}}, "the producer committed")
	if _, err := d.Claim(ctx, pool, "rq", 10, [16]byte{}, 0); err != nil {
		t.Fatal(err)
	}
	ask(nil, "claimed again")
}
