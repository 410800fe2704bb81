package driver_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/awa-queue/awa/driver"
)

// TestStartRefusesAQueueNameNoJobCanHave: a client asked to work a queue
// whose name no insert accepts ("mail " with its trailing space) used to
// start and claim nothing, forever, without an error (with DisableListen
// nothing at all was logged): a silent no-op. Start now returns
// ErrInvalidQueue and starts nothing.
func TestStartRefusesAQueueNameNoJobCanHave(t *testing.T) {
	ctx, pool := parallelDB(t, 30*time.Second)
	workers := driver.NewWorkers()
	driver.AddWorker(workers, driver.WorkFunc(func(context.Context, *driver.Job[sqlArgs]) error { return nil }))
	log, _ := testLogger(t, "client")
	c, err := driver.NewClient(pool, &driver.Config{
		Queues:             map[string]driver.QueueConfig{"mail ": {MaxWorkers: 1}},
		Workers:            workers,
		Logger:             log,
		DisableListen:      true,
		DisableMaintenance: true,
	})
	if err != nil {
		t.Fatalf("NewClient: %v", err)
	}
	err = c.Start(ctx)
	if err == nil {
		_ = c.StopAndCancel(ctx)
	}
	if !errors.Is(err, driver.ErrInvalidQueue) {
		t.Fatalf("Start with queue %q: %v, want ErrInvalidQueue", "mail ", err)
	}
	var instances int
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM awa.runtime_instances`).Scan(&instances); err != nil || instances != 0 {
		t.Fatalf("runtime_instances: %d, %v; want none (the refused client registers nothing)", instances, err)
	}
}
