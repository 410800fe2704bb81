package driver_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/awa-queue/awa/driver"
	"github.com/awa-queue/awa/internal/pgtest"
)

// isoArgs: the tests' args types look alike on purpose: a kind is a
// type (driver.JobArgs), and each test names its own.
type isoArgs struct {
	N int `json:"n"`
}

func (isoArgs) Kind() string { return "iso_kind" }

// TestClientWorksWhenTheDatabaseDefaultsToAnotherIsolation: with
// default_transaction_isolation set on the database to REPEATABLE READ or
// SERIALIZABLE, the runtime functions refuse a plain call (the driver maps
// AW040 to ErrReadCommittedRequired), and the client, which sees the default
// at Start, runs its claims, finalizers, heartbeats and maintenance (rings
// rotating and pruning) in READ COMMITTED transactions. Jobs inserted with
// InsertTx and InsertManyTx from transactions at the database's level, some
// failing their first attempt, each complete exactly once.
func TestClientWorksWhenTheDatabaseDefaultsToAnotherIsolation(t *testing.T) {
	for _, level := range []pgx.TxIsoLevel{pgx.RepeatableRead, pgx.Serializable} {
		t.Run(string(level), func(t *testing.T) {
			ctx := pgtest.Context(t, 90*time.Second)
			dsn := pgtest.NewDBDSN(t)
			cfg, err := pgxpool.ParseConfig(dsn)
			if err != nil {
				t.Fatal(err)
			}
			admin, err := pgx.Connect(ctx, dsn)
			if err != nil {
				t.Fatal(err)
			}
			_, err = admin.Exec(ctx, "ALTER DATABASE "+pgx.Identifier{cfg.ConnConfig.Database}.Sanitize()+
				" SET default_transaction_isolation = '"+string(level)+"'")
			admin.Close(ctx)
			if err != nil {
				t.Fatal(err)
			}
			pool, err := pgxpool.NewWithConfig(ctx, cfg)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(pool.Close)
			d := driver.New()
			if got, err := d.TransactionIsolation(ctx, pool); err != nil || got == "read committed" {
				t.Fatalf("database default: %q, %v", got, err)
			}
			_, err = d.Claim(ctx, pool, "iso", 1, [16]byte{1}, 0)
			var pgErr *pgconn.PgError
			if !errors.Is(err, driver.ErrReadCommittedRequired) || !errors.As(err, &pgErr) || pgErr.Code != "AW040" {
				t.Fatalf("plain claim at %s: %v; want ErrReadCommittedRequired", level, err)
			}

			var mu sync.Mutex
			runs := map[int64]int{}
			workers := workersFor(func(ctx context.Context, j *driver.Job[isoArgs]) error {
				mu.Lock()
				runs[j.ID]++
				first := runs[j.ID] == 1
				mu.Unlock()
				if j.Args.N%5 == 0 && first {
					return driver.JobSnooze(10 * time.Millisecond)
				}
				return nil
			})
			log, rec := testLogger(t, "client")
			m := fastMaintenance()
			// Both rings rotate and prune; terminal history stays readable for 14 s.
			m.QueueRingInterval, m.ClaimRingInterval, m.KeepSealedQueueSlots = time.Second, 200*time.Millisecond, 14
			client, events := startClientEvents(t, pool, &driver.Config{
				Queues:            map[string]driver.QueueConfig{"iso": {MaxWorkers: 8}},
				Workers:           workers,
				Logger:            log,
				FetchPollInterval: 50 * time.Millisecond,
				Maintenance:       m,
			})

			const rounds = 40
			var ids []int64
			for i := 0; i < rounds; i++ {
				for {
					var got []driver.InsertedJob
					err := pgx.BeginTxFunc(ctx, pool, pgx.TxOptions{IsoLevel: level}, func(tx pgx.Tx) error {
						got = got[:0]
						j, err := client.InsertTx(ctx, tx, isoArgs{N: 3 * i}, &driver.InsertOpts{Queue: "iso"})
						if err != nil {
							return err
						}
						many, err := client.InsertManyTx(ctx, tx, []driver.InsertManyParams{
							{Args: isoArgs{N: 3*i + 1}, Opts: &driver.InsertOpts{Queue: "iso"}},
							{Args: isoArgs{N: 3*i + 2}, Opts: &driver.InsertOpts{Queue: "iso", Priority: 1}},
						})
						got = append(append(got, j), many...)
						return err
					})
					if errors.As(err, &pgErr) && pgErr.Code == "40001" {
						continue // a serialization failure: retry the transaction
					}
					if err != nil {
						t.Fatalf("insert round %d: %v", i, err)
					}
					for _, j := range got {
						ids = append(ids, j.ID)
					}
					break
				}
				time.Sleep(5 * time.Millisecond)
			}

			waitFor(t, 60*time.Second, "every job completed", func() (bool, string) {
				var n int
				if err := pool.QueryRow(ctx, `SELECT count(*) FROM awa.jobs WHERE queue = 'iso' AND state = 'completed'`).Scan(&n); err != nil {
					return false, err.Error()
				}
				return n == len(ids), ""
			})
			mu.Lock()
			defer mu.Unlock()
			for n, id := range ids { // ids[n] has args {"n": n}
				rows := jobRows(t, pool, id)
				if len(rows) != 1 || rows[0].State != "completed" {
					t.Fatalf("job %d: %v; want one completed row", id, rows)
				}
				want := 1
				if n%5 == 0 {
					want = 2 // snoozed once, then completed
				}
				if runs[id] != want {
					t.Fatalf("job %d ran %d times, want %d", id, runs[id], want)
				}
			}
			if len(runs) != len(ids) {
				t.Fatalf("%d jobs ran, %d inserted", len(runs), len(ids))
			}
			if !client.IsLeader() {
				t.Fatal("the client never led maintenance")
			}
			for _, msg := range []string{"awa: Claim failed", "awa: Maintenance service failed", "awa: Leader election failed",
				"awa: Finalizer call failed, retrying", "awa: Stale result dropped (the attempt was rescued, cancelled or already finalized)"} {
				if got := rec.find(msg, nil); len(got) > 0 {
					t.Fatalf("%q logged: %v", msg, got)
				}
			}
			if got := events.of(driver.EventRingMaintenance, func(e *driver.Event) bool { return e.Ring.Outcome == "pruned" }); len(got) == 0 {
				t.Fatal("no ring was pruned: maintenance did not run")
			}
		})
	}
}

// TestClientOnAReadCommittedDatabaseUsesThePoolDirectly: with the usual READ
// COMMITTED default the client wraps nothing (no extra BEGIN/COMMIT per
// call): it logs no switch, and its claims run as plain statements.
func TestClientOnAReadCommittedDatabaseUsesThePoolDirectly(t *testing.T) {
	ctx := pgtest.Context(t, 30*time.Second)
	pool := pgtest.NewDB(t)
	workers := driver.NewWorkers()
	done := make(chan int64, 1)
	driver.AddWorker(workers, driver.WorkFunc(func(ctx context.Context, j *driver.Job[isoArgs]) error {
		done <- j.ID
		return nil
	}))
	log, rec := testLogger(t, "client")
	client := startClient(t, pool, &driver.Config{
		Queues: map[string]driver.QueueConfig{"iso": {MaxWorkers: 1}}, Workers: workers, Logger: log,
		FetchPollInterval: 50 * time.Millisecond, DisableMaintenance: true,
	})
	j, err := client.Insert(ctx, isoArgs{}, &driver.InsertOpts{Queue: "iso"})
	if err != nil {
		t.Fatal(err)
	}
	select {
	case id := <-done:
		if id != j.ID {
			t.Fatalf("ran job %d, want %d", id, j.ID)
		}
	case <-ctx.Done():
		t.Fatal("job never ran")
	}
	if got := rec.find("awa: Runtime calls run in READ COMMITTED transactions", nil); len(got) != 0 {
		t.Fatalf("the client wrapped its calls on a READ COMMITTED database: %v", got)
	}
}
