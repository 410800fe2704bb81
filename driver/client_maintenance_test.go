package driver_test

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/awa-queue/awa/driver"
	"github.com/awa-queue/awa/internal/pgtest"
)

// slowArgs: the tests' args types look alike on purpose: a kind is a
// type (driver.JobArgs), and each test names its own.
type slowArgs struct {
	N int `json:"n"`
}

func (slowArgs) Kind() string { return "slow" }

// TestTwoClientsNeverRunTheSameJob: two clients on one queue with a slow
// handler; every job runs exactly once and ends with one completed record.
func TestTwoClientsNeverRunTheSameJob(t *testing.T) {
	ctx, pool := parallelDB(t, 2*time.Minute)
	const n = 200

	var mu sync.Mutex
	runsByID := map[int64]int{}
	runsByClient := [2]int{}
	var concurrent, maxConcurrent atomic.Int64
	mk := func(idx int) *driver.Client {
		workers := workersFor(func(ctx context.Context, j *driver.Job[slowArgs]) error {
			c := concurrent.Add(1)
			defer concurrent.Add(-1)
			for {
				m := maxConcurrent.Load()
				if c <= m || maxConcurrent.CompareAndSwap(m, c) {
					break
				}
			}
			mu.Lock()
			runsByID[j.ID]++
			runsByClient[idx]++
			mu.Unlock()
			time.Sleep(time.Duration(5+j.Args.N%16) * time.Millisecond)
			return nil
		})
		log, _ := testLogger(t, fmt.Sprintf("client%d", idx))
		return startClient(t, pool, workConfig("shared", 5, workers, log, &driver.Config{
			FetchBatchSize: 3, // many small claims: more chances to collide
		}))
	}
	a := mk(0)
	mk(1)

	params := make([]driver.InsertManyParams, n)
	for i := range params {
		params[i] = driver.InsertManyParams{Args: slowArgs{N: i}, Opts: &driver.InsertOpts{Queue: "shared", Priority: 1 + i%4}}
	}
	jobs, err := a.InsertMany(ctx, params)
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, 60*time.Second, fmt.Sprintf("%d jobs completed", n), func() (bool, string) {
		var done int
		if err := pool.QueryRow(ctx, "SELECT count(*) FROM awa.terminal_jobs WHERE queue = 'shared'").Scan(&done); err != nil {
			return false, err.Error()
		}
		return done >= n, fmt.Sprintf("%d terminal", done)
	})

	mu.Lock()
	defer mu.Unlock()
	total := 0
	for _, j := range jobs {
		if c := runsByID[j.ID]; c != 1 {
			t.Errorf("job %d ran %d times, want exactly 1", j.ID, c)
		}
		total += runsByID[j.ID]
	}
	if total != n || len(runsByID) != n {
		t.Fatalf("handlers ran %d times over %d distinct ids, want %d runs of %d ids", total, len(runsByID), n, n)
	}
	if runsByClient[0] == 0 || runsByClient[1] == 0 {
		t.Fatalf("runs per client = %v: both clients should have worked the shared backlog", runsByClient)
	}
	rows, err := pool.Query(ctx, `SELECT id, count(*), bool_and(state = 'completed') FROM awa.terminal_jobs
		WHERE queue = 'shared' GROUP BY id HAVING count(*) <> 1 OR NOT bool_and(state = 'completed')`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var id, c int64
		var completed bool
		if err := rows.Scan(&id, &c, &completed); err != nil {
			t.Fatal(err)
		}
		t.Errorf("job %d has %d terminal records (all completed: %v), want exactly one completed", id, c, completed)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	t.Logf("runs per client %v, max concurrent handlers %d", runsByClient, maxConcurrent.Load())
}

// leaseHolder reads the maintenance lease row: its holder, and whether it is
// unexpired on the database clock.
func leaseHolder(t *testing.T, pool *pgxpool.Pool) (holder [16]byte, live, found bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	rows, err := pool.Query(ctx, "SELECT holder, expires_at > clock_timestamp() FROM awa.leader_leases WHERE name = 'maintenance'")
	if err != nil {
		t.Fatalf("read leader lease: %v", err)
	}
	defer rows.Close()
	for rows.Next() {
		if err := rows.Scan(&holder, &live); err != nil {
			t.Fatalf("read leader lease: %v", err)
		}
		found = true
	}
	if err := rows.Err(); err != nil {
		t.Fatalf("read leader lease: %v", err)
	}
	return holder, live, found
}

// leaderWatch samples IsLeader of both clients in the background and records
// any sample where both claimed to lead (checked as a then b then a again, so
// a hand-over between two reads is not mistaken for an overlap).
type leaderWatch struct {
	stop     chan struct{}
	done     chan struct{}
	samples  atomic.Int64
	overlaps atomic.Int64
}

func watchLeaders(a, b *driver.Client) *leaderWatch {
	w := &leaderWatch{stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(w.done)
		for {
			select {
			case <-w.stop:
				return
			case <-time.After(5 * time.Millisecond):
			}
			a1 := a.IsLeader()
			b1 := b.IsLeader()
			a2 := a.IsLeader()
			w.samples.Add(1)
			if a1 && b1 && a2 {
				w.overlaps.Add(1)
			}
		}
	}()
	return w
}

func (w *leaderWatch) finish(t *testing.T) {
	t.Helper()
	close(w.stop)
	<-w.done
	if o := w.overlaps.Load(); o > 0 {
		t.Errorf("both clients reported IsLeader() in %d of %d samples", o, w.samples.Load())
	}
}

type tickArgs struct {
	Tag string `json:"tag"`
}

func (tickArgs) Kind() string { return "tick" }

// TestLeaderFailover: of two clients exactly one leads; terminating the
// leader's backends does not make both lead; when the leader loses the
// database for good (its connections cut and refused) the other takes over
// within a few seconds, never overlapping, and maintenance (promotion of a
// scheduled job) works under the new leader. Each client reaches the
// database through its own TCP proxy, so either can be cut off.
func TestLeaderFailover(t *testing.T) {
	t.Parallel()
	ctx := pgtest.Context(t, 2*time.Minute)
	dsn := pgtest.NewDBDSN(t)
	admin := poolThrough(t, dsn, nil, "awa-test-admin")
	inserter, err := driver.NewClient(admin, nil)
	if err != nil {
		t.Fatal(err)
	}

	ran := make(chan string, 10)
	maint := fastMaintenance()
	maint.LeaderTTL = 2 * time.Second // 1s works too, but leaves little slack on a loaded machine
	maint.ElectInterval = 200 * time.Millisecond
	names := [2]string{"A", "B"}
	var proxies [2]*tcpProxy
	var clients [2]*driver.Client
	for i, name := range names {
		proxies[i] = newTCPProxy(t, upstreamAddr(t, dsn))
		pool := poolThrough(t, dsn, proxies[i], "awa-test-"+name)
		workers := workersFor(func(ctx context.Context, j *driver.Job[tickArgs]) error {
			ran <- name + ":" + j.Args.Tag
			return nil
		})
		log, _ := testLogger(t, name)
		clients[i] = startClient(t, pool, &driver.Config{
			Queues:            map[string]driver.QueueConfig{"ticks": {MaxWorkers: 2}},
			Workers:           workers,
			Logger:            log,
			FetchPollInterval: 100 * time.Millisecond,
			HeartbeatInterval: 200 * time.Millisecond,
			Maintenance:       maint,
		})
		if i == 0 {
			waitFor(t, 15*time.Second, "client A to lead", func() (bool, string) { return clients[0].IsLeader(), "" })
		}
	}
	a, b := clients[0], clients[1]
	w := watchLeaders(a, b)
	defer w.finish(t)
	state := func() string { return fmt.Sprintf("A leads %v, B leads %v", a.IsLeader(), b.IsLeader()) }

	// Steady state: A leads, B does not, and the lease row says A.
	for i := 0; i < 20; i++ {
		if !a.IsLeader() || b.IsLeader() {
			t.Fatalf("sample %d: %s; want exactly A (it took the lease first and renews it)", i, state())
		}
		time.Sleep(25 * time.Millisecond)
	}
	if holder, live, _ := leaseHolder(t, admin); holder != a.InstanceID() || !live {
		t.Fatalf("lease held by %x (live %v), want A %x", holder, live, a.InstanceID())
	}

	schedule := func(tag string) {
		t.Helper()
		if _, err := inserter.Insert(ctx, tickArgs{Tag: tag}, &driver.InsertOpts{Queue: "ticks", RunAt: time.Now().Add(300 * time.Millisecond)}); err != nil {
			t.Fatal(err)
		}
		select {
		case who := <-ran:
			t.Logf("scheduled job %s ran on %s", tag, who)
		case <-time.After(20 * time.Second):
			t.Fatalf("scheduled job %s was not promoted and run within 20s (%s)", tag, state())
		}
	}
	leader := func() int {
		t.Helper()
		var l int
		waitFor(t, 15*time.Second, "exactly one leader", func() (bool, string) {
			al, bl := a.IsLeader(), b.IsLeader()
			if al {
				l = 0
			} else {
				l = 1
			}
			return al != bl, state()
		})
		return l
	}

	// Terminate A's backends: its pool reconnects; whoever leads, it is one.
	if _, err := admin.Exec(ctx, `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
		WHERE datname = current_database() AND application_name = 'awa-test-A'`); err != nil {
		t.Fatal(err)
	}
	l := leader()
	t.Logf("after terminating A's backends %s leads", names[l])
	schedule("after-terminate")

	// Cut the leader off the database for good.
	l = leader()
	f := 1 - l
	cutAt := time.Now()
	proxies[l].Cut()
	waitFor(t, 15*time.Second, names[f]+" to take over after "+names[l]+" lost the database", func() (bool, string) {
		return clients[f].IsLeader(), state()
	})
	t.Logf("%s leads %s after the cut (TTL 2s)", names[f], time.Since(cutAt).Round(time.Millisecond))
	if clients[l].IsLeader() {
		t.Fatalf("%s still reports leading after %s took over", names[l], names[f])
	}
	if holder, live, _ := leaseHolder(t, admin); holder != clients[f].InstanceID() || !live {
		t.Fatalf("lease held by %x (live %v), want %s %x", holder, live, names[f], clients[f].InstanceID())
	}
	schedule("after-failover")
}

// TestCleanStopReleasesLeadership: a leader that stops cleanly releases the
// lease at once, so the other client leads long before the 30s TTL.
func TestCleanStopReleasesLeadership(t *testing.T) {
	ctx, pool := parallelDB(t, time.Minute)
	maint := fastMaintenance()
	maint.LeaderTTL = 30 * time.Second
	maint.ElectInterval = 200 * time.Millisecond
	mk := func(name string) *driver.Client {
		log, _ := testLogger(t, name)
		return startClient(t, pool, &driver.Config{Logger: log, Maintenance: maint})
	}
	a := mk("A")
	waitFor(t, 15*time.Second, "A to lead", func() (bool, string) { return a.IsLeader(), "" })
	b := mk("B")
	time.Sleep(500 * time.Millisecond) // B tries (and fails) a few times
	if b.IsLeader() || !a.IsLeader() {
		t.Fatalf("A leads %v, B leads %v; want A only", a.IsLeader(), b.IsLeader())
	}
	stopAt := time.Now()
	if err := a.Stop(ctx); err != nil {
		t.Fatalf("Stop: %v", err)
	}
	if a.IsLeader() {
		t.Fatal("A reports leading after Stop")
	}
	if holder, _, found := leaseHolder(t, pool); found && holder == a.InstanceID() {
		t.Fatalf("A's lease row is still there right after Stop returned")
	}
	waitFor(t, 10*time.Second, "B to lead after A stopped cleanly (well before the 30s TTL)", func() (bool, string) {
		return b.IsLeader(), ""
	})
	t.Logf("B leads %s after A's Stop began", time.Since(stopAt).Round(time.Millisecond))
}

type histArgs struct{}

func (histArgs) Kind() string { return "hist" }

// TestLeaderChangeKeepsTerminalHistory: with QueueRingInterval = 1h the docs
// promise terminal history readable for about 15h ((16-1) x 1h). A change of
// maintenance leader (a clean stop of the leader, as in any deploy) must not
// shorten that: a job completed just before the change stays in
// awa.terminal_jobs after the new leader's ring services have run.
func TestLeaderChangeKeepsTerminalHistory(t *testing.T) {
	ctx, pool := parallelDB(t, time.Minute)
	workers := workersFor(func(ctx context.Context, j *driver.Job[histArgs]) error { return nil })
	logA, _ := testLogger(t, "A")
	a := startClient(t, pool, &driver.Config{
		Queues: map[string]driver.QueueConfig{"hist": {MaxWorkers: 1}}, Workers: workers,
		Logger: logA, FetchPollInterval: 50 * time.Millisecond, Maintenance: fastMaintenance(),
	})
	waitFor(t, 15*time.Second, "A to lead", func() (bool, string) { return a.IsLeader(), "" })
	job, err := a.Insert(ctx, histArgs{}, &driver.InsertOpts{Queue: "hist"})
	if err != nil {
		t.Fatal(err)
	}
	waitJobState(t, pool, job.ID, "completed", 20*time.Second)
	if err := a.Stop(ctx); err != nil {
		t.Fatal(err)
	}

	logB, _ := testLogger(t, "B")
	b, evB := startClientEvents(t, pool, &driver.Config{Logger: logB, Maintenance: fastMaintenance()})
	waitFor(t, 15*time.Second, "B to lead", func() (bool, string) { return b.IsLeader(), "" })
	// Give B's ring services the chance to run: until its first queue-ring
	// prune is reported, or 3s if it runs none (an implementation may well wait
	// a QueueRingInterval before its first rotation).
	for deadline := time.Now().Add(3 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if len(evB.of(driver.EventRingMaintenance, func(e *driver.Event) bool {
			return e.Ring.Ring == "queue" && e.Ring.Action == "prune"
		})) > 0 {
			break
		}
	}
	for _, e := range evB.of(driver.EventRingMaintenance, func(e *driver.Event) bool { return e.Ring.Ring == "queue" }) {
		t.Logf("B queue ring: %+v", *e.Ring)
	}
	var n int
	if err := pool.QueryRow(ctx, "SELECT count(*) FROM awa.terminal_jobs WHERE id = $1", job.ID).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 1 {
		t.Fatalf("job %d completed moments ago has %d rows in awa.terminal_jobs after a leader change, want 1: "+
			"the new leader rotated and pruned the queue ring at once instead of after QueueRingInterval (1h)", job.ID, n)
	}
}

// TestIsLeaderDuringStartStop: IsLeader may be polled from another goroutine
// (a health check) while the client starts and stops. Under -race this
// reports a data race if Start publishes the client's elector without
// synchronization. Not parallel: the race detector fails every test running
// when it fires.
func TestIsLeaderDuringStartStop(t *testing.T) {
	ctx := pgtest.Context(t, time.Minute)
	pool := pgtest.NewDB(t)
	log, _ := testLogger(t, "client")
	c, err := driver.NewClient(pool, &driver.Config{Logger: log, Maintenance: fastMaintenance()})
	if err != nil {
		t.Fatal(err)
	}
	stop, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		for {
			select {
			case <-stop:
				return
			case <-time.After(time.Millisecond):
				_ = c.IsLeader()
			}
		}
	}()
	for i := 0; i < 3; i++ {
		if err := c.Start(ctx); err != nil {
			t.Fatal(err)
		}
		waitFor(t, 15*time.Second, "the client to lead", func() (bool, string) { return c.IsLeader(), "" })
		if err := c.Stop(ctx); err != nil {
			t.Fatal(err)
		}
	}
	close(stop)
	<-done
}

type cursorArgs struct{}

func (cursorArgs) Kind() string { return "cursor" }

// TestLeaderPrunesThenRotatesTheCursorRing: with CursorRingInterval 200ms and
// jobs claimed all along, the leader prunes the cursor ring's sealed slot and
// then rotates into it on each tick, so the ring keeps turning (never
// skipped_busy) and holds marks of at most about two intervals; every job
// still runs once.
func TestLeaderPrunesThenRotatesTheCursorRing(t *testing.T) {
	ctx, pool := parallelDB(t, time.Minute)
	workers, runs := countingWorkers[cursorArgs]()
	log, _ := testLogger(t, "cursor")
	m := fastMaintenance()
	m.CursorRingInterval = 200 * time.Millisecond
	c, events := startClientEvents(t, pool, &driver.Config{
		Queues:            map[string]driver.QueueConfig{"cur": {MaxWorkers: 4}},
		Workers:           workers,
		Logger:            log,
		FetchPollInterval: 20 * time.Millisecond,
		Maintenance:       m,
	})
	waitFor(t, 15*time.Second, "the client to lead", func() (bool, string) { return c.IsLeader(), "" })
	const n = 60
	for i := 0; i < n; i++ {
		if _, err := c.Insert(ctx, cursorArgs{}, &driver.InsertOpts{Queue: "cur"}); err != nil {
			t.Fatal(err)
		}
		time.Sleep(40 * time.Millisecond) // 2.4 s of claims: about 12 ticks
	}
	waitFor(t, 15*time.Second, "every job to run", func() (bool, string) {
		return runs.Load() == n, fmt.Sprintf("%d runs", runs.Load())
	})
	count := func(action, outcome string) int {
		return len(events.of(driver.EventRingMaintenance, func(e *driver.Event) bool {
			return e.Ring.Ring == "cursor" && e.Ring.Action == action && e.Ring.Outcome == outcome
		}))
	}
	if p, r := count("prune", "pruned"), count("rotate", "rotated"); p < 3 || r < 3 {
		t.Fatalf("cursor ring: %d prunes and %d rotations logged, want at least 3 each", p, r)
	}
	if b := count("rotate", "skipped_busy"); b > 0 {
		t.Errorf("cursor ring: %d rotations skipped_busy; prune runs first, so the incoming slot should be empty", b)
	}
	var gen int64
	if err := pool.QueryRow(ctx, `SELECT max(generation) FROM awa.ring_rotations WHERE ring = 'cursor'`).Scan(&gen); err != nil {
		t.Fatal(err)
	}
	if gen < 3 {
		t.Errorf("cursor ring at generation %d, want at least 3", gen)
	}
	if got := runs.Load(); got != n {
		t.Fatalf("%d handler runs, want %d", got, n)
	}
}
