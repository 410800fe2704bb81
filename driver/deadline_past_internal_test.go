package driver

import (
	"context"
	"errors"
	"testing"
	"time"
)

// TestMovableDeadlineAlreadyPastIsDoneWhenReturned: as context.WithDeadline,
// a handler's context made with a deadline already past is done when it is
// returned, not a moment later. It failed while move left such a context to
// its timer, which fires on its own goroutine: Err() was nil for a while
// although Deadline() was in the past (the handler of a weighted job
// whose deadline passed while it waited for its slots starts so).
func TestMovableDeadlineAlreadyPastIsDoneWhenReturned(t *testing.T) {
	for i := 0; i < 1000; i++ {
		ctx, release := withMovableDeadline(context.Background(), time.Now().Add(-time.Second))
		err := ctx.Err()
		release()
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("round %d: a context made with a past deadline reports Err() = %v, want context.DeadlineExceeded", i, err)
		}
	}
}
