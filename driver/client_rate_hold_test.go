package driver_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/awa-queue/awa/driver"
)

// TestARateLimitedClientDoesNotSpinWhileAnSQLClaimerHoldsTheBucket: an SQL
// session claims one job of a rate-limited queue inside a transaction it
// keeps open 2 s, so the bucket row stays locked; a client of the queue
// (FetchPollInterval 200 ms) started meanwhile claims nothing (its claims
// skip the held bucket rather than wait for it) and does not spin: its empty
// claims back off (1 ms doubling up to the poll interval, plus the polls),
// a few dozen calls in 2 s, not thousands. Once the holder commits, the
// client runs the queue's jobs.
func TestARateLimitedClientDoesNotSpinWhileAnSQLClaimerHoldsTheBucket(t *testing.T) {
	ctx, pool := parallelDB(t, 2*time.Minute)
	const queue, hold = "flow_hold", 2 * time.Second
	d := driver.New()
	if err := d.ConfigureQueue(ctx, pool, queue, driver.QueueOptions{
		RateLimit: &driver.RateLimit{PerSecond: 100, Burst: 10}}); err != nil {
		t.Fatal(err)
	}
	var params []driver.InsertManyParams
	for k := 0; k < 20; k++ {
		params = append(params, driver.InsertManyParams{Args: tenantArgs{}, Opts: &driver.InsertOpts{Queue: queue}})
	}
	producer, err := driver.NewClient(pool, &driver.Config{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := producer.InsertMany(ctx, params); err != nil {
		t.Fatal(err)
	}
	tx, err := pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = tx.Rollback(ctx) }()
	var held int
	if err := tx.QueryRow(ctx, `SELECT count(*) FROM awa.claim_ready_runtime($1, 1)`, queue).Scan(&held); err != nil {
		t.Fatal(err)
	}
	if held != 1 {
		t.Fatalf("the SQL claimer took %d jobs, want 1", held)
	}

	cfg := pool.Config().Copy()
	cfg.ConnConfig.RuntimeParams["track_functions"] = "all"
	p, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	workers, runs := countingWorkers[tenantArgs]()
	log, _ := testLogger(t, "hold")
	wc := workConfig(queue, 5, workers, log, nil)
	wc.FetchPollInterval = 200 * time.Millisecond
	c := startClient(t, p, wc)
	time.Sleep(hold)
	if n := runs.Load(); n != 0 {
		t.Fatalf("the client ran %d jobs while another session held the bucket", n)
	}
	// A claim waiting for the bucket would hold Stop (claims are not cut
	// short) until the holder commits, after this.
	stopStart := time.Now()
	if err := c.Stop(ctx); err != nil {
		t.Fatal(err)
	}
	if took := time.Since(stopStart); took > time.Second {
		t.Fatalf("Stop took %s: a claim was waiting for the held bucket", took)
	}
	p.Close() // the backends flush their function statistics as they exit
	var calls int64
	waitFor(t, 10*time.Second, "the client's function statistics", func() (bool, string) {
		if _, err := pool.Exec(ctx, `SELECT pg_stat_clear_snapshot()`); err != nil {
			t.Fatal(err)
		}
		if err := pool.QueryRow(ctx, `SELECT coalesce(sum(calls), 0) FROM pg_stat_user_functions
			WHERE schemaname = 'awa' AND funcname = 'claim_ready_runtime'`).Scan(&calls); err != nil {
			t.Fatal(err)
		}
		return calls > 0, fmt.Sprintf("%d claim calls", calls)
	})
	// The first claim, the backoff's ~8 steps to 200 ms and ~9 of 200 ms,
	// a poll every 200 ms (10): 28 here; a spin would be thousands.
	const bound = 3 * (1 + 8 + 9 + 10)
	t.Logf("%d claim calls in %s while the bucket was held (bound %d)", calls, hold, bound)
	if calls > bound {
		t.Fatalf("%d claim calls in %s while the bucket was held: the client spins (bound %d)", calls, hold, bound)
	}

	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	c2 := startClient(t, pool, workConfig(queue, 5, workers, log, nil))
	waitFor(t, 10*time.Second, "jobs run once the holder committed", func() (bool, string) {
		return runs.Load() > 0, fmt.Sprintf("%d jobs run", runs.Load())
	})
	if err := c2.Stop(ctx); err != nil {
		t.Fatal(err)
	}
}
