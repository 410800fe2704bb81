package driver_test

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/awa-queue/awa/driver"
)

type opCancelArgs struct{}

func (opCancelArgs) Kind() string { return "op_cancel_kind" }

// TestOperatorCancelReachesTheRunningHandler: a handler blocks on its
// context; an operator cancels the job from SQL (awa.cancel_job). The
// handler's context is cancelled, with cause ErrAttemptClosed, within the
// documented bound: through the control channel's notification with LISTEN
// (well under the heartbeat interval, set long here so only the notification
// can do it), and through the heartbeat's awa.closed_attempts with LISTEN
// disabled (one HeartbeatInterval). The job ends cancelled exactly once: one
// cancel entry in its errors, the handler ran once, and its late result is
// stale.
func TestOperatorCancelReachesTheRunningHandler(t *testing.T) {
	for _, tc := range []struct {
		name      string
		noListen  bool
		heartbeat time.Duration
		bound     time.Duration
	}{
		{"listen", false, 20 * time.Second, 2 * time.Second},
		{"no_listen", true, 300 * time.Millisecond, 300*time.Millisecond + 2*time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, pool := parallelDB(t, time.Minute)
			started := make(chan struct{}, 1)
			ended := make(chan error, 1)
			var runs atomic.Int64
			workers := workersFor(func(ctx context.Context, j *driver.Job[opCancelArgs]) error {
				runs.Add(1)
				started <- struct{}{}
				select {
				case <-ctx.Done():
					ended <- context.Cause(ctx)
					return ctx.Err()
				case <-time.After(40 * time.Second):
					ended <- errors.New("handler's context never cancelled")
					return nil
				}
			})
			cfg := workConfig("cancelq", 2, workers, nil,
				&driver.Config{DisableListen: tc.noListen, HeartbeatInterval: tc.heartbeat})
			log, logs := testLogger(t, "client")
			cfg.Logger = log
			client := startClient(t, pool, cfg)
			job, err := client.Insert(ctx, opCancelArgs{}, &driver.InsertOpts{Queue: "cancelq", MaxAttempts: 5})
			if err != nil {
				t.Fatal(err)
			}
			select {
			case <-started:
			case <-ctx.Done():
				t.Fatal("the handler never started")
			}
			// The client's LISTEN is in place before it claims (listen,
			// then wake the queues); the handler running proves the claim.
			at := time.Now()
			if _, err := pool.Exec(ctx, `SELECT * FROM awa.cancel_job($1, 'stop it')`, job.ID); err != nil {
				t.Fatalf("cancel_job: %v", err)
			}
			select {
			case cause := <-ended:
				took := time.Since(at)
				if !errors.Is(cause, driver.ErrAttemptClosed) {
					t.Fatalf("handler's context ended with cause %v, want ErrAttemptClosed", cause)
				}
				if took > tc.bound {
					t.Fatalf("handler's context cancelled %s after the cancel, want within %s", took, tc.bound)
				}
				t.Logf("handler's context cancelled %s after the cancel was sent", took)
			case <-time.After(tc.bound + 5*time.Second):
				t.Fatalf("handler's context not cancelled %s after the cancel", tc.bound+5*time.Second)
			}
			waitFor(t, 10*time.Second, "the handler's stale result to be dropped", func() (bool, string) {
				n := len(logs.find("awa: Stale result dropped (the attempt was rescued, cancelled or already finalized)", nil))
				return n == 1, fmt.Sprintf("stale results dropped: %d", n)
			})
			got := waitJobState(t, pool, job.ID, "cancelled", 10*time.Second)
			cancels := 0
			for _, e := range got.Errors {
				if e.Error == "stop it" {
					cancels++
				}
			}
			if cancels != 1 || len(got.Errors) != 1 || runs.Load() != 1 {
				t.Fatalf("job %v: want cancelled once by the operator (one error), handler run once (ran %d)", got, runs.Load())
			}
		})
	}
}
