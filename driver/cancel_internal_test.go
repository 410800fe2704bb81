package driver

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// TestControlNotificationsCancelOrWake: on the control channel,
// "<job_id>:<run_lease>" cancels that running handler's context (cause
// ErrAttemptClosed) and "resume:<job_id>:<run_lease>" wakes its
// WaitForCallback without cancelling anything; a malformed payload is logged
// and changes nothing, and an attempt not running here is ignored.
func TestControlNotificationsCancelOrWake(t *testing.T) {
	var logs bytes.Buffer
	log := slog.New(slog.NewTextHandler(&logs, nil))
	var s attemptSet
	h := &attemptHandle{cb: callbackState{token: "t", wake: make(chan struct{}, 1)}}
	var closed atomic.Int32
	ctx, done := s.start(context.Background(), Receipt{JobID: 7, RunLease: 3}, h, func() { closed.Add(1) })
	defer done()

	for _, p := range []string{"resume:7:x", "resume:", "7", "resume:8:3"} {
		s.controlNotified(p, log)
	}
	select {
	case <-h.cb.wake:
		t.Fatal("a malformed or foreign resume woke the waiter")
	default:
	}
	if n := strings.Count(logs.String(), "malformed control notification"); n != 3 {
		t.Fatalf("%d malformed payloads logged, want 3:\n%s", n, logs.String())
	}

	s.controlNotified("resume:7:3", log)
	select {
	case <-h.cb.wake:
	case <-time.After(time.Second):
		t.Fatal("resume:7:3 did not wake the waiter")
	}
	if ctx.Err() != nil || closed.Load() != 0 {
		t.Fatalf("a resume cancelled the handler's context (%v) or ran the close hook (%d times)", ctx.Err(), closed.Load())
	}
	s.controlNotified("7:3", log)
	if !errors.Is(context.Cause(ctx), ErrAttemptClosed) {
		t.Fatalf("after 7:3 the context's cause is %v, want ErrAttemptClosed", context.Cause(ctx))
	}
	// The watchdog's hook runs after the cancel: the runtime registers its
	// watchdog on the context below the handler's, which this cancel skips.
	if n := closed.Load(); n != 1 {
		t.Fatalf("the close hook ran %d times after 7:3, want 1", n)
	}
}

// TestClaimDeadlineIsTheLongestWorkerTimeoutPlusGrace: the claim deadline is
// RescueStuckAfter unless a worker's timeout plus the grace exceeds it; a
// negative timeout (none) and a Timeout that panics on a zero job add nothing.
func TestClaimDeadlineIsTheLongestWorkerTimeoutPlusGrace(t *testing.T) {
	ws := NewWorkers()
	ws.byKind["short"] = workUnit{kindTimeout: 10 * time.Minute}
	ws.byKind["none"] = workUnit{kindTimeout: -1}
	ws.byKind["panics"] = workUnit{kindTimeout: probeTimeout(func() time.Duration { panic("zero job") })}
	if got := ws.claimDeadline(10*time.Second, time.Hour); got != time.Hour {
		t.Fatalf("claim deadline %s, want RescueStuckAfter (1h)", got)
	}
	ws.byKind["long"] = workUnit{kindTimeout: 3 * time.Hour}
	if got := ws.claimDeadline(10*time.Second, time.Hour); got != 3*time.Hour+10*time.Second {
		t.Fatalf("claim deadline %s, want 3h10s", got)
	}
	if got := (*Workers)(nil).claimDeadline(time.Second, time.Hour); got != time.Hour {
		t.Fatalf("claim deadline without workers %s, want 1h", got)
	}
}
