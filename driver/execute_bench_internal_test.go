package driver

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/awa-queue/awa/internal/pgtest"
)

type benchArgs struct {
	N int `json:"n"`
}

func (benchArgs) Kind() string { return "execute_bench" }

type benchWorker struct{}

func (benchWorker) Work(context.Context, *Job[benchArgs]) error { return nil }

// BenchmarkExecute: claimed jobs handed to the worker goroutines as the
// fetch loop hands them (a permit, dispatch), run (execute: the handler's
// context, its watchdog and registration, a handler that decodes its args
// and returns nil) and their results queued for the completer: the client's
// work per job without the claim and finalizer calls. A goroutine here takes
// the results in place of the completer's flush. workers is the queue's
// MaxWorkers (2,000: the burn-down's).
func BenchmarkExecute(b *testing.B) {
	pool := pgtest.NewDB(b)
	for _, workers := range []int{1, 2000} {
		b.Run(fmt.Sprintf("workers=%d", workers), func(b *testing.B) {
			ws := NewWorkers()
			AddWorker(ws, benchWorker{})
			c, err := NewClient(pool, &Config{Queues: map[string]QueueConfig{"bench": {MaxWorkers: workers}},
				Workers: ws, DisableMaintenance: true})
			if err != nil {
				b.Fatal(err)
			}
			c.rt = pool
			c.completer = &completer{in: make(chan finishReq, 4*c.cfg.CompleterBatchSize)}
			completed := make(chan int)
			go func() {
				n := 0
				for r := range c.completer.in {
					if r.action == actionComplete {
						n++
					}
				}
				completed <- n
			}()
			workCtx, cancel := context.WithCancel(context.Background())
			defer cancel()
			q := newQueueRunner(c, "bench", c.cfg.Queues["bench"])
			args := []byte(`{"n": 1}`)
			var claimStart time.Time
			n := 0
			b.ReportAllocs()
			for b.Loop() {
				if n%1024 == 0 {
					claimStart = time.Now()
				}
				n++
				j := ClaimedJob{Receipt: Receipt{JobID: int64(n), RunLease: 1, ClaimSlot: 1, ReceiptID: int64(n)},
					Kind: "execute_bench", Queue: "bench", Priority: 2, Args: args, Attempt: 1, MaxAttempts: 25,
					Metadata: []byte(`{}`), CreatedAt: claimStart, RunAt: claimStart, ClaimedAt: claimStart,
					DeadlineAt: claimStart.Add(c.claimDeadline)}
				<-q.permits
				c.jobWG.Add(1)
				q.dispatch(workCtx, claimedRun{j: j, claimStart: claimStart, weight: 1})
			}
			c.jobWG.Wait()
			b.StopTimer()
			close(q.work)
			close(c.completer.in)
			if got := <-completed; got != n {
				b.Fatalf("%d jobs completed, want %d", got, n)
			}
		})
	}
}
