package driver_test

// The handler's context as the runtime makes it, one object per attempt
// with no registration on the client's shared context and the deadline
// timer of its worker goroutine (deadline.go): what a handler relies on.

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/awa-queue/awa/driver"
)

// A handler that keeps its context, and one it derived, past its return
// sees both done (context.Canceled), whether or not it asked for Done
// before returning.
func TestHandlerContextKeptAfterReturnIsDone(t *testing.T) {
	ctx, pool := parallelDB(t, time.Minute)
	type kept struct {
		ctx, derived  context.Context
		cancelDerived context.CancelFunc
	}
	keptCh := make(chan kept, 2)
	workers := workersFor(func(ctx context.Context, j *driver.Job[numberedArgs]) error {
		if j.Args.N == 1 {
			_ = ctx.Done() // asked for while the context is live
		}
		derived, cancel := context.WithCancel(ctx)
		keptCh <- kept{ctx, derived, cancel}
		return nil
	})
	log, _ := testLogger(t, "client")
	client := startClient(t, pool, workConfig("kept", 1, workers, log, nil))
	for n := 0; n < 2; n++ {
		job, err := client.Insert(ctx, numberedArgs{N: n}, &driver.InsertOpts{Queue: "kept"})
		if err != nil {
			t.Fatal(err)
		}
		waitJobState(t, pool, job.ID, "completed", 10*time.Second)
		k := <-keptCh
		for name, c := range map[string]context.Context{"handler's": k.ctx, "derived": k.derived} {
			select {
			case <-c.Done():
			case <-time.After(5 * time.Second):
				t.Fatalf("job %d: the %s context kept after the handler returned is not done", n, name)
			}
			if !errors.Is(c.Err(), context.Canceled) || !errors.Is(context.Cause(c), context.Canceled) {
				t.Fatalf("job %d: the %s context ended with %v (cause %v), want context.Canceled", n, name, c.Err(), context.Cause(c))
			}
		}
		k.cancelDerived()
	}
}

// SetDeadline far from the claim's deadline (the attempt's is the claim's,
// a client default far away) ends the context at the new time, with
// context.DeadlineExceeded, and its Deadline reports it. The worker
// goroutine's timer, reused, does it again for the next job, and does not
// end early the context of a job between them that moves nothing.
func TestSetDeadlineOnAFarDeadlineEndsTheContextAtTheNewTime(t *testing.T) {
	ctx, pool := parallelDB(t, time.Minute)
	type saw struct {
		moved, deadline, ended time.Time
		err                    error
	}
	sawCh := make(chan saw, 3)
	workers := workersFor(func(ctx context.Context, j *driver.Job[numberedArgs]) error {
		if j.Args.N == 0 { // moves nothing: runs 300 ms to its end
			select {
			case <-time.After(300 * time.Millisecond):
				sawCh <- saw{}
				return nil
			case <-ctx.Done():
				sawCh <- saw{err: ctx.Err()}
				return ctx.Err()
			}
		}
		moved := time.Now().Add(400 * time.Millisecond)
		if err := j.SetDeadline(ctx, moved); err != nil {
			sawCh <- saw{err: err}
			return err
		}
		d, _ := ctx.Deadline()
		<-ctx.Done()
		sawCh <- saw{moved: moved, deadline: d, ended: time.Now(), err: ctx.Err()}
		return nil
	})
	log, _ := testLogger(t, "client")
	// No maintenance: the leader's deadline rescue would close the attempt
	// (context.Canceled) right after its new deadline.
	client := startClient(t, pool, workConfig("far", 1, workers, log, &driver.Config{DisableMaintenance: true}))
	for i, n := range []int{1, 0, 1} {
		if _, err := client.Insert(ctx, numberedArgs{N: n}, &driver.InsertOpts{Queue: "far"}); err != nil {
			t.Fatal(err)
		}
		var s saw
		select {
		case s = <-sawCh:
		case <-ctx.Done():
			t.Fatalf("job %d never reported", i)
		}
		if n == 0 {
			if s.err != nil {
				t.Fatalf("job %d, which moved nothing, saw its context end: %v", i, s.err)
			}
			continue
		}
		if !errors.Is(s.err, context.DeadlineExceeded) {
			t.Fatalf("job %d: the context ended with %v, want context.DeadlineExceeded", i, s.err)
		}
		// SetDeadline records microseconds (timestamptz).
		if s.deadline.Sub(s.moved).Abs() > time.Millisecond {
			t.Fatalf("job %d: Deadline() = %v after SetDeadline(%v)", i, s.deadline, s.moved)
		}
		if s.ended.Before(s.deadline) || s.ended.After(s.deadline.Add(2*time.Second)) {
			t.Fatalf("job %d: the context ended at %v, want at its new deadline %v", i, s.ended, s.deadline)
		}
	}
}

// StopAndCancel while claimed jobs are still being handed to worker
// goroutines and registered: every handler that runs sees its context
// cancelled, none waits for its 1-minute timeout, and StopAndCancel returns.
func TestStopAndCancelRacingRegistrationCancelsEveryHandler(t *testing.T) {
	ctx, pool := parallelDB(t, time.Minute)
	const n = 300
	var started, cancelled atomic.Int32
	first := make(chan struct{})
	var once sync.Once
	workers := workersFor(func(ctx context.Context, j *driver.Job[numberedArgs]) error {
		started.Add(1)
		once.Do(func() { close(first) })
		<-ctx.Done()
		if errors.Is(ctx.Err(), context.Canceled) {
			cancelled.Add(1)
		}
		return ctx.Err()
	})
	log, _ := testLogger(t, "client")
	ps := make([]driver.InsertParams, n)
	for i := range ps {
		ps[i] = driver.InsertParams{Kind: numberedArgs{}.Kind(), Args: []byte(`{"n": 1}`),
			Opts: driver.InsertOpts{Queue: "race"}}
	}
	if _, err := driver.New().InsertMany(ctx, pool, ps); err != nil {
		t.Fatal(err)
	}
	client, err := driver.NewClient(pool, workConfig("race", n, workers, log, &driver.Config{JobTimeout: time.Minute}))
	if err != nil {
		t.Fatal(err)
	}
	if err := client.Start(ctx); err != nil {
		t.Fatal(err)
	}
	select {
	case <-first:
	case <-ctx.Done():
		t.Fatal("no handler started")
	}
	err = stopWithin(t, 30*time.Second, "StopAndCancel", func() error {
		stopCtx, cancel := context.WithTimeout(context.Background(), 50*time.Second)
		defer cancel()
		return client.StopAndCancel(stopCtx)
	})
	if err != nil {
		t.Fatalf("StopAndCancel: %v", err)
	}
	if s, c := started.Load(), cancelled.Load(); s == 0 || c != s {
		t.Fatalf("%d handlers ran and %d saw context.Canceled, want all", s, c)
	}
}
