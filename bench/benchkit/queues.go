package benchkit

import (
	"context"
	"fmt"
	"sort"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/awa-queue/awa/driver"
)

// ---------------------------------------------------------------- queue count

// QueueStats are what a queue-count run measures (awa only), at N queues
// that each hold jobs (one queue per tenant): the first insert into each
// queue (lane creation) and a later one, one claim-and-complete per sampled
// queue, queue_counts, and each call of the leader's maintenance tick, timed
// client-side as the Go maintainer makes them.
type QueueStats struct {
	Queues      int     `json:"queues"`
	FirstInsert Summary `json:"first_insert"`
	NextInsert  Summary `json:"next_insert"`
	Claim       Summary `json:"claim"`
	CountsAll   Summary `json:"queue_counts_all"`
	CountsOne   Summary `json:"queue_counts_one"`
	// Tick is each maintenance call's median over queueTicks ticks, in
	// the order the maintainer runs them, and TickMs their sum.
	Tick   []TickCall `json:"tick"`
	TickMs float64    `json:"tick_ms"`
}

// TickCall is one maintenance call of a tick: its median over the ticks.
type TickCall struct {
	Call string  `json:"call"`
	Ms   float64 `json:"median_ms"`
}

const (
	queueJobs    = 2   // jobs each queue holds: its first insert and one more
	queueSample  = 200 // queues sampled for the second insert, the claim and queue_counts(queue)
	queueTicks   = 5   // maintenance ticks timed
	queueBatch   = 1000
	queueKeepOne = 14 // sealed queue slots the Go maintainer keeps (its default)
)

// queueName names tenant i's queue.
func queueName(i int) string { return fmt.Sprintf("tenant_%05d", i) }

// queuesRun creates n queues, each with queueJobs jobs, and times what grows
// with the queue count.
func queuesRun(ctx context.Context, e *env, sys System, n int, run *Run) error {
	if _, ok := sys.(AwaSystem); !ok {
		return fmt.Errorf("the queues scenario runs awa only")
	}
	h, err := newHarness(ctx, e, sys, run)
	if err != nil {
		return err
	}
	defer h.close(ctx)
	pool, err := h.pool(ctx, 4)
	if err != nil {
		return err
	}
	defer pool.Close()
	d := driver.New()
	qs := &QueueStats{Queues: n}
	run.Queues = qs
	if err := h.begin(ctx); err != nil {
		return err
	}
	start := time.Now()
	ins := func(q int) (time.Duration, error) {
		t0 := time.Now()
		_, err := d.Insert(ctx, pool, driver.InsertParams{Kind: JobArgs{}.Kind(), Args: []byte(`{"n":0}`),
			Opts: driver.InsertOpts{Queue: queueName(q)}})
		return time.Since(t0), err
	}
	var first, next Histogram
	for q := 0; q < n; q++ {
		dt, err := ins(q)
		if err != nil {
			return fmt.Errorf("first insert into %s: %w", queueName(q), err)
		}
		first.Record(dt)
		if q%500 == 0 {
			e.con.progress(fmt.Sprintf("awa queues %d: first insert into %d queues", n, q))
		}
	}
	sample := sampled(n)
	for _, q := range sample {
		dt, err := ins(q)
		if err != nil {
			return err
		}
		next.Record(dt)
	}
	// The rest of each queue's jobs, in batches.
	var ps []driver.InsertParams
	for q := 0; q < n; q++ {
		for k := 1; k < queueJobs; k++ {
			if slicesContains(sample, q) && k == 1 {
				continue
			}
			ps = append(ps, driver.InsertParams{Kind: JobArgs{}.Kind(), Args: []byte(`{"n":1}`),
				Opts: driver.InsertOpts{Queue: queueName(q)}})
		}
	}
	for i := 0; i < len(ps); i += queueBatch {
		if _, err := d.InsertMany(ctx, pool, ps[i:min(i+queueBatch, len(ps))]); err != nil {
			return err
		}
	}
	qs.FirstInsert, qs.NextInsert = first.Summary(), next.Summary()

	var claim, countsAll, countsOne Histogram
	var instance [16]byte
	instance[0] = 1
	for _, q := range sample {
		t0 := time.Now()
		jobs, err := d.Claim(ctx, pool, queueName(q), 1, instance, 0)
		claim.Record(time.Since(t0))
		if err != nil {
			return err
		}
		if len(jobs) != 1 {
			return fmt.Errorf("claim of %s returned %d jobs, want 1", queueName(q), len(jobs))
		}
		if _, err := d.Complete(ctx, pool, []driver.Receipt{jobs[0].Receipt}); err != nil {
			return err
		}
		t0 = time.Now()
		if _, err := d.QueueCounts(ctx, pool, queueName(q)); err != nil {
			return err
		}
		countsOne.Record(time.Since(t0))
	}
	for i := 0; i < 3; i++ {
		t0 := time.Now()
		rows, err := d.QueueCounts(ctx, pool, "")
		countsAll.Record(time.Since(t0))
		if err != nil {
			return err
		}
		if len(rows) != n {
			return fmt.Errorf("queue_counts: %d queues, want %d", len(rows), n)
		}
	}
	qs.Claim, qs.CountsAll, qs.CountsOne = claim.Summary(), countsAll.Summary(), countsOne.Summary()

	if err := qs.ticks(ctx, d, pool); err != nil {
		return err
	}
	run.Jobs = int64(n * queueJobs)
	run.Seconds = time.Since(start).Seconds()
	if err := h.endWAL(ctx); err != nil {
		return err
	}
	pool.Close()
	return h.collect(ctx)
}

// sampled spreads queueSample queue numbers over [0, n).
func sampled(n int) []int {
	k := min(n, queueSample)
	out := make([]int, k)
	for i := range out {
		out[i] = i * n / k
	}
	return out
}

func slicesContains(xs []int, x int) bool {
	i := sort.SearchInts(xs, x)
	return i < len(xs) && xs[i] == x
}

// ticks times queueTicks maintenance ticks, each call as the Go maintainer
// makes it with its defaults (batch 1,000, prune budget 50 ms, 14 sealed
// queue slots kept), every ring rotated on every tick (no minimum
// interval), so each tick seals and prunes.
func (qs *QueueStats) ticks(ctx context.Context, d *driver.Driver, pool *pgxpool.Pool) error {
	const batch, budget = 1000, 50 * time.Millisecond
	type call struct {
		name string
		do   func() error
	}
	ring := func(r driver.Ring, keep int) []call {
		rot := call{"rotate_ring " + string(r), func() error { _, err := d.RotateRing(ctx, pool, r, 0); return err }}
		pr := call{"prune_ring " + string(r), func() error { _, err := d.PruneRing(ctx, pool, r, budget, keep, batch); return err }}
		if r == driver.RingCursor {
			return []call{pr, rot}
		}
		return []call{rot, pr}
	}
	calls := []call{
		{"promote_due_jobs", func() error { _, err := d.PromoteDueJobs(ctx, pool, batch); return err }},
		{"rescue_stale_claims", func() error { _, err := d.RescueStaleClaims(ctx, pool, time.Minute, batch); return err }},
		{"rescue_expired_deadlines", func() error { _, err := d.RescueExpiredDeadlines(ctx, pool, batch); return err }},
		{"rescue_expired_callbacks", func() error { _, err := d.RescueExpiredCallbacks(ctx, pool, batch); return err }},
	}
	calls = append(calls, ring(driver.RingQueue, queueKeepOne)...)
	calls = append(calls, ring(driver.RingClaim, 0)...)
	calls = append(calls, ring(driver.RingLease, 0)...)
	calls = append(calls, ring(driver.RingCursor, 0)...)
	calls = append(calls,
		call{"cleanup_attempt_state", func() error { _, err := d.CleanupAttemptState(ctx, pool, batch); return err }},
		call{"queue_depths", func() error { _, err := d.QueueDepths(ctx, pool, 10_000); return err }})
	times := make([][]float64, len(calls))
	for t := 0; t < queueTicks; t++ {
		for i, c := range calls {
			t0 := time.Now()
			if err := c.do(); err != nil {
				return fmt.Errorf("tick %d, %s: %w", t, c.name, err)
			}
			times[i] = append(times[i], float64(time.Since(t0).Microseconds())/1000)
		}
	}
	for i, c := range calls {
		m := median(times[i])
		qs.Tick = append(qs.Tick, TickCall{c.name, m})
		qs.TickMs += m
	}
	return nil
}
