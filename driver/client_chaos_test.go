package driver_test

import (
	"context"
	"fmt"
	"math/rand"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/awa-queue/awa/driver"
	"github.com/awa-queue/awa/internal/pgtest"
)

// chaosArgs: the tests' args types look alike on purpose: a kind is a
// type (driver.JobArgs), and each test names its own.
type chaosArgs struct {
	N int `json:"n"`
}

func (chaosArgs) Kind() string { return "chaos_kind" }

// chaosSeconds is how long the killer terminates the client's backends
// (AWA_CHAOS_SECONDS, default 10).
func chaosSeconds(t *testing.T) time.Duration {
	t.Helper()
	s := os.Getenv("AWA_CHAOS_SECONDS")
	if s == "" {
		return 10 * time.Second
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 {
		t.Fatalf("AWA_CHAOS_SECONDS=%q: want a positive integer", s)
	}
	return time.Duration(n) * time.Second
}

// TestTerminatedConnectionsLoseNoJobAndRunNoneTwice: while a killer
// terminates one of a working client's backends (claims, finalizer calls,
// heartbeats, the listener, the maintenance leader's calls) every 2-22 ms, busy ones first,
// every job still ends completed exactly once, and no handler runs twice:
// a dropped connection is none of the windows docs/storage.md ("Delivery
// guarantee") allows a second run in (handlers here return at once, the
// process never stops heartbeating for long). Jobs whose claim reply was
// lost are rescued at their attempt deadline (RescueStuckAfter, 20 s here),
// so the wait after the chaos covers it.
func TestTerminatedConnectionsLoseNoJobAndRunNoneTwice(t *testing.T) {
	const jobs = 3000
	chaos := chaosSeconds(t)
	ctx := pgtest.Context(t, chaos+3*time.Minute)
	admin := pgtest.NewDB(t)

	cfg := admin.Config().Copy()
	cfg.ConnConfig.RuntimeParams["application_name"] = "awa_chaos_victim"
	victim, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(victim.Close)

	runs := &leaseLog{m: map[int64][]int64{}}
	workers := driver.NewWorkers()
	driver.AddWorker(workers, driver.WorkFunc(func(ctx context.Context, j *driver.Job[chaosArgs]) error {
		runs.add(j.ID, j.RunLease)
		time.Sleep(time.Duration(rand.Intn(3)) * time.Millisecond)
		return nil
	}))
	log, rec := testLogger(t, "chaos")
	m := fastMaintenance()
	// The queue ring keeps terminal history, which the final count reads: it
	// does not turn; the claim and cursor rings turn throughout.
	m.ClaimRingInterval, m.CursorRingInterval = 300*time.Millisecond, 300*time.Millisecond
	startClient(t, victim, &driver.Config{
		Queues:            map[string]driver.QueueConfig{"chaos": {MaxWorkers: 8}},
		Workers:           workers,
		Logger:            log,
		FetchBatchSize:    20,
		FetchPollInterval: 50 * time.Millisecond,
		JobTimeout:        5 * time.Second,
		RescueStuckAfter:  20 * time.Second,
		Maintenance:       m,
	})

	// Producer: jobs arrive through the chaos, from the admin pool (never killed).
	ids := make([]int64, 0, jobs)
	produced := make(chan error, 1)
	go func() {
		defer close(produced)
		per := chaos / time.Duration(jobs/50)
		for i := 0; i < jobs; i += 50 {
			rows, err := admin.Query(ctx, `SELECT j.id FROM awa.insert_jobs(array_fill('chaos_kind'::text, ARRAY[50]),
				array_fill('{"n":1}'::jsonb, ARRAY[50]), array_fill('{"queue":"chaos"}'::jsonb, ARRAY[50])) AS j`)
			var got []int64
			if err == nil {
				got, err = pgx.CollectRows(rows, pgx.RowTo[int64])
			}
			if err != nil {
				produced <- err
				return
			}
			ids = append(ids, got...)
			time.Sleep(per)
		}
	}()

	var kills atomic.Int64
	end := time.Now().Add(chaos)
	for time.Now().Before(end) {
		var n int64
		if err := admin.QueryRow(ctx, `
			SELECT count(pg_terminate_backend(a.pid)) FROM (
				SELECT pid FROM pg_stat_activity
				WHERE datname = current_database() AND application_name = 'awa_chaos_victim'
				ORDER BY state = 'active' DESC, random() LIMIT 1) AS a`).Scan(&n); err != nil {
			t.Fatalf("terminate: %v", err)
		}
		kills.Add(n)
		time.Sleep(time.Duration(2+rand.Intn(20)) * time.Millisecond)
	}
	if err := <-produced; err != nil {
		t.Fatalf("producer: %v", err)
	}
	t.Logf("%d backends terminated in %s; %d jobs inserted", kills.Load(), chaos, len(ids))

	waitFor(t, 90*time.Second, fmt.Sprintf("all %d jobs completed", len(ids)), func() (bool, string) {
		var done, open int64
		if err := admin.QueryRow(ctx, `SELECT count(*) FILTER (WHERE state = 'completed'), count(*) FILTER (WHERE state <> 'completed')
			FROM awa.jobs WHERE queue = 'chaos'`).Scan(&done, &open); err != nil {
			return false, err.Error()
		}
		return done == int64(len(ids)) && open == 0, fmt.Sprintf("%d completed, %d not", done, open)
	})

	var rowsTotal, distinct int64
	if err := admin.QueryRow(ctx, `SELECT count(*), count(DISTINCT id) FROM awa.terminal_jobs WHERE queue = 'chaos'`).
		Scan(&rowsTotal, &distinct); err != nil {
		t.Fatal(err)
	}
	if rowsTotal != int64(len(ids)) || distinct != int64(len(ids)) {
		t.Errorf("terminal_jobs holds %d rows for %d distinct jobs, want %d of each", rowsTotal, distinct, len(ids))
	}
	var twice, rescued []string
	for _, id := range ids {
		leases := runs.get(id)
		if len(leases) == 0 {
			t.Errorf("job %d completed without its handler running", id)
		}
		if len(leases) > 1 {
			twice = append(twice, fmt.Sprintf("job %d leases %v", id, leases))
		}
		if len(leases) == 1 && leases[0] > 1 {
			rescued = append(rescued, fmt.Sprintf("job %d ran first at lease %d", id, leases[0]))
		}
	}
	t.Logf("%d jobs spent an attempt without a run (lost claim replies): %v", len(rescued), head(rescued, 5))
	if len(twice) > 0 {
		t.Errorf("%d handlers ran twice after dropped connections: %v", len(twice), head(twice, 10))
	}
	_ = rec
}

// leaseLog records the run_lease of every handler call, by job id.
type leaseLog struct {
	mu sync.Mutex
	m  map[int64][]int64
}

func (l *leaseLog) add(id, lease int64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.m[id] = append(l.m[id], lease)
}

func (l *leaseLog) get(id int64) []int64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]int64(nil), l.m[id]...)
}

func head(s []string, n int) []string {
	if len(s) > n {
		return s[:n]
	}
	return s
}
