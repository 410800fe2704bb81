package driver_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/awa-queue/awa/driver"
)

// TestConcurrentSetDeadlineCallsLeaveTheContextAtTheDatabasesDeadline: a
// handler moves its deadline from two goroutines at once, 1,000 times (one
// to a time 1 s after the other's). After both calls return, its context's
// Deadline must be the deadline the database recorded last
// (awa.attempt_state.deadline_at), the one the leader's deadline rescue
// enforces. Before SetDeadline held a lock per attempt across its database
// call it failed in about 3% of the rounds: each call updated the context
// after its database call returned, so two calls could reach the context in
// the other order than they reached the database.
func TestConcurrentSetDeadlineCallsLeaveTheContextAtTheDatabasesDeadline(t *testing.T) {
	ctx, pool := parallelDB(t, 2*time.Minute)
	res := make(chan string, 1)
	workers := workersFor(func(hctx context.Context, j *driver.Job[execArgs]) error {
		base := time.Now().Add(time.Minute)
		mismatches, iters := 0, 1000
		var first string
		for i := 0; i < iters; i++ {
			var wg sync.WaitGroup
			gate := make(chan struct{})
			for g := 0; g < 2; g++ {
				wg.Add(1)
				go func(g int) {
					defer wg.Done()
					<-gate
					_ = j.SetDeadline(hctx, base.Add(time.Duration(i)*time.Millisecond+time.Duration(g)*time.Second))
				}(g)
			}
			close(gate)
			wg.Wait()
			local, _ := hctx.Deadline()
			var db time.Time
			if err := pool.QueryRow(ctx, `SELECT deadline_at FROM awa.attempt_state WHERE job_id = $1`, j.ID).Scan(&db); err != nil {
				res <- err.Error()
				return nil
			}
			if local.Sub(db).Abs() > time.Microsecond {
				mismatches++
				if first == "" {
					first = fmt.Sprintf("iteration %d: context %v, database %v", i, local, db)
				}
			}
		}
		res <- fmt.Sprintf("%d of %d iterations: the context's deadline differs from the database's; first: %s", mismatches, iters, first)
		return nil
	})
	log, _ := testLogger(t, "client")
	client := startClient(t, pool, workConfig("sdrace", 1, workers, log, nil))
	insertExec(t, ctx, client, "sdrace", 1, threeAttempts)
	select {
	case r := <-res:
		if !strings.HasPrefix(r, "0 of") {
			t.Fatal(r)
		}
	case <-ctx.Done():
		t.Fatal("no result")
	}
}
