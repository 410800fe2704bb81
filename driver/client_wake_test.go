package driver_test

import (
	"context"
	"testing"
	"time"

	"github.com/awa-queue/awa/driver"
	"github.com/awa-queue/awa/internal/pgtest"
)

type wakeArgs struct{}

func (wakeArgs) Kind() string { return "wake_kind" }

// runWakeClient starts a client on queue "wake" whose handler reports each run.
func runWakeClient(t *testing.T, cfg driver.Config) (chan int64, *driver.Client) {
	t.Helper()
	pool := pgtest.NewDB(t)
	ran := make(chan int64, 16)
	workers := driver.NewWorkers()
	driver.AddWorker(workers, driver.WorkFunc(func(ctx context.Context, j *driver.Job[wakeArgs]) error {
		ran <- j.ID
		return nil
	}))
	cfg.Queues = map[string]driver.QueueConfig{"wake": {MaxWorkers: 2}}
	cfg.Workers = workers
	cfg.Maintenance = fastMaintenance()
	c := startClient(t, pool, &cfg)
	return ran, c
}

// With polling effectively off (one poll an hour), a job inserted after the
// client went idle is still picked up at once: the insert's NOTIFY wakes it.
func TestNotifyWakesAnIdleQueue(t *testing.T) {
	t.Parallel()
	ctx := testCtx(t, time.Minute)
	ran, c := runWakeClient(t, driver.Config{FetchPollInterval: time.Hour})
	time.Sleep(300 * time.Millisecond) // let the fetch loop go idle and the listener subscribe

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
		t.Fatalf("job %d did not run within 20s with polling at 1h: the notification did not wake the queue", job.ID)
	}
}

// With LISTEN off (as behind a transaction-mode pooler), the poll fallback
// still finds new work.
func TestPollingFindsWorkWithoutNotifications(t *testing.T) {
	t.Parallel()
	ctx := testCtx(t, time.Minute)
	ran, c := runWakeClient(t, driver.Config{DisableListen: true, FetchPollInterval: 100 * time.Millisecond})
	time.Sleep(300 * time.Millisecond)

	for i := 0; i < 3; i++ {
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
			t.Fatalf("job %d did not run within 20s with LISTEN off and polling every 100ms", job.ID)
		}
	}
}
