package driver

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync"
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
	a := testAttempt(Receipt{JobID: 7, RunLease: 3})
	h := &a.handle
	h.cb = callbackState{token: "t", wake: make(chan struct{}, 1)}
	ctx := &a.ctx
	s.start(a, context.Background())
	defer s.done(a)

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
	if ctx.Err() != nil || a.watch.closed.Load() {
		t.Fatalf("a resume cancelled the handler's context (%v) or marked the attempt closed (%v)", ctx.Err(), a.watch.closed.Load())
	}
	derived, cancelDerived := context.WithCancel(ctx)
	defer cancelDerived()
	s.controlNotified("7:3", log)
	if !errors.Is(ctx.Err(), context.Canceled) || !errors.Is(context.Cause(ctx), ErrAttemptClosed) {
		t.Fatalf("after 7:3 the context's error is %v and cause %v, want context.Canceled and ErrAttemptClosed",
			ctx.Err(), context.Cause(ctx))
	}
	if !ended(derived, 2*time.Second) || !errors.Is(context.Cause(derived), ErrAttemptClosed) {
		t.Fatalf("after 7:3 a context derived from the handler's has error %v and cause %v, want ErrAttemptClosed",
			derived.Err(), context.Cause(derived))
	}
	// The watchdog reports the close should the handler overstay.
	if !a.watch.closed.Load() {
		t.Fatal("7:3 did not mark the attempt closed for its watchdog")
	}
}

// testAttempt is a running attempt of receipt r as execute makes it, without
// a watchdog or a deadline.
func testAttempt(r Receipt) *attemptRun {
	a := newAttemptRun(&ClaimedJob{Receipt: r}, nil, nil)
	a.ctx.parent = context.Background()
	return a
}

// A hard stop (cancelAll, which the Client runs once workCtx ends) ends
// every registered handler's context with workCtx's error and cause, and
// one registered while it runs or after is never missed: start ends it at
// once. Registrations race the cancel from many goroutines.
func TestCancelAllEndsEveryRunningHandlerAndNoneRegisteredMeanwhileIsMissed(t *testing.T) {
	for round := 0; round < 20; round++ {
		var s attemptSet
		workCtx, cancel := context.WithCancelCause(context.Background())
		defer cancel(nil)
		stopped := errors.New("stopped hard")
		context.AfterFunc(workCtx, func() { s.cancelAll(workCtx) })
		const n = 200
		attempts := make([]*attemptRun, n)
		var wg sync.WaitGroup
		for i := range attempts {
			attempts[i] = testAttempt(Receipt{JobID: int64(i + 1), RunLease: 1})
			attempts[i].ctx.parent = workCtx // as the runtime's: the span's context, over workCtx
			wg.Add(1)
			go func() {
				defer wg.Done()
				s.start(attempts[i], workCtx)
			}()
			if i == n/2 {
				cancel(stopped)
			}
		}
		wg.Wait()
		for i, a := range attempts {
			if !ended(&a.ctx, 2*time.Second) {
				t.Fatalf("round %d: attempt %d's context did not end after the hard stop", round, i)
			}
			if !errors.Is(a.ctx.Err(), context.Canceled) || !errors.Is(context.Cause(&a.ctx), stopped) {
				t.Fatalf("round %d: attempt %d's context ended with %v, cause %v; want context.Canceled, cause %v",
					round, i, a.ctx.Err(), context.Cause(&a.ctx), stopped)
			}
		}
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
