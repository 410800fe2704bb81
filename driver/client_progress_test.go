package driver_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/awa-queue/awa/driver"
)

type stepsArgs struct {
	Steps int `json:"steps"`
}

func (stepsArgs) Kind() string { return "steps_kind" }

type checkpoint struct {
	Done int `json:"done"`
}

// TestLongJobResumesFromItsProgressAfterARetry: a job works through steps,
// recording each with SetProgress; its first attempt fails halfway and the
// retried attempt starts from the checkpoint the first one left, so no step
// runs twice. Success clears the checkpoint, and the first attempt's late
// SetProgress is refused as stale (ErrStaleAttempt) and changes nothing.
// The lease ring turns meanwhile (LeaseRingInterval 100 ms).
func TestLongJobResumesFromItsProgressAfterARetry(t *testing.T) {
	ctx, pool := parallelDB(t, time.Minute)
	var (
		mu      sync.Mutex
		steps   []int
		resumed []json.RawMessage
		first   *driver.JobRow
	)
	workers := workersFor(func(ctx context.Context, j *driver.Job[stepsArgs]) error {
		prev, err := j.Progress(ctx)
		if err != nil {
			return fmt.Errorf("read progress: %w", err)
		}
		var cp checkpoint
		if prev != nil {
			if err := json.Unmarshal(prev, &cp); err != nil {
				return fmt.Errorf("decode progress %s: %w", prev, err)
			}
		}
		mu.Lock()
		resumed = append(resumed, prev)
		if j.Attempt == 1 {
			first = j.JobRow
		}
		mu.Unlock()
		for s := cp.Done + 1; s <= j.Args.Steps; s++ {
			time.Sleep(20 * time.Millisecond) // a long job's unit of work
			mu.Lock()
			steps = append(steps, s)
			mu.Unlock()
			if err := j.SetProgress(ctx, checkpoint{Done: s}); err != nil {
				return err
			}
			if j.Attempt == 1 && s == 3 {
				return errors.New("crashed after step 3")
			}
		}
		return nil
	})
	cfg := workConfig("steps", 2, workers, nil, nil)
	cfg.Maintenance.LeaseRingInterval = 100 * time.Millisecond
	log, _ := testLogger(t, "client")
	cfg.Logger = log
	client := startClient(t, pool, cfg)
	job, err := client.Insert(ctx, stepsArgs{Steps: 6}, &driver.InsertOpts{Queue: "steps", MaxAttempts: 3})
	if err != nil {
		t.Fatal(err)
	}

	// The attempt-1 backoff is 2s (+10% jitter).
	final := waitJobState(t, pool, job.ID, "completed", 30*time.Second)
	mu.Lock()
	defer mu.Unlock()
	if fmt.Sprint(steps) != "[1 2 3 4 5 6]" {
		t.Fatalf("steps run %v, want each of 1..6 once", steps)
	}
	if len(resumed) != 2 || resumed[0] != nil || string(resumed[1]) != `{"done": 3}` {
		t.Fatalf("attempts resumed from %q, want nothing then {\"done\": 3}", resumed)
	}
	if final.Attempt != 2 {
		t.Fatalf("completed row %v, want attempt 2", final)
	}
	d := driver.New()
	if p, ok, err := d.JobProgress(ctx, pool, job.ID); err != nil || ok {
		t.Fatalf("progress after success = %+v, %v, %v; want none", p, ok, err)
	}

	err = first.SetProgress(ctx, checkpoint{Done: 99})
	var stale *driver.StaleAttemptError
	if !errors.Is(err, driver.ErrStaleAttempt) || !errors.As(err, &stale) || stale.JobID != job.ID || stale.RunLease != first.RunLease {
		t.Fatalf("late SetProgress of attempt 1 = %v, want a StaleAttemptError for job %d run_lease %d", err, job.ID, first.RunLease)
	}
	if p, ok, err := d.JobProgress(ctx, pool, job.ID); err != nil || ok {
		t.Fatalf("progress after the stale write = %+v, %v, %v; want none", p, ok, err)
	}
	var rotations int
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM awa.ring_rotations WHERE ring = 'lease' AND generation > 0`).Scan(&rotations); err != nil {
		t.Fatal(err)
	}
	if rotations == 0 {
		t.Fatalf("the lease ring never rotated while the job held leases")
	}
}
