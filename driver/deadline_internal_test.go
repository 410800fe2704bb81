package driver

import (
	"context"
	"errors"
	"runtime"
	"sync"
	"testing"
	"time"
)

// The handler's context (withMovableDeadline) behaves as
// context.WithDeadline's, except that its deadline moves: no database here.

// ended reports whether ctx ends within d.
func ended(ctx context.Context, d time.Duration) bool {
	select {
	case <-ctx.Done():
		return true
	case <-time.After(d):
		return false
	}
}

func TestMovableDeadlineEndsAtItsDeadlineWithDeadlineExceeded(t *testing.T) {
	at := time.Now().Add(50 * time.Millisecond)
	ctx, release := withMovableDeadline(context.Background(), at)
	defer release()
	if d, ok := ctx.Deadline(); !ok || !d.Equal(at) {
		t.Fatalf("Deadline() = %v, %v; want %v, true", d, ok, at)
	}
	if !ended(ctx, 2*time.Second) {
		t.Fatal("the context did not end at its deadline")
	}
	if time.Now().Before(at) || !errors.Is(ctx.Err(), context.DeadlineExceeded) {
		t.Fatalf("ended at %v with %v; want at or after %v with context.DeadlineExceeded", time.Now(), ctx.Err(), at)
	}
}

// A later deadline: the context outlives the old one and ends at the new
// one; so does a context derived from it, with its cause; one derived with
// a shorter deadline of its own keeps it.
func TestMovableDeadlineMovedLaterEndsAtTheNewOneAndDerivedContextsFollow(t *testing.T) {
	ctx, release := withMovableDeadline(context.Background(), time.Now().Add(150*time.Millisecond))
	defer release()
	child, cancelChild := context.WithCancelCause(ctx)
	defer cancelChild(nil)
	short, cancelShort := context.WithTimeout(ctx, 50*time.Millisecond)
	defer cancelShort()
	later := time.Now().Add(500 * time.Millisecond)
	ctx.move(later)
	if d, _ := child.Deadline(); !d.Equal(later) {
		t.Fatalf("the derived context's Deadline() = %v, want the moved deadline %v", d, later)
	}
	if ended(child, 250*time.Millisecond) {
		t.Fatalf("the derived context ended (%v) at the old deadline", child.Err())
	}
	if short.Err() == nil {
		t.Fatal("a derived context with a shorter deadline of its own did not end at it")
	}
	if !ended(child, 2*time.Second) {
		t.Fatal("the derived context did not end at the moved deadline")
	}
	if time.Now().Before(later) || !errors.Is(child.Err(), context.DeadlineExceeded) ||
		!errors.Is(context.Cause(child), context.DeadlineExceeded) {
		t.Fatalf("derived context ended at %v with %v (cause %v); want at or after %v with context.DeadlineExceeded",
			time.Now(), child.Err(), context.Cause(child), later)
	}
}

func TestMovableDeadlineMovedEarlierEndsAtTheNewOne(t *testing.T) {
	ctx, release := withMovableDeadline(context.Background(), time.Now().Add(time.Hour))
	defer release()
	ctx.move(time.Now().Add(50 * time.Millisecond))
	if !ended(ctx, 2*time.Second) || !errors.Is(ctx.Err(), context.DeadlineExceeded) {
		t.Fatalf("the context did not end at the earlier deadline (err %v)", ctx.Err())
	}
	ctx.move(time.Now().Add(time.Hour)) // an ended context stays ended
	if !errors.Is(ctx.Err(), context.DeadlineExceeded) {
		t.Fatalf("after a move the ended context reports %v", ctx.Err())
	}
}

// The parent's end reaches the context and what derives from it, with the
// parent's error and cause; release ends it with context.Canceled. No
// deadline (zero) means none.
func TestMovableDeadlineFollowsItsParentAndRelease(t *testing.T) {
	parent, cancelParent := context.WithCancelCause(context.Background())
	ctx, release := withMovableDeadline(parent, time.Time{})
	defer release()
	if _, ok := ctx.Deadline(); ok {
		t.Fatal("a zero deadline reported a deadline")
	}
	child, cancelChild := context.WithCancel(ctx)
	defer cancelChild()
	stop := errors.New("stopped")
	cancelParent(stop)
	if !ended(child, 2*time.Second) || !errors.Is(ctx.Err(), context.Canceled) || !errors.Is(context.Cause(child), stop) {
		t.Fatalf("after the parent's cancel: err %v, derived cause %v; want context.Canceled and %v",
			ctx.Err(), context.Cause(child), stop)
	}

	own, release2 := withMovableDeadline(context.Background(), time.Now().Add(time.Hour))
	release2()
	if !ended(own, time.Second) || !errors.Is(own.Err(), context.Canceled) {
		t.Fatalf("after release: err %v, want context.Canceled", own.Err())
	}
}

// A context derived from it costs no goroutine (the context package uses its
// AfterFunc), as one derived from context.WithDeadline's.
func TestMovableDeadlineDerivedContextsCostNoGoroutine(t *testing.T) {
	ctx, release := withMovableDeadline(context.Background(), time.Now().Add(time.Hour))
	defer release()
	before := runtime.NumGoroutine()
	cancels := make([]context.CancelFunc, 0, 200)
	for i := 0; i < 200; i++ {
		_, cancel := context.WithCancel(ctx)
		cancels = append(cancels, cancel)
	}
	if n := runtime.NumGoroutine() - before; n > 20 {
		t.Fatalf("200 derived contexts started %d goroutines, want none", n)
	}
	for _, cancel := range cancels {
		cancel()
	}
}

// runtimeCtx is a handler's context as execute makes it: no registration on
// its parent, the deadline timer dt shared with the worker's other attempts.
func runtimeCtx(dt *deadlineTimer, deadline time.Time) *deadlineCtx {
	c := &deadlineCtx{parent: context.Background(), timer: dt}
	c.move(deadline)
	return c
}

// A worker goroutine's timer, reused: an attempt released with its deadline
// far away leaves the next attempt's deadline to the timer, which ends that
// one at its own; a firing too early for the current attempt (armed for an
// earlier deadline, or for the attempt before) ends nothing and arms the
// timer again for what is left.
func TestWorkerDeadlineTimerServesEachAttemptInTurn(t *testing.T) {
	dt := newDeadlineTimer()
	defer dt.t.Stop()
	first := runtimeCtx(dt, time.Now().Add(time.Hour))
	first.release()
	if !errors.Is(first.Err(), context.Canceled) {
		t.Fatalf("the released attempt's context reports %v, want context.Canceled", first.Err())
	}

	at := time.Now().Add(200 * time.Millisecond)
	second := runtimeCtx(dt, at)
	defer second.release()
	dt.fire() // too early
	if second.Err() != nil {
		t.Fatalf("a firing before the deadline ended the context: %v", second.Err())
	}
	if !ended(second, 2*time.Second) {
		t.Fatal("after an early firing the context did not end at its deadline")
	}
	if time.Now().Before(at) || !errors.Is(second.Err(), context.DeadlineExceeded) {
		t.Fatalf("ended at %v with %v; want at or after %v with context.DeadlineExceeded", time.Now(), second.Err(), at)
	}
	if !errors.Is(first.Err(), context.Canceled) {
		t.Fatalf("the earlier attempt's context now reports %v, want context.Canceled still", first.Err())
	}
}

// The next attempt's later deadline keeps the firing armed for the one
// before (no reset): that firing, too early for it, ends nothing and arms
// the timer again, and the context ends at its own deadline.
func TestWorkerDeadlineTimerKeepsAnEarlierFiringForALaterDeadline(t *testing.T) {
	dt := newDeadlineTimer()
	defer dt.t.Stop()
	first := runtimeCtx(dt, time.Now().Add(100*time.Millisecond))
	first.release()
	at := time.Now().Add(400 * time.Millisecond)
	second := runtimeCtx(dt, at)
	defer second.release()
	dt.mu.Lock()
	kept := dt.at.Before(at)
	dt.mu.Unlock()
	if !kept {
		t.Fatal("the later deadline reset the timer rather than keep the earlier firing")
	}
	if ended(second, 250*time.Millisecond) {
		t.Fatalf("the context ended (%v) at the earlier attempt's deadline", second.Err())
	}
	if !ended(second, 2*time.Second) {
		t.Fatal("the context did not end at its deadline")
	}
	if time.Now().Before(at) || !errors.Is(second.Err(), context.DeadlineExceeded) {
		t.Fatalf("ended at %v with %v; want at or after %v with context.DeadlineExceeded", time.Now(), second.Err(), at)
	}
}

// Done asked for only after the context ended is closed too, and the
// context's cause is its error (Cause finds no cause of its own).
func TestMovableDeadlineDoneAfterTheEnd(t *testing.T) {
	ctx := runtimeCtx(newDeadlineTimer(), time.Now().Add(time.Millisecond))
	time.Sleep(50 * time.Millisecond)
	if !ended(ctx, 2*time.Second) || !errors.Is(context.Cause(ctx), context.DeadlineExceeded) {
		t.Fatalf("ended %v, cause %v; want context.DeadlineExceeded", ctx.Err(), context.Cause(ctx))
	}
	ctx.release()
	if !errors.Is(ctx.Err(), context.DeadlineExceeded) {
		t.Fatalf("release changed the error to %v", ctx.Err())
	}
}

// A deadline already past when the handler's context is made (a claim whose
// deadline went by while its job waited for a worker or for its slots): the
// context is done at once with context.DeadlineExceeded, reports that
// deadline, and so is a context derived from it.
func TestMovableDeadlineAlreadyPastEndsAtOnce(t *testing.T) {
	past := time.Now().Add(-time.Second)
	ctx, release := withMovableDeadline(context.Background(), past)
	defer release()
	child, cancel := context.WithCancel(ctx)
	defer cancel()
	if !ended(child, time.Second) || !errors.Is(ctx.Err(), context.DeadlineExceeded) || !errors.Is(child.Err(), context.DeadlineExceeded) {
		t.Fatalf("a past deadline: err %v, derived %v; want both ended with context.DeadlineExceeded", ctx.Err(), child.Err())
	}
	if d, ok := ctx.Deadline(); !ok || !d.Equal(past) {
		t.Fatalf("Deadline() = %v, %v; want %v, true", d, ok, past)
	}
}

// A deadline far in the future (no timeout of its own, a claim deadline of
// years, the largest time a time.Duration reaches and beyond) is reported as
// is and does not end the context; moved near, the context ends there.
func TestMovableDeadlineFarInTheFutureHoldsUntilMoved(t *testing.T) {
	for _, far := range []time.Time{time.Now().Add(10 * 365 * 24 * time.Hour), time.Now().Add(1<<63 - 1),
		time.Date(9999, 12, 31, 23, 59, 59, 0, time.UTC)} {
		ctx, release := withMovableDeadline(context.Background(), far)
		if d, ok := ctx.Deadline(); !ok || !d.Equal(far) {
			t.Fatalf("Deadline() = %v, %v; want %v, true", d, ok, far)
		}
		if ended(ctx, 50*time.Millisecond) {
			t.Fatalf("a deadline at %v ended the context at once (%v)", far, ctx.Err())
		}
		ctx.move(time.Now().Add(20 * time.Millisecond))
		if !ended(ctx, 2*time.Second) || !errors.Is(ctx.Err(), context.DeadlineExceeded) {
			t.Fatalf("moved near from %v, the context did not end with context.DeadlineExceeded (%v)", far, ctx.Err())
		}
		release()
	}
}

// Many moves at once (a handler's goroutines each calling SetDeadline),
// while contexts are derived from it and released: none ends the context
// early, and the last move decides. Run it with -race.
func TestMovableDeadlineConcurrentMovesLastOneDecides(t *testing.T) {
	ctx, release := withMovableDeadline(context.Background(), time.Now().Add(time.Hour))
	defer release()
	var wg sync.WaitGroup
	for g := 0; g < 32; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 200; i++ {
				ctx.move(time.Now().Add(time.Minute + time.Duration(i)*time.Millisecond))
				child, cancel := context.WithCancel(ctx)
				if _, ok := child.Deadline(); !ok || child.Err() != nil {
					t.Errorf("a derived context has no deadline or ended: %v", child.Err())
				}
				cancel()
			}
		}()
	}
	wg.Wait()
	if ctx.Err() != nil {
		t.Fatalf("the context ended during the moves: %v", ctx.Err())
	}
	last := time.Now().Add(100 * time.Millisecond)
	ctx.move(last)
	if d, _ := ctx.Deadline(); !d.Equal(last) {
		t.Fatalf("Deadline() = %v after the last move, want %v", d, last)
	}
	if !ended(ctx, 5*time.Second) || time.Now().Before(last) || !errors.Is(ctx.Err(), context.DeadlineExceeded) {
		t.Fatalf("the context ended at %v with %v; want at or after %v with context.DeadlineExceeded", time.Now(), ctx.Err(), last)
	}
}
