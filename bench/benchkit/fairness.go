package benchkit

import (
	"context"
	"fmt"
	"io"
	"os"
	"sort"
	"sync"
	"time"

	"github.com/awa-queue/awa/driver"
)

// FairnessOptions configure the fairness scenario (-fairness): one keyed
// queue (concurrency key args.tenant), a trickle tenant inserting one job
// every TrickleEvery for Duration, measured once alone and once beside a
// flood tenant with a Flood-job backlog.
type FairnessOptions struct {
	DSN          string
	DBName       string
	Flood        int           // jobs of the flood tenant inserted before the second phase
	Limit        int           // the queue's per-key concurrency limit
	Workers      int           // MaxWorkers of the worker client
	Work         time.Duration // how long each job's handler sleeps
	TrickleEvery time.Duration
	Duration     time.Duration // each phase's trickle
	Keep         bool
}

type fairArgs struct {
	Tenant string `json:"tenant"`
	At     int64  `json:"at"` // insert time, Unix ns (trickle only)
}

func (fairArgs) Kind() string { return "fair" }

// FairnessResult is one phase's trickle insert-to-start latencies.
type FairnessResult struct {
	Phase    string
	Jobs     int
	P50, P99 time.Duration
}

// Fairness runs the scenario and prints both phases and the ratio of their
// trickle p99s (the target: within 2x with the flood).
func Fairness(ctx context.Context, o FairnessOptions, w io.Writer) ([]FairnessResult, error) {
	if o.DBName == "" {
		o.DBName = "bench_fairness"
	}
	_, pool, done, err := migratedDB(ctx, o.DSN, o.DBName, o.Keep)
	if err != nil {
		return nil, err
	}
	defer done()
	const queue = "fair"
	if err := driver.New().ConfigureQueue(ctx, pool, queue, driver.QueueOptions{
		Concurrency: &driver.Concurrency{Key: "args.tenant", Limit: o.Limit}}); err != nil {
		return nil, err
	}

	var mu sync.Mutex
	var lat []time.Duration
	var floodDone int
	workers := driver.NewWorkers()
	driver.AddWorker(workers, driver.WorkFunc(func(ctx context.Context, j *driver.Job[fairArgs]) error {
		if j.Args.Tenant == "trickle" {
			d := time.Since(time.Unix(0, j.Args.At))
			mu.Lock()
			lat = append(lat, d)
			mu.Unlock()
		} else {
			mu.Lock()
			floodDone++
			mu.Unlock()
		}
		time.Sleep(o.Work)
		return nil
	}))
	c, err := driver.NewClient(pool, &driver.Config{
		Queues:  map[string]driver.QueueConfig{queue: {MaxWorkers: o.Workers}},
		Workers: workers,
		Logger:  WarnLogger(os.Stderr),
	})
	if err != nil {
		return nil, err
	}
	if err := c.Start(ctx); err != nil {
		return nil, err
	}
	defer func() {
		sctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		_ = c.StopAndCancel(sctx)
	}()

	trickle := func(phase string) (FairnessResult, error) {
		mu.Lock()
		lat = nil
		mu.Unlock()
		sent := 0
		tick := time.NewTicker(o.TrickleEvery)
		defer tick.Stop()
		end := time.Now().Add(o.Duration)
		for time.Now().Before(end) {
			select {
			case <-ctx.Done():
				return FairnessResult{}, ctx.Err()
			case <-tick.C:
			}
			if _, err := c.Insert(ctx, fairArgs{Tenant: "trickle", At: time.Now().UnixNano()},
				&driver.InsertOpts{Queue: queue}); err != nil {
				return FairnessResult{}, err
			}
			sent++
		}
		// Let the last trickle jobs start.
		deadline := time.Now().Add(30 * time.Second)
		for time.Now().Before(deadline) {
			mu.Lock()
			n := len(lat)
			mu.Unlock()
			if n >= sent {
				break
			}
			time.Sleep(10 * time.Millisecond)
		}
		mu.Lock()
		ds := append([]time.Duration(nil), lat...)
		mu.Unlock()
		sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
		r := FairnessResult{Phase: phase, Jobs: len(ds)}
		if len(ds) > 0 {
			r.P50 = ds[len(ds)/2]
			r.P99 = ds[min(len(ds)-1, len(ds)*99/100)]
		}
		fmt.Fprintf(w, "fairness %-10s trickle jobs %5d  insert-to-start p50 %8s  p99 %8s\n", phase, r.Jobs,
			r.P50.Round(10*time.Microsecond), r.P99.Round(10*time.Microsecond))
		return r, nil
	}

	alone, err := trickle("alone")
	if err != nil {
		return nil, err
	}
	for left := o.Flood; left > 0; left -= 10_000 {
		n := min(left, 10_000)
		ps := make([]driver.InsertManyParams, n)
		for i := range ps {
			ps[i] = driver.InsertManyParams{Args: fairArgs{Tenant: "flood"}, Opts: &driver.InsertOpts{Queue: queue}}
		}
		if _, err := c.InsertManyCopy(ctx, ps); err != nil {
			return nil, err
		}
	}
	flood, err := trickle("with-flood")
	if err != nil {
		return nil, err
	}
	mu.Lock()
	fd := floodDone
	mu.Unlock()
	ratio := 0.0
	if alone.P99 > 0 {
		ratio = float64(flood.P99) / float64(alone.P99)
	}
	fmt.Fprintf(w, "fairness: flood backlog %d (worked %d during the run), limit %d per key, %d workers: trickle p99 %.2fx its value alone (target: at most 2x)\n",
		o.Flood, fd, o.Limit, o.Workers, ratio)
	return []FairnessResult{alone, flood}, nil
}
