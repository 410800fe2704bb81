package driver_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/awa-queue/awa/driver"
	"github.com/awa-queue/awa/internal/pgtest"
)

// smokeArgs: the tests' args types look alike on purpose: a kind is a
// type (driver.JobArgs), and each test names its own.
type smokeArgs struct {
	N int `json:"n"`
}

func (smokeArgs) Kind() string { return "smoke" }

func TestClientWorksInsertedJobs(t *testing.T) {
	ctx := context.Background()
	pool := pgtest.NewDB(t)

	var ran atomic.Int64
	workers := workersFor(func(ctx context.Context, j *driver.Job[smokeArgs]) error {
		ran.Add(1)
		if j.Args.N%10 == 0 && j.Attempt == 1 {
			return errors.New("first attempt fails")
		}
		return nil
	})
	client, err := driver.NewClient(pool, &driver.Config{
		Queues:      map[string]driver.QueueConfig{"default": {MaxWorkers: 20}},
		Workers:     workers,
		Maintenance: &driver.MaintenanceConfig{PromoteInterval: 100 * time.Millisecond},
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := client.Start(ctx); err != nil {
		t.Fatal(err)
	}
	var params []driver.InsertManyParams
	for i := 0; i < 500; i++ {
		params = append(params, driver.InsertManyParams{Args: smokeArgs{N: i}})
	}
	if _, err := client.InsertMany(ctx, params); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		counts, err := client.Driver().QueueCounts(ctx, pool, "default")
		if err != nil {
			t.Fatal(err)
		}
		c := counts[0]
		if ran.Load() == 550 && c.Available+c.Running+c.Scheduled+c.Retryable == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("not all jobs completed: %+v", counts)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if err := client.Stop(ctx); err != nil {
		t.Fatal(err)
	}
	if got := ran.Load(); got != 550 {
		t.Fatalf("handler ran %d times, want 550 (500 + 50 retries)", got)
	}
}
