package driver_test

// Every pgx exec mode, directly and through PgBouncer in transaction mode
// (docs/poolers.md): the demo's workload in each, the fail-fast check of
// Start, and the warnings for a LISTEN that receives nothing.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/awa-queue/awa/driver"
	"github.com/awa-queue/awa/internal/pgtest"
)

// execModes are pgx's values of default_query_exec_mode.
var execModes = []string{"cache_statement", "cache_describe", "describe_exec", "exec", "simple_protocol"}

// transactionPoolerModes are the exec modes that work through PgBouncer in
// transaction mode: no statement outlives its round trip.
var transactionPoolerModes = []string{"cache_describe", "exec", "simple_protocol"}

// withParams returns the URL dsn with query parameters set.
func withParams(t *testing.T, dsn string, kv ...string) string {
	t.Helper()
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatalf("parse DSN: %v", err)
	}
	q := u.Query()
	for i := 0; i < len(kv); i += 2 {
		q.Set(kv[i], kv[i+1])
	}
	u.RawQuery = q.Encode()
	return u.String()
}

// modeArgs: the tests' args types look alike on purpose: a kind is a
// type (driver.JobArgs), and each test names its own.
type modeArgs struct {
	N int `json:"n"`
}

func (modeArgs) Kind() string { return "mode_job" }

const (
	modeQueue = "modes"
	modeJobs  = 140
)

// produceEveryWay inserts jobs first..first+69 into modeQueue: the client's
// Insert, InsertTx, InsertMany and InsertManyCopy, and plain SQL producers
// (awa.insert_job with JSON as a string and as a json.RawMessage,
// awa.insert_jobs with string arrays), as an application would write them.
func produceEveryWay(t *testing.T, ctx context.Context, c *driver.Client, pool *pgxpool.Pool, first int) {
	t.Helper()
	n := first
	next := func() modeArgs { n++; return modeArgs{N: n - 1} }
	opts := &driver.InsertOpts{Queue: modeQueue}
	for range 5 {
		if _, err := c.Insert(ctx, next(), opts); err != nil {
			t.Fatalf("Insert: %v", err)
		}
	}
	err := pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		for range 5 {
			if _, err := c.InsertTx(ctx, tx, next(), opts); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatalf("InsertTx: %v", err)
	}
	var many []driver.InsertManyParams
	for range 20 {
		many = append(many, driver.InsertManyParams{Args: next(), Opts: opts})
	}
	if _, err := c.InsertMany(ctx, many); err != nil {
		t.Fatalf("InsertMany: %v", err)
	}
	many = many[:0]
	for range 20 {
		many = append(many, driver.InsertManyParams{Args: next(), Opts: opts})
	}
	if _, err := c.InsertManyCopy(ctx, many); err != nil {
		t.Fatalf("InsertManyCopy: %v", err)
	}
	sqlOpts := `{"queue": "` + modeQueue + `"}`
	for i := range 10 {
		var args any = fmt.Sprintf(`{"n": %d}`, next().N)
		if i%2 == 1 {
			args = json.RawMessage(args.(string))
		}
		var id int64
		if err := pool.QueryRow(ctx, "SELECT id FROM awa.insert_job($1, $2, $3)", "mode_job", args, sqlOpts).Scan(&id); err != nil {
			t.Fatalf("SQL producer, awa.insert_job with args %T: %v", args, err)
		}
	}
	var kinds, argsList, optsList []string
	for range 10 {
		kinds = append(kinds, "mode_job")
		argsList = append(argsList, fmt.Sprintf(`{"n": %d}`, next().N))
		optsList = append(optsList, sqlOpts)
	}
	rows, err := pool.Query(ctx, "SELECT id FROM awa.insert_jobs($1, $2, $3)", kinds, argsList, optsList)
	if err == nil {
		var ids []int64
		ids, err = pgx.CollectRows(rows, pgx.RowTo[int64])
		if err == nil && len(ids) != 10 {
			err = fmt.Errorf("%d ids for 10 jobs", len(ids))
		}
	}
	if err != nil {
		t.Fatalf("SQL producer, awa.insert_jobs: %v", err)
	}
	if n != first+modeJobs/2 {
		t.Fatalf("produced %d jobs, want %d", n-first, modeJobs/2)
	}
}

// runWorkload runs the demo's workload on a pool opened from poolDSN: half
// the jobs inserted before the client starts and half after, every producer
// of produceEveryWay; a tenth fail their first attempt, a tenth snooze once;
// maintenance runs (rings rotate and prune). Every job must complete, its
// handler succeeding exactly once, with nothing logged at Warn or above.
func runWorkload(t *testing.T, poolDSN, listenDSN string) {
	ctx := pgtest.Context(t, 90*time.Second)
	pool := openPool(t, poolDSN)
	var mu sync.Mutex
	completed := map[int]int{}
	workers := driver.NewWorkers()
	driver.AddWorker(workers, driver.WorkFunc(func(ctx context.Context, j *driver.Job[modeArgs]) error {
		switch {
		case j.Args.N%10 == 3 && j.Attempt == 1:
			return errors.New("first attempt fails")
		case j.Args.N%10 == 7 && !j.RunAt.After(j.CreatedAt): // not snoozed yet
			return driver.JobSnooze(20 * time.Millisecond)
		}
		mu.Lock()
		completed[j.Args.N]++
		mu.Unlock()
		return nil
	}))
	maint := fastMaintenance()
	maint.QueueRingInterval, maint.ClaimRingInterval = time.Second, time.Second
	maint.LeaseRingInterval, maint.CursorRingInterval = time.Second, time.Second
	logger, rec := testLogger(t, "client")
	client, err := driver.NewClient(pool, &driver.Config{
		Queues:      map[string]driver.QueueConfig{modeQueue: {MaxWorkers: 10}},
		Workers:     workers,
		Logger:      logger,
		Maintenance: maint,
		ListenDSN:   listenDSN,
	})
	if err != nil {
		t.Fatalf("NewClient: %v", err)
	}
	ch, cancel := client.Subscribe()
	t.Cleanup(cancel)
	events := collect(ch)

	produceEveryWay(t, ctx, client, pool, 0)
	if err := client.Start(ctx); err != nil {
		t.Fatalf("Start: %v", err)
	}
	produceEveryWay(t, ctx, client, pool, modeJobs/2)

	waitFor(t, 60*time.Second, "every job completed", func() (bool, string) {
		counts, err := client.Driver().QueueCounts(ctx, pool, modeQueue)
		if err != nil {
			return false, err.Error()
		}
		return len(counts) == 1 && counts[0].Completed == modeJobs, fmt.Sprintf("%+v", counts)
	})
	if err := client.Stop(ctx); err != nil {
		t.Fatalf("Stop: %v", err)
	}
	mu.Lock()
	defer mu.Unlock()
	for n := range modeJobs {
		if completed[n] != 1 {
			t.Errorf("job n=%d: handler succeeded %d times, want once", n, completed[n])
		}
	}
	if got := len(events.of(driver.EventJobCompleted, nil)); got != modeJobs {
		t.Errorf("%d job_completed events, want %d", got, modeJobs)
	}
	if got := len(events.of(driver.EventJobRetried, nil)); got != modeJobs/10 {
		t.Errorf("%d job_retried events, want %d", got, modeJobs/10)
	}
	if got := len(events.of(driver.EventJobSnoozed, nil)); got != modeJobs/10 {
		t.Errorf("%d job_snoozed events, want %d", got, modeJobs/10)
	}
	if got := events.of(driver.EventNotificationsMissing, nil); len(got) != 0 {
		t.Errorf("notifications reported missing: %+v", got[0].Notifications)
	}
	if len(events.of(driver.EventRingMaintenance, func(e *driver.Event) bool { return e.Ring.Action == "rotate" })) == 0 {
		t.Errorf("no ring rotation ran; events: %s", events.kinds())
	}
	if bad := rec.find("", func(e logEntry) bool { return e.Level >= slog.LevelWarn }); len(bad) > 0 {
		t.Errorf("the client logged %d warnings or errors, first: %s %v", len(bad), bad[0].Msg, bad[0].Attrs)
	}
}

func TestWorkloadInEveryExecMode(t *testing.T) {
	for _, mode := range execModes {
		t.Run(mode, func(t *testing.T) {
			runWorkload(t, withParams(t, pgtest.NewDBDSN(t), "default_query_exec_mode", mode, "pool_max_conns", "8"), "")
		})
	}
}

// TestWorkloadThroughPgBouncer runs the workload through PgBouncer in
// transaction mode (2 server connections per database, so server
// connections change hands all the time) in the exec modes it supports, the
// listener on a direct connection (Config.ListenDSN).
func TestWorkloadThroughPgBouncer(t *testing.T) {
	bouncer := pgtest.StartPgBouncer(t, "transaction", 2)
	for _, mode := range transactionPoolerModes {
		t.Run(mode, func(t *testing.T) {
			direct := pgtest.NewDBDSN(t)
			runWorkload(t, withParams(t, bouncer.DSN(direct), "default_query_exec_mode", mode, "pool_max_conns", "8"), direct)
		})
	}
}

// registeredProcesses counts the rows of awa.runtime_instances: Start
// registers its process there before it starts anything.
func registeredProcesses(t *testing.T, pool *pgxpool.Pool) int {
	t.Helper()
	var n int
	if err := pool.QueryRow(pgtest.Context(t, 10*time.Second), "SELECT count(*) FROM awa.runtime_instances").Scan(&n); err != nil {
		t.Fatalf("count runtime instances: %v", err)
	}
	return n
}

func TestStartRefusesATransactionPoolerInModesThatNeedSessionState(t *testing.T) {
	bouncer := pgtest.StartPgBouncer(t, "transaction", 2)
	direct := pgtest.NewDBDSN(t)
	directPool := openPool(t, direct)
	for _, mode := range []string{"cache_statement", "describe_exec"} {
		t.Run(mode, func(t *testing.T) {
			pool := openPool(t, withParams(t, bouncer.DSN(direct), "default_query_exec_mode", mode))
			client, err := driver.NewClient(pool, &driver.Config{
				Queues:  map[string]driver.QueueConfig{modeQueue: {MaxWorkers: 1}},
				Workers: driver.NewWorkers(),
			})
			if err != nil {
				t.Fatalf("NewClient: %v", err)
			}
			err = client.Start(pgtest.Context(t, 30*time.Second))
			if !errors.Is(err, driver.ErrTransactionPooler) {
				t.Fatalf("Start through a transaction pooler in %s: got %v, want ErrTransactionPooler", mode, err)
			}
			for _, want := range []string{"default_query_exec_mode=" + mode, "exec, simple_protocol or cache_describe"} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q does not say %q", err, want)
				}
			}
			if n := registeredProcesses(t, directPool); n != 0 {
				t.Errorf("a refused Start registered %d processes, want none", n)
			}
		})
	}
}

// TestStartAcceptsASessionPooler: in session mode a client keeps its server
// connection, so named prepared statements work and the probe must not
// refuse the default exec mode.
func TestStartAcceptsASessionPooler(t *testing.T) {
	// In session mode each client connection holds a server connection for
	// its life: the pool's connections (pgxpool's default MaxConns, 4 on this
	// machine) plus the one the listener takes out of the pool for good. A
	// server pool of 4 left one of them waiting for a server connection that
	// never came free, and which one was left waiting was a race (the claim
	// or the shared poll: the job then stayed available).
	bouncer := pgtest.StartPgBouncer(t, "session", 8)
	direct := pgtest.NewDBDSN(t)
	pool := openPool(t, withParams(t, bouncer.DSN(direct), "default_query_exec_mode", "cache_statement"))
	workers := driver.NewWorkers()
	driver.AddWorker(workers, driver.WorkFunc(func(ctx context.Context, j *driver.Job[modeArgs]) error { return nil }))
	client, events := startClientEvents(t, pool, &driver.Config{
		Queues:  map[string]driver.QueueConfig{modeQueue: {MaxWorkers: 1}},
		Workers: workers,
	})
	job, err := client.Insert(pgtest.Context(t, 10*time.Second), modeArgs{N: 42}, &driver.InsertOpts{Queue: modeQueue})
	if err != nil {
		t.Fatalf("Insert: %v", err)
	}
	waitJobState(t, pool, job.ID, "completed", 20*time.Second)
	if got := events.of(driver.EventNotificationsMissing, nil); len(got) != 0 {
		t.Fatalf("a session pooler was taken for a transaction pooler: %+v", got[0].Notifications)
	}
}

// TestStartWarnsWhenListenWouldGoThroughATransactionPooler: in a supported
// mode Start goes on, but LISTEN through the pool would receive nothing, so
// it says so (log and event) unless Config.ListenDSN gives the listener its
// own connection.
func TestStartWarnsWhenListenWouldGoThroughATransactionPooler(t *testing.T) {
	bouncer := pgtest.StartPgBouncer(t, "transaction", 2)
	direct := pgtest.NewDBDSN(t)
	pool := openPool(t, withParams(t, bouncer.DSN(direct), "default_query_exec_mode", "exec"))
	for _, listenDSN := range []string{"", direct} {
		logger, rec := testLogger(t, "client")
		_, events := startClientEvents(t, pool, &driver.Config{
			Queues:  map[string]driver.QueueConfig{modeQueue: {MaxWorkers: 1}},
			Workers: driver.NewWorkers(),
			Logger:  logger,
			// Both clients would otherwise compete for leadership; not the point here.
			DisableMaintenance: true,
			ListenDSN:          listenDSN,
		})
		missing := events.of(driver.EventNotificationsMissing, nil)
		warned := rec.find("LISTEN receives no notification", func(e logEntry) bool { return e.Level == slog.LevelWarn })
		if listenDSN != "" {
			if len(missing) != 0 || len(warned) != 0 {
				t.Errorf("with ListenDSN set: %d events and %d warnings, want none", len(missing), len(warned))
			}
			continue
		}
		if len(missing) != 1 || missing[0].Notifications.Reason != driver.MissingBehindTransactionPooler {
			t.Errorf("without ListenDSN: events %s, want one notifications_missing (%s)", events.kinds(),
				driver.MissingBehindTransactionPooler)
		}
		if len(warned) != 1 || warned[0].Attrs["exec_mode"] != "exec" {
			t.Errorf("without ListenDSN: warnings %+v, want one naming exec_mode exec", warned)
		}
	}
}

// TestClientWarnsWhenNotificationsNeverArrive: a listener whose LISTEN goes
// through a transaction pooler (here a ListenDSN pointing at PgBouncer)
// receives nothing; the jobs are found by polling, and after a window the
// client warns. A client listening directly, fed the same jobs, does not.
func TestClientWarnsWhenNotificationsNeverArrive(t *testing.T) {
	bouncer := pgtest.StartPgBouncer(t, "transaction", 2)
	direct := pgtest.NewDBDSN(t)
	pool := openPool(t, direct)
	const window = 1500 * time.Millisecond
	start := func(queue, listenDSN string) (*eventLog, *logRecorder) {
		workers := driver.NewWorkers()
		driver.AddWorker(workers, driver.WorkFunc(func(ctx context.Context, j *driver.Job[modeArgs]) error { return nil }))
		logger, rec := testLogger(t, queue)
		_, events := startClientEvents(t, pool, &driver.Config{
			Queues:             map[string]driver.QueueConfig{queue: {MaxWorkers: 2}},
			Workers:            workers,
			Logger:             logger,
			FetchPollInterval:  100 * time.Millisecond,
			ListenWatchWindow:  window,
			ListenDSN:          listenDSN,
			DisableMaintenance: true,
		})
		return events, rec
	}
	silentEvents, silentLog := start("silent", bouncer.DSN(direct))
	heardEvents, heardLog := start("heard", direct)

	ctx := pgtest.Context(t, 30*time.Second)
	began := time.Now()
	for i := 0; ; i++ {
		for _, q := range []string{"silent", "heard"} {
			if _, err := pool.Exec(ctx, "SELECT awa.insert_job('mode_job', $1, $2)",
				fmt.Sprintf(`{"n": %d}`, i), `{"queue": "`+q+`"}`); err != nil {
				t.Fatalf("insert: %v", err)
			}
		}
		if len(silentEvents.of(driver.EventNotificationsMissing, nil)) > 0 && time.Since(began) > 3*window {
			break
		}
		if time.Since(began) > 10*window {
			t.Fatalf("no notifications_missing after %s of jobs found by polling; events: %s", 10*window, silentEvents.kinds())
		}
		time.Sleep(200 * time.Millisecond)
	}
	missing := silentEvents.of(driver.EventNotificationsMissing, nil)
	if len(missing) != 1 {
		t.Fatalf("%d notifications_missing events over %s of silence, want one (once per silence)", len(missing), time.Since(began))
	}
	m := missing[0].Notifications
	if m.Reason != driver.MissingSilentListener || m.Window != window || m.PolledClaims < 3 {
		t.Errorf("event %+v, want reason %s, window %s and at least 3 polled claims", m, driver.MissingSilentListener, window)
	}
	if w := silentLog.find("No notification arrived", func(e logEntry) bool { return e.Level == slog.LevelWarn }); len(w) != 1 {
		t.Errorf("%d warnings logged, want one", len(w))
	}
	if got := heardEvents.of(driver.EventNotificationsMissing, nil); len(got) != 0 {
		t.Errorf("the directly listening client reported notifications missing: %+v", got[0].Notifications)
	}
	if w := heardLog.find("No notification arrived", nil); len(w) != 0 {
		t.Errorf("the directly listening client warned: %+v", w)
	}
}

// poolerEntryPoints are the client's calls that reach the database before
// Start, each on a fresh client: an insert-only client (or one that inserts
// before it starts, as the demo does) is probed by its first call.
var poolerEntryPoints = []struct {
	name string
	call func(ctx context.Context, c *driver.Client, pool *pgxpool.Pool) error
}{
	{"Insert", func(ctx context.Context, c *driver.Client, _ *pgxpool.Pool) error {
		_, err := c.Insert(ctx, modeArgs{N: 1}, &driver.InsertOpts{Queue: modeQueue})
		return err
	}},
	{"InsertTx", func(ctx context.Context, c *driver.Client, pool *pgxpool.Pool) error {
		return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
			_, err := c.InsertTx(ctx, tx, modeArgs{N: 1}, &driver.InsertOpts{Queue: modeQueue})
			return err
		})
	}},
	{"InsertMany", func(ctx context.Context, c *driver.Client, _ *pgxpool.Pool) error {
		_, err := c.InsertMany(ctx, []driver.InsertManyParams{{Args: modeArgs{N: 1}, Opts: &driver.InsertOpts{Queue: modeQueue}}})
		return err
	}},
	{"InsertManyCopyTx", func(ctx context.Context, c *driver.Client, pool *pgxpool.Pool) error {
		return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
			_, err := c.InsertManyCopyTx(ctx, tx, []driver.InsertManyParams{{Args: modeArgs{N: 1}, Opts: &driver.InsertOpts{Queue: modeQueue}}})
			return err
		})
	}},
}

// TestEveryEntryPointRefusesATransactionPooler: through PgBouncer in
// transaction mode, in an exec mode it cannot serve, the first call of a
// client that has not started fails with ErrTransactionPooler and writes
// nothing, rather than with pgx's prepared-statement error somewhere later.
// The pools hold a single connection, which the transactional entry points
// keep in their transaction while the probe runs: the probe uses connections
// of its own, so it neither waits for the pool nor gives up. Through a
// session pooler the same calls succeed.
func TestEveryEntryPointRefusesATransactionPooler(t *testing.T) {
	bouncer := pgtest.StartPgBouncer(t, "transaction", 2)
	session := pgtest.StartPgBouncer(t, "session", 4)
	direct := pgtest.NewDBDSN(t)
	directPool := openPool(t, direct)
	for _, mode := range []string{"cache_statement", "describe_exec"} {
		for _, ep := range poolerEntryPoints {
			t.Run(mode+"/"+ep.name, func(t *testing.T) {
				ctx := pgtest.Context(t, 30*time.Second)
				pool := openPool(t, withParams(t, bouncer.DSN(direct), "default_query_exec_mode", mode, "pool_max_conns", "1"))
				client, err := driver.NewClient(pool, &driver.Config{DisableMaintenance: true})
				if err != nil {
					t.Fatalf("NewClient: %v", err)
				}
				for i := range 3 { // the refusal is remembered, not a one-off
					err = ep.call(ctx, client, pool)
					if !errors.Is(err, driver.ErrTransactionPooler) {
						t.Fatalf("call %d: got %v, want ErrTransactionPooler", i+1, err)
					}
				}
				if !strings.Contains(err.Error(), "default_query_exec_mode="+mode) {
					t.Errorf("error %q does not name the exec mode", err)
				}
				if n := countJobs(t, directPool, "true"); n != 0 {
					t.Errorf("a refused call inserted %d jobs", n)
				}
			})
		}
	}
	t.Run("session pooler", func(t *testing.T) {
		ctx := pgtest.Context(t, 30*time.Second)
		before := countJobs(t, directPool, "true")
		for _, ep := range poolerEntryPoints {
			pool := openPool(t, withParams(t, session.DSN(direct), "default_query_exec_mode", "cache_statement", "pool_max_conns", "1"))
			client, err := driver.NewClient(pool, &driver.Config{DisableMaintenance: true})
			if err != nil {
				t.Fatalf("NewClient: %v", err)
			}
			for i := range 2 {
				if err := ep.call(ctx, client, pool); err != nil {
					t.Fatalf("%s through a session pooler, call %d: %v", ep.name, i+1, err)
				}
			}
			pool.Close() // gives its server connection back for the next probe
		}
		if n := countJobs(t, directPool, "true") - before; n != 2*len(poolerEntryPoints) {
			t.Errorf("%d jobs inserted through the session pooler, want %d", n, 2*len(poolerEntryPoints))
		}
	})
}

// TestStartRefusesATransactionPoolerThroughASingleConnectionPool: a pool of
// one connection cannot hold the two client connections the probe compares;
// the probe opens its own, so Start still refuses the pooler.
func TestStartRefusesATransactionPoolerThroughASingleConnectionPool(t *testing.T) {
	bouncer := pgtest.StartPgBouncer(t, "transaction", 2)
	direct := pgtest.NewDBDSN(t)
	pool := openPool(t, withParams(t, bouncer.DSN(direct), "pool_max_conns", "1"))
	client, err := driver.NewClient(pool, &driver.Config{
		Queues:  map[string]driver.QueueConfig{modeQueue: {MaxWorkers: 1}},
		Workers: driver.NewWorkers(),
	})
	if err != nil {
		t.Fatalf("NewClient: %v", err)
	}
	if err := client.Start(pgtest.Context(t, 30*time.Second)); !errors.Is(err, driver.ErrTransactionPooler) {
		t.Fatalf("Start through a transaction pooler on a one-connection pool: got %v, want ErrTransactionPooler", err)
	}
	if n := registeredProcesses(t, openPool(t, direct)); n != 0 {
		t.Errorf("a refused Start registered %d processes, want none", n)
	}
}
