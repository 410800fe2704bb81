package benchkit

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/awa-queue/awa/driver"
)

// LimitsOptions configure the flow-control throughput scenario (-limits):
// how close the fleet gets to each limit, one phase of Duration per limit,
// each worked by Clients clients with pools of their own (processes of one
// fleet) of Workers each.
type LimitsOptions struct {
	DSN      string
	DBName   string
	Duration time.Duration
	Clients  int
	Workers  int
	// Rate phase: a queue limited to RatePerSecond starts a second, RateBurst at once.
	RatePerSecond float64
	RateBurst     int
	// Key phase: Keys tenants, each limited to KeyLimit running jobs, each job's handler sleeping KeyWork.
	Keys     int
	KeyLimit int
	KeyWork  time.Duration
	// Depth phase: a producer inserting batches of DepthBatch as fast as it
	// can into a queue of max_depth MaxDepth, worked by one client of
	// DepthWorkers whose handler sleeps KeyWork.
	MaxDepth     int
	DepthBatch   int
	DepthWorkers int
	Keep         bool
}

type limitArgs struct {
	Tenant string `json:"tenant,omitempty"`
}

func (limitArgs) Kind() string { return "limit" }

// LimitsResult holds what each phase measured.
type LimitsResult struct {
	RateStarts       int
	RateAchieved     float64 // starts a second over the phase
	RateMaxWindow    int     // most claims (by claimed_at) in any 1 s window
	KeyJobs          int
	KeyJobsPerSecond float64
	KeyIdeal         float64 // keys * limit / handler time
	KeyMaxRunning    int     // most jobs of one key running at once, seen by the handlers
	KeyMeanRunning   float64 // a key's mean running jobs over the phase
	DepthAccepted    int
	DepthRefusals    int
	DepthMax         int64 // most available jobs sampled
}

// Limits runs the three phases and prints each against its limit.
func Limits(ctx context.Context, o LimitsOptions, w io.Writer) (LimitsResult, error) {
	var res LimitsResult
	if o.DBName == "" {
		o.DBName = "bench_limits"
	}
	dsn, admin, done, err := migratedDB(ctx, o.DSN, o.DBName, o.Keep)
	if err != nil {
		return res, err
	}
	defer done()
	d := driver.New()

	// fleet starts o.Clients clients of queue, each with a pool of its own,
	// running work; the returned stop ends them.
	fleet := func(queue string, clients, workers int, work func(context.Context, *driver.Job[limitArgs]) error) (func(), error) {
		var stops []func()
		stop := func() {
			for _, s := range stops {
				s()
			}
		}
		for range clients {
			pool, err := pgxpool.New(ctx, dsn)
			if err != nil {
				stop()
				return nil, err
			}
			ws := driver.NewWorkers()
			driver.AddWorker(ws, driver.WorkFunc(work))
			c, err := driver.NewClient(pool, &driver.Config{
				Queues:  map[string]driver.QueueConfig{queue: {MaxWorkers: workers}},
				Workers: ws,
				Logger:  WarnLogger(os.Stderr),
			})
			if err == nil {
				err = c.Start(ctx)
			}
			if err != nil {
				pool.Close()
				stop()
				return nil, err
			}
			stops = append(stops, func() {
				sctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
				defer cancel()
				_ = c.StopAndCancel(sctx)
				pool.Close()
			})
		}
		return stop, nil
	}
	backlog := func(queue string, n int, tenant func(i int) string) error {
		for done := 0; done < n; done += 10_000 {
			ps := make([]driver.InsertParams, min(n-done, 10_000))
			for i := range ps {
				ps[i] = driver.InsertParams{Kind: limitArgs{}.Kind(), Args: []byte(`{}`), Opts: driver.InsertOpts{Queue: queue}}
				if t := tenant(done + i); t != "" {
					ps[i].Args = fmt.Appendf(nil, `{"tenant": %q}`, t)
				}
			}
			if _, err := d.InsertMany(ctx, admin, ps); err != nil {
				return err
			}
		}
		return nil
	}

	// Rate: starts per second against the limit, and the busiest 1 s window.
	if err := d.ConfigureQueue(ctx, admin, "lim_rate", driver.QueueOptions{
		RateLimit: &driver.RateLimit{PerSecond: o.RatePerSecond, Burst: o.RateBurst}}); err != nil {
		return res, err
	}
	if err := backlog("lim_rate", int(o.RatePerSecond*o.Duration.Seconds()*2)+o.RateBurst, func(int) string { return "" }); err != nil {
		return res, err
	}
	var mu sync.Mutex
	var claims []time.Time
	stop, err := fleet("lim_rate", o.Clients, o.Workers, func(_ context.Context, j *driver.Job[limitArgs]) error {
		mu.Lock()
		claims = append(claims, j.ClaimedAt)
		mu.Unlock()
		return nil
	})
	if err != nil {
		return res, err
	}
	time.Sleep(o.Duration)
	stop()
	sort.Slice(claims, func(i, j int) bool { return claims[i].Before(claims[j]) })
	res.RateStarts = len(claims)
	if len(claims) > 1 {
		res.RateAchieved = float64(len(claims)-1) / claims[len(claims)-1].Sub(claims[0]).Seconds()
	}
	for i, j := 0, 0; i < len(claims); i++ {
		for j < len(claims) && claims[j].Sub(claims[i]) < time.Second {
			j++
		}
		res.RateMaxWindow = max(res.RateMaxWindow, j-i)
	}
	fmt.Fprintf(w, "limits rate   %g/s burst %d, %d clients x %d workers: %d starts in %s, %.1f starts/s (%.0f%% of the limit), busiest 1 s window %d (bound: rate + burst = %d)\n",
		o.RatePerSecond, o.RateBurst, o.Clients, o.Workers, res.RateStarts, o.Duration, res.RateAchieved,
		100*res.RateAchieved/o.RatePerSecond, res.RateMaxWindow, int(o.RatePerSecond)+o.RateBurst)

	// Keys: each key's running jobs against its limit, jobs/s against the ideal.
	if err := d.ConfigureQueue(ctx, admin, "lim_key", driver.QueueOptions{
		Concurrency: &driver.Concurrency{Key: "args.tenant", Limit: o.KeyLimit}}); err != nil {
		return res, err
	}
	res.KeyIdeal = float64(o.Keys*o.KeyLimit) / o.KeyWork.Seconds()
	if err := backlog("lim_key", int(res.KeyIdeal*o.Duration.Seconds()*1.2)+o.Keys, func(i int) string {
		return fmt.Sprintf("t%d", i%o.Keys)
	}); err != nil {
		return res, err
	}
	running := map[string]int{}
	var busy time.Duration
	var jobs int
	stop, err = fleet("lim_key", o.Clients, o.Workers, func(_ context.Context, j *driver.Job[limitArgs]) error {
		mu.Lock()
		running[j.Args.Tenant]++
		res.KeyMaxRunning = max(res.KeyMaxRunning, running[j.Args.Tenant])
		mu.Unlock()
		start := time.Now()
		time.Sleep(o.KeyWork)
		mu.Lock()
		running[j.Args.Tenant]--
		busy += time.Since(start)
		jobs++
		mu.Unlock()
		return nil
	})
	if err != nil {
		return res, err
	}
	time.Sleep(o.Duration)
	mu.Lock()
	res.KeyJobs, res.KeyMeanRunning = jobs, busy.Seconds()/o.Duration.Seconds()/float64(o.Keys)
	mu.Unlock()
	stop()
	res.KeyJobsPerSecond = float64(res.KeyJobs) / o.Duration.Seconds()
	fmt.Fprintf(w, "limits key    %d keys, limit %d, handler %s, %d clients x %d workers: most running of a key %d (limit %d), mean running per key %.2f, %.0f jobs/s (ideal keys*limit/handler %.0f: %.0f%%)\n",
		o.Keys, o.KeyLimit, o.KeyWork, o.Clients, o.Workers, res.KeyMaxRunning, o.KeyLimit, res.KeyMeanRunning,
		res.KeyJobsPerSecond, res.KeyIdeal, 100*res.KeyJobsPerSecond/res.KeyIdeal)

	// Depth: a runaway producer against max_depth, with a slow consumer.
	if err := d.ConfigureQueue(ctx, admin, "lim_depth", driver.QueueOptions{MaxDepth: &o.MaxDepth}); err != nil {
		return res, err
	}
	stop, err = fleet("lim_depth", 1, o.DepthWorkers, func(context.Context, *driver.Job[limitArgs]) error {
		time.Sleep(o.KeyWork)
		return nil
	})
	if err != nil {
		return res, err
	}
	pctx, cancel := context.WithTimeout(ctx, o.Duration)
	defer cancel()
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for pctx.Err() == nil {
			cs, err := d.QueueCounts(pctx, admin, "lim_depth")
			if err == nil && len(cs) == 1 {
				mu.Lock()
				res.DepthMax = max(res.DepthMax, cs[0].Available)
				mu.Unlock()
			}
			time.Sleep(20 * time.Millisecond)
		}
	}()
	var perr error
	batch := make([]driver.InsertParams, o.DepthBatch)
	for i := range batch {
		batch[i] = driver.InsertParams{Kind: limitArgs{}.Kind(), Args: []byte(`{}`), Opts: driver.InsertOpts{Queue: "lim_depth"}}
	}
	for pctx.Err() == nil {
		_, err := d.InsertMany(pctx, admin, batch)
		switch {
		case err == nil:
			res.DepthAccepted += len(batch)
		case errors.Is(err, driver.ErrQueueFull):
			res.DepthRefusals++
		case pctx.Err() == nil:
			perr = err
		}
		if perr != nil {
			break
		}
	}
	wg.Wait()
	stop()
	if perr != nil {
		return res, perr
	}
	fmt.Fprintf(w, "limits depth  max_depth %d, batches of %d, consumer %d workers x %s: %.0f accepted inserts/s, %d refused batches (%.0f/s), most available sampled %d (limit %d)\n",
		o.MaxDepth, o.DepthBatch, o.DepthWorkers, o.KeyWork, float64(res.DepthAccepted)/o.Duration.Seconds(),
		res.DepthRefusals, float64(res.DepthRefusals)/o.Duration.Seconds(), res.DepthMax, o.MaxDepth)
	return res, nil
}
