package benchkit

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/awa-queue/awa/internal/pgstats"
)

// Run is the record of one system running one scenario variant once (alike
// the adapter's harnessManifest only in shape: JSON-tagged fields).
type Run struct {
	System   string `json:"system"`
	Scenario string `json:"scenario"`
	Variant  string `json:"variant"`
	Repeat   int    `json:"repeat"`
	Database string `json:"database"`
	Workers  int    `json:"workers,omitempty"`
	// Conns is the worker pool's size (not for enqueue runs); Config names
	// a system configuration of its own (River's "own": its bench command's).
	Conns  int    `json:"pool_max_conns,omitempty"`
	Config string `json:"config,omitempty"`

	// Jobs is what the measured phase handled: jobs worked (burndown, rate)
	// or jobs inserted (enqueue).
	Jobs      int64   `json:"jobs"`
	Seconds   float64 `json:"seconds"`
	PerSecond float64 `json:"per_second"`

	// burndown: the pre-insert, not part of the measured phase.
	PreInsert *Phase `json:"pre_insert,omitempty"`
	// burndown, rate and pinned, awa: the ring outcomes its maintenance
	// reported while the worker client ran (ring → outcome → count;
	// RingEventsDropped of them were lost), per ring the prunes that carried
	// rows forward and the rows they carried (available jobs, claim batches,
	// live leases: prune_ring's detail), the peak size of each ring's tables
	// (sampled every ringSizeEvery: RingSizeSamples taken, RingSizeMissed
	// failed), and the held jobs (-parked, -long).
	Rings             map[string]map[string]int `json:"ring_outcomes,omitempty"`
	RingEventsDropped int64                     `json:"ring_events_dropped,omitempty"`
	RingCarries       map[string]int            `json:"ring_carries,omitempty"`
	RingRowsCarried   map[string]int64          `json:"ring_rows_carried,omitempty"`
	RingPeakBytes     map[string]int64          `json:"ring_peak_bytes,omitempty"`
	RingSizeSamples   int                       `json:"ring_size_samples,omitempty"`
	RingSizeMissed    int                       `json:"ring_size_samples_missed,omitempty"`
	Held              *HeldJobs                 `json:"held,omitempty"`
	// backlog: the backlog's size, the claim's cost, awa's carry.
	Backlog *BacklogStats `json:"backlog,omitempty"`
	// queues (awa): what grows with the queue count.
	Queues *QueueStats `json:"queues,omitempty"`

	// rate
	OfferedRate      float64  `json:"offered_rate,omitempty"`
	AchievedInsert   float64  `json:"achieved_insert_rate,omitempty"`
	CompletionRate   float64  `json:"completion_rate,omitempty"`
	DrainSeconds     float64  `json:"drain_seconds,omitempty"`
	Latency          *Summary `json:"insert_to_start_latency,omitempty"`
	DepthMax         int64    `json:"queue_depth_max,omitempty"`
	DepthMean        float64  `json:"queue_depth_mean,omitempty"`
	DepthSamples     []int64  `json:"queue_depth_samples,omitempty"`
	InsertCallLatncy *Summary `json:"insert_call_latency,omitempty"`
	// awa: insert→start split at the claim: created_at → claimed_at (both
	// the database's clock: the producer's commit, the notification, the
	// wake and the claim's start) and claimed_at → handler start (the
	// claim's own run and commit, its reply, the hand-off to a worker).
	ToClaim      *Summary `json:"insert_to_claim_latency,omitempty"`
	ClaimToStart *Summary `json:"claim_to_start_latency,omitempty"`

	// mixed: due→start latency of the delayed jobs (Latency is the immediate
	// jobs' insert→start), the jobs inserted delayed and planned to fail, the
	// first attempts that failed and the retries that started.
	DueLatency *Summary `json:"due_to_start_latency,omitempty"`
	// RetryDueLatency: the retries' due→start, from their backoff's run_at.
	RetryDueLatency *Summary `json:"retry_due_to_start_latency,omitempty"`
	Delayed         int64    `json:"delayed_jobs,omitempty"`
	PlannedFail     int64    `json:"planned_failures,omitempty"`
	FailedFirst     int64    `json:"failed_first_attempts,omitempty"`
	Retries         int64    `json:"retries_started,omitempty"`

	WALBytes  int64   `json:"wal_bytes"`
	WALPerJob float64 `json:"wal_bytes_per_job"`
	// Burn-down, awa: the WAL of the reclaim after the run (every queue-ring
	// slot pruned: the archive copy, with a retention on), and the WAL per job
	// over its whole life: pre-insert, the measured phase and the reclaim.
	ReclaimWALBytes int64         `json:"reclaim_wal_bytes,omitempty"`
	LifeWALPerJob   float64       `json:"life_wal_bytes_per_job,omitempty"`
	DB              DBStat        `json:"database_stats"`
	Families        []TableFamily `json:"tables"`
	Tables          []TableStat   `json:"table_partitions"`
	Waits           []WaitEvent   `json:"wait_events,omitempty"`
	Stmts           []Statement   `json:"pg_stat_statements,omitempty"`
	Funcs           []FuncStat    `json:"function_stats,omitempty"`
	CPU             CPU           `json:"cpu"`
	Error           string        `json:"error,omitempty"`
}

// Phase is an unmeasured setup phase.
type Phase struct {
	Jobs      int64   `json:"jobs"`
	Seconds   float64 `json:"seconds"`
	PerSecond float64 `json:"per_second"`
	WALBytes  int64   `json:"wal_bytes"`
}

// env is what every run of an invocation shares.
type env struct {
	adminDSN   string
	dbPrefix   string
	statements bool
	profile    bool
	keep       bool
	conns      int
	workers    int
	con        *Console
	timeout    time.Duration
	parked     int // jobs an awa burn-down or rate run holds parked, and
	long       int // long attempts it holds open (HeldQueue)
	// backlogSlots: queue-ring slots an awa burn-down's backlog is spread over.
	backlogSlots int
}

// harness is one run's database and measurement state.
type harness struct {
	e       *env
	sys     System
	run     *Run
	dbname  string
	dsn     string
	monitor *pgx.Conn // on the run database
	lsn0    string
	waits   *waitSampler
	cpu     cpuMeter
	started time.Time
}

func newHarness(ctx context.Context, e *env, sys System, run *Run) (*harness, error) {
	h := &harness{e: e, sys: sys, run: run}
	h.dbname = fmt.Sprintf("%s_%s_%s", e.dbPrefix, sys.Name(), run.Scenario)
	run.Database = h.dbname
	var err error
	if h.dsn, err = dsnFor(e.adminDSN, h.dbname); err != nil {
		return nil, err
	}
	if err := freshDB(ctx, e.adminDSN, h.dbname); err != nil {
		return nil, fmt.Errorf("create database %s: %w", h.dbname, err)
	}
	if err := sys.Migrate(ctx, h.dsn); err != nil {
		return nil, fmt.Errorf("migrate %s: %w", sys.Name(), err)
	}
	if e.profile {
		admin, err := pgx.Connect(ctx, e.adminDSN)
		if err != nil {
			return nil, err
		}
		defer admin.Close(context.Background())
		for _, s := range []string{"track_functions = 'pl'", "pg_stat_statements.track = 'all'"} {
			if !e.statements && s[0] == 'p' {
				continue
			}
			if _, err := admin.Exec(ctx, "ALTER DATABASE "+ident(h.dbname)+" SET "+s); err != nil {
				return nil, fmt.Errorf("profile settings: %w", err)
			}
		}
	}
	if h.monitor, err = pgx.Connect(ctx, h.dsn); err != nil {
		return nil, err
	}
	return h, nil
}

// pool opens a pool on the run's database. Each scenario opens its own (the
// sizes differ) and closes it before collect, so the backends flush their
// counters; the scenarios' open-check-defer lines look alike for that reason.
func (h *harness) pool(ctx context.Context, maxConns int) (*pgxpool.Pool, error) {
	return openPool(ctx, h.dsn, maxConns, h.sys)
}

// startWorkers starts sys's w workers on pool and returns their stop, which
// stops them once: a scenario calls it to end the run and defers it for an
// early return (later calls return nil).
func startWorkers(ctx context.Context, sys System, pool *pgxpool.Pool, w int, hd *Handler) (func() error, error) {
	r, err := sys.Start(ctx, pool, w, hd)
	if err != nil {
		return nil, err
	}
	stopped := false
	return func() error {
		if stopped {
			return nil
		}
		stopped = true
		return r.Stop(ctx)
	}, nil
}

// inserter opens a pool as pool does and sys's Inserter on it; the caller
// closes the pool.
func (h *harness) inserter(ctx context.Context, sys System, maxConns int) (*pgxpool.Pool, Inserter, error) {
	pool, err := h.pool(ctx, maxConns)
	if err != nil {
		return nil, nil, err
	}
	ins, err := sys.Inserter(pool)
	if err != nil {
		pool.Close()
		return nil, nil, err
	}
	return pool, ins, nil
}

// OpenPool opens a pgx pool on dsn of at most maxConns connections.
func OpenPool(ctx context.Context, dsn string, maxConns int) (*pgxpool.Pool, error) {
	return openPool(ctx, dsn, maxConns, nil)
}

// openPool is OpenPool with sys's pool settings when it has its own
// (PoolTuner).
func openPool(ctx context.Context, dsn string, maxConns int, sys System) (*pgxpool.Pool, error) {
	cfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		return nil, err
	}
	cfg.MaxConns = int32(maxConns)
	if t, ok := sys.(PoolTuner); ok {
		t.TunePool(cfg)
	}
	return pgxpool.NewWithConfig(ctx, cfg)
}

// begin starts the measured phase: checkpoint (so both systems start with
// the same full-page-write state), reset of statistics, WAL position, wait
// sampling and CPU metering.
func (h *harness) begin(ctx context.Context) error {
	if _, err := h.monitor.Exec(ctx, "CHECKPOINT"); err != nil {
		return err
	}
	if err := resetStats(ctx, h.monitor, h.e.adminDSN, h.e.statements); err != nil {
		return err
	}
	var err error
	if h.lsn0, err = walLSN(ctx, h.monitor); err != nil {
		return err
	}
	if h.waits, err = startWaitSampler(ctx, h.e.adminDSN, h.dbname, 100*time.Millisecond); err != nil {
		return err
	}
	h.cpu = startCPU()
	h.started = time.Now()
	return nil
}

// endWAL closes the measured phase's WAL and CPU accounting.
func (h *harness) endWAL(ctx context.Context) error {
	lsn1, err := walLSN(ctx, h.monitor)
	if err != nil {
		return err
	}
	h.run.WALBytes, err = walDiff(ctx, h.monitor, h.lsn0, lsn1)
	h.run.CPU = h.cpu.Stop()
	h.run.Waits = h.waits.Stop()
	h.waits = nil
	return err
}

// collect reads the run's statistics; every pool must be closed by now so
// the backends have flushed their counters.
func (h *harness) collect(ctx context.Context) error {
	if h.run.Jobs > 0 {
		h.run.WALPerJob = float64(h.run.WALBytes) / float64(h.run.Jobs)
	}
	ts, err := pgstats.Settled(ctx, h.monitor, h.sys.OwnsTable)
	if err != nil {
		return err
	}
	h.run.Tables = ts
	h.run.Families = families(ts)
	if h.run.DB, err = dbStat(ctx, h.monitor); err != nil {
		return err
	}
	if h.e.statements {
		admin, err := pgx.Connect(ctx, h.e.adminDSN)
		if err != nil {
			return err
		}
		h.run.Stmts, err = topStatements(ctx, admin, h.dbname, 20)
		admin.Close(context.Background())
		if err != nil {
			return err
		}
	}
	if h.e.profile {
		if h.run.Funcs, err = funcStats(ctx, h.monitor); err != nil {
			return err
		}
	}
	return nil
}

func (h *harness) close(ctx context.Context) {
	if h.waits != nil {
		h.waits.Stop()
	}
	if h.monitor != nil {
		h.monitor.Close(context.Background())
	}
	if !h.e.keep {
		if err := dropDB(ctx, h.e.adminDSN, h.dbname); err != nil {
			h.e.con.logf("drop %s: %v", h.dbname, err)
		}
	}
}

// pending is the system's count of unfinished jobs, through the monitor
// connection (the query is tagged so reports can leave it out).
func (h *harness) pending(ctx context.Context) (int64, int64, error) {
	return h.sys.Pending(ctx, h.monitor)
}

func makeArgs(from, n int) []JobArgs {
	as := make([]JobArgs, n)
	for i := range as {
		as[i].N = from + i
	}
	return as
}

// ---------------------------------------------------------------- burn-down

// burndown pre-inserts n jobs, then times w workers working them all.
func burndown(ctx context.Context, e *env, sys System, n int, run *Run) error {
	h, err := newHarness(ctx, e, sys, run)
	if err != nil {
		return err
	}
	defer h.close(ctx)
	pool, ins, err := h.inserter(ctx, sys, e.conns)
	if err != nil {
		return err
	}
	defer pool.Close()

	pre, err := h.preInsert(ctx, ins, n, "burndown")
	if err != nil {
		return err
	}
	held, err := h.hold(ctx)
	if err != nil {
		return err
	}
	defer held.close()

	if err := h.begin(ctx); err != nil {
		return err
	}
	hd := &Handler{}
	rings, err := h.watchRings(ctx, hd)
	if err != nil {
		return err
	}
	defer rings()
	held.keep(ctx)
	start := time.Now()
	stop, err := startWorkers(ctx, sys, pool, e.workers, hd)
	if err != nil {
		return err
	}
	defer stop()

	deadline := start.Add(e.timeout)
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	var end time.Time
	lastN, lastT := int64(0), start
	for end.IsZero() {
		<-tick.C
		now := time.Now()
		got := hd.started.Load()
		if now.Sub(lastT) >= time.Second {
			e.con.progress(fmt.Sprintf("%s burndown: %d/%d jobs, %.0f jobs/s now, %.0f jobs/s overall",
				sys.Name(), got, n, float64(got-lastN)/now.Sub(lastT).Seconds(), float64(got)/now.Sub(start).Seconds()))
			lastN, lastT = got, now
		}
		if got >= int64(n) {
			avail, running, err := h.pending(ctx)
			if err != nil {
				return err
			}
			if avail == 0 && running == 0 {
				end = time.Now()
			}
		}
		if now.After(deadline) {
			return fmt.Errorf("burn-down timed out after %s with %d/%d jobs started", e.timeout, got, n)
		}
	}
	run.Jobs = int64(n)
	run.Seconds = end.Sub(start).Seconds()
	run.PerSecond = float64(n) / run.Seconds
	if err := h.endWAL(ctx); err != nil {
		return err
	}
	if err := stop(); err != nil {
		return fmt.Errorf("stop: %w", err)
	}
	rings()
	if err := held.stopKeeping(); err != nil {
		return fmt.Errorf("held jobs: %w", err)
	}
	pool.Close()
	if got := hd.started.Load(); got != int64(n) {
		e.con.logf("%s burndown: handler ran %d times for %d jobs", sys.Name(), got, n)
	}
	if err := h.collect(ctx); err != nil {
		return err
	}
	if err := h.account(ctx, held); err != nil {
		return err
	}
	// The rest of the jobs' lives (awa): every queue-ring slot reclaimed.
	if r, ok := sys.(interface {
		Reclaim(ctx context.Context, conn *pgx.Conn) (int, error)
	}); ok {
		lsnC, err := walLSN(ctx, h.monitor)
		if err != nil {
			return err
		}
		if _, err := r.Reclaim(ctx, h.monitor); err != nil {
			return fmt.Errorf("reclaim: %w", err)
		}
		lsnD, err := walLSN(ctx, h.monitor)
		if err != nil {
			return err
		}
		if run.ReclaimWALBytes, err = walDiff(ctx, h.monitor, lsnC, lsnD); err != nil {
			return err
		}
		run.LifeWALPerJob = float64(pre.WALBytes+run.WALBytes+run.ReclaimWALBytes) / float64(n)
	}
	return nil
}

// preInsert inserts n jobs through sys's bulk path, 100,000 per transaction,
// records the phase in the run and checks that sys reports them all
// available. With -awa-backlog-slots (awa), the backlog is inserted slot by
// slot, the queue ring turned between slots.
func (h *harness) preInsert(ctx context.Context, ins Inserter, n int, scenario string) (*Phase, error) {
	sys, e := h.sys, h.e
	lsnA, _ := walLSN(ctx, h.monitor)
	t0 := time.Now()
	const perTx = 100_000
	slots := 1
	if sys.Name() == "awa" {
		slots = max(1, e.backlogSlots)
	}
	perSlot := (n + slots - 1) / slots
	for done := 0; done < n; {
		k := min(perTx, n-done, perSlot-done%perSlot)
		if err := ins.Bulk(ctx, makeArgs(done, k)); err != nil {
			return nil, fmt.Errorf("pre-insert: %w", err)
		}
		done += k
		if done%perSlot == 0 && done < n {
			if _, err := h.monitor.Exec(ctx, `SELECT * FROM awa.rotate_ring('queue', now(), interval '0')`); err != nil {
				return nil, fmt.Errorf("pre-insert: rotate the queue ring: %w", err)
			}
		}
		e.con.progress(fmt.Sprintf("%s %s: pre-inserted %d/%d", sys.Name(), scenario, done, n))
	}
	pre := &Phase{Jobs: int64(n), Seconds: time.Since(t0).Seconds()}
	pre.PerSecond = float64(n) / pre.Seconds
	lsnB, _ := walLSN(ctx, h.monitor)
	pre.WALBytes, _ = walDiff(ctx, h.monitor, lsnA, lsnB)
	h.run.PreInsert = pre
	if avail, _, err := h.pending(ctx); err != nil || avail != int64(n) {
		return nil, fmt.Errorf("after pre-insert %s reports %d available (want %d): %v", sys.Name(), avail, n, err)
	}
	return pre, nil
}

// hold sets up the held jobs the run was asked for (-parked, -long; awa
// only), before its measured phase: nil when none (a nil holder's methods do
// nothing). Its keeper ticks every heldTick, or at awa's maintenance interval
// when that is shorter, so a short test run turns the lease ring as often.
func (h *harness) hold(ctx context.Context) (*holder, error) {
	if h.e.parked+h.e.long == 0 {
		return nil, nil
	}
	a, ok := h.sys.(AwaSystem)
	if !ok {
		return nil, fmt.Errorf("-parked and -long hold awa jobs: not for %s", h.sys.Name())
	}
	every := heldTick
	if cfg, _, err := a.maintenance(); err == nil && cfg != nil {
		every = min(every, cfg.LeaseRingInterval)
	}
	return holdJobs(ctx, h.dsn, h.e.parked, h.e.long, every, h.e.con.progress)
}

// account accounts for the held jobs after the run's statistics were read
// (completing the long attempts is not the run's).
func (h *harness) account(ctx context.Context, held *holder) error {
	if held == nil {
		return nil
	}
	var err error
	if h.run.Held, err = held.finish(ctx); err != nil {
		return fmt.Errorf("held jobs: %w", err)
	}
	return nil
}

// watchRings, for an awa run, has hd count its worker client's ring
// outcomes and samples the ring tables' size from now on; the returned func
// (called once the worker client stopped, deferred for an early return;
// later calls do nothing) stops the sampling and records both in the run.
func (h *harness) watchRings(ctx context.Context, hd *Handler) (func(), error) {
	if _, ok := h.sys.(AwaSystem); !ok {
		return func() {}, nil
	}
	sizes, err := startRingSizes(ctx, h.dsn)
	if err != nil {
		return nil, err
	}
	hd.Rings = &RingTally{}
	done := false
	return func() {
		if done {
			return
		}
		done = true
		r := h.run
		r.RingPeakBytes, r.RingSizeSamples, r.RingSizeMissed = sizes.Stop()
		r.Rings, r.RingEventsDropped = hd.Rings.Counts(), hd.Rings.Dropped()
		r.RingCarries, r.RingRowsCarried = hd.Rings.Carries()
	}, nil
}

// ---------------------------------------------------------------- offered rate

// producers insert at rate jobs/s in total, split across p goroutines, from
// start until stop. Each producer credits work by elapsed time: when it falls
// behind it inserts what it owes in one multi-row insert (up to 1000 jobs)
// instead of lowering the rate.
// mk makes the jobs numbered from from on (makeArgs: plain ones).
func produce(ctx context.Context, ins Inserter, rate float64, p int, start, stop time.Time,
	inserted *atomic.Int64, callLat *Histogram, errs chan<- error, mk func(from, n int) []JobArgs) *sync.WaitGroup {
	var wg sync.WaitGroup
	per := rate / float64(p)
	for g := 0; g < p; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var sent int64
			seq := g * 1_000_000_000
			for {
				now := time.Now()
				if !now.Before(stop) || ctx.Err() != nil {
					return
				}
				owed := int64(now.Sub(start).Seconds()*per) - sent
				if owed <= 0 {
					next := start.Add(time.Duration(float64(sent+1) / per * float64(time.Second)))
					if next.After(stop) {
						next = stop
					}
					time.Sleep(time.Until(next))
					continue
				}
				k := min(owed, 1000)
				t0 := time.Now()
				var err error
				if as := mk(seq, int(k)); k == 1 {
					err = ins.One(ctx, as[0])
				} else {
					err = ins.Many(ctx, as)
				}
				callLat.Record(time.Since(t0))
				if err != nil {
					select {
					case errs <- err:
					default:
					}
					return
				}
				seq += int(k)
				sent += k
				inserted.Add(k)
			}
		}()
	}
	return &wg
}

// rateRun offers rate jobs/s for warmup + dur and measures insert-to-start
// latency in the window. With pinned, an idle session holds a REPEATABLE READ
// snapshot of an unrelated table from the start of the measured phase until
// the statistics are read, as an application's forgotten transaction would:
// no row version deleted or updated meanwhile can be vacuumed away.
//
// With mix (the mixed scenario), its jobs are mix.args's and its handler
// does mix.work; the run counts jobs finished, not started, and waits for
// every job to finish (the retried and the delayed too).
func rateRun(ctx context.Context, e *env, sys System, rate float64, warmup, dur time.Duration, producers int,
	pinned bool, run *Run, mix *mixSpec) error {
	h, err := newHarness(ctx, e, sys, run)
	if err != nil {
		return err
	}
	defer h.close(ctx)
	var pin *pgx.Conn
	if pinned {
		if pin, err = pinHorizon(ctx, h); err != nil {
			return fmt.Errorf("pin the MVCC horizon: %w", err)
		}
		defer pin.Close(context.Background())
	}
	// The workers' pool, and the producers' own.
	pool, err := h.pool(ctx, e.conns)
	if err != nil {
		return err
	}
	defer pool.Close()
	ppool, ins, err := h.inserter(ctx, sys, producers+2)
	if err != nil {
		return err
	}
	defer ppool.Close()
	depthConn, err := pgx.Connect(ctx, h.dsn)
	if err != nil {
		return err
	}
	defer depthConn.Close(context.Background())
	held, err := h.hold(ctx)
	if err != nil {
		return err
	}
	defer held.close()

	if err := h.begin(ctx); err != nil {
		return err
	}
	if pin != nil {
		if err := holdSnapshot(ctx, pin); err != nil {
			return fmt.Errorf("pin the MVCC horizon: %w", err)
		}
	}
	hd := &Handler{}
	mk, done := makeArgs, hd.Started
	if mix != nil {
		hd.Work, mk, done = mix.work, mix.args, hd.Finished
	}
	rings, err := h.watchRings(ctx, hd)
	if err != nil {
		return err
	}
	defer rings()
	held.keep(ctx)
	stop, err := startWorkers(ctx, sys, pool, e.workers, hd)
	if err != nil {
		return err
	}
	defer stop()

	start := time.Now()
	ws, we := start.Add(warmup), start.Add(warmup+dur)
	hd.windowEnd.Store(we.UnixNano())
	hd.windowStart.Store(ws.UnixNano())
	var inserted atomic.Int64
	var callLat Histogram
	errs := make(chan error, 1)
	wg := produce(ctx, ins, rate, producers, start, we, &inserted, &callLat, errs, mk)

	// Sample the queue depth once a second during the window, and count
	// inserts and starts at its edges.
	var depth []int64
	var insAtWS, startAtWS int64
	time.Sleep(time.Until(ws))
	insAtWS, startAtWS = inserted.Load(), done()
	sec := time.NewTicker(time.Second)
	for now := time.Now(); now.Before(we); now = time.Now() {
		select {
		case err := <-errs:
			sec.Stop()
			return fmt.Errorf("producer: %w", err)
		case <-sec.C:
		case <-time.After(time.Until(we)):
			continue
		}
		avail, _, err := sys.Pending(ctx, depthConn)
		if err == nil {
			depth = append(depth, avail)
		}
		e.con.progress(fmt.Sprintf("%s rate %.0f/s: %.0fs/%.0fs, inserted %d, worked %d, depth %d",
			sys.Name(), rate, time.Since(ws).Seconds(), dur.Seconds(), inserted.Load(), hd.started.Load(), avail))
	}
	sec.Stop()
	insAtWE, startAtWE := inserted.Load(), done()
	wg.Wait()
	select {
	case err := <-errs:
		return fmt.Errorf("producer: %w", err)
	default:
	}

	// Drain: every inserted job starts and is finalized.
	total := inserted.Load()
	drainStart := time.Now()
	for {
		if done() >= total {
			avail, running, err := h.pending(ctx)
			if err != nil {
				return err
			}
			if avail == 0 && running == 0 {
				break
			}
		}
		if time.Since(drainStart) > 2*time.Minute {
			return fmt.Errorf("drain timed out: %d of %d jobs done", done(), total)
		}
		time.Sleep(20 * time.Millisecond)
	}
	run.DrainSeconds = time.Since(drainStart).Seconds()
	if err := h.endWAL(ctx); err != nil {
		return err
	}
	if err := stop(); err != nil {
		return err
	}
	rings()
	if err := held.stopKeeping(); err != nil {
		return fmt.Errorf("held jobs: %w", err)
	}
	pool.Close()
	ppool.Close()

	run.OfferedRate = rate
	run.AchievedInsert = float64(insAtWE-insAtWS) / dur.Seconds()
	run.CompletionRate = float64(startAtWE-startAtWS) / dur.Seconds()
	run.Jobs = total
	run.Seconds = dur.Seconds()
	run.PerSecond = run.CompletionRate
	s := hd.latency.Summary()
	run.Latency = &s
	if tc, cs := hd.toClaim.Summary(), hd.claimToStart.Summary(); tc.Count > 0 {
		run.ToClaim, run.ClaimToStart = &tc, &cs
	}
	cs := callLat.Summary()
	run.InsertCallLatncy = &cs
	if mix != nil {
		mix.account(hd, run)
	}
	run.DepthSamples = depth
	for _, d := range depth {
		run.DepthMax = max(run.DepthMax, d)
		run.DepthMean += float64(d)
	}
	if len(depth) > 0 {
		run.DepthMean /= float64(len(depth))
	}
	if err := h.collect(ctx); err != nil {
		return err
	}
	if pin != nil {
		// Still held: the statistics above were read under the pinned horizon.
		var pinning bool
		if err := h.monitor.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_stat_activity
			WHERE pid = $1 AND state = 'idle in transaction' AND backend_xmin IS NOT NULL)`,
			pin.PgConn().PID()).Scan(&pinning); err != nil {
			return err
		}
		if !pinning {
			return errors.New("the pinning session lost its snapshot before the end of the run")
		}
	}
	return h.account(ctx, held)
}

// pinHorizon creates the unrelated table the pinning session reads and opens
// that session.
func pinHorizon(ctx context.Context, h *harness) (*pgx.Conn, error) {
	if _, err := h.monitor.Exec(ctx, `CREATE TABLE bench_unrelated (id int PRIMARY KEY);
		INSERT INTO bench_unrelated VALUES (1)`); err != nil {
		return nil, err
	}
	return pgx.Connect(ctx, h.dsn)
}

// holdSnapshot leaves conn idle in a REPEATABLE READ transaction that has
// taken its snapshot, which holds back the database's MVCC horizon.
func holdSnapshot(ctx context.Context, conn *pgx.Conn) error {
	if _, err := conn.Exec(ctx, "BEGIN ISOLATION LEVEL REPEATABLE READ"); err != nil {
		return err
	}
	_, err := conn.Exec(ctx, "SELECT count(*) FROM bench_unrelated")
	return err
}

// ---------------------------------------------------------------- enqueue

// enqueueRun inserts for dur: "single" with p goroutines each inserting one
// job per transaction, or "bulk" with one goroutine inserting batch jobs per
// transaction through the bulk path.
func enqueueRun(ctx context.Context, e *env, sys System, mode string, p, batch int, dur time.Duration, run *Run) error {
	h, err := newHarness(ctx, e, sys, run)
	if err != nil {
		return err
	}
	defer h.close(ctx)
	pool, ins, err := h.inserter(ctx, sys, p+2)
	if err != nil {
		return err
	}
	defer pool.Close()
	// One warm-up insert (connections, lane creation for awa, plans).
	if err := ins.One(ctx, JobArgs{N: -1}); err != nil {
		return err
	}
	if err := h.begin(ctx); err != nil {
		return err
	}
	var inserted atomic.Int64
	var callLat Histogram
	var firstErr error
	var errOnce sync.Once
	start := time.Now()
	stop := start.Add(dur)
	var wg sync.WaitGroup
	for g := 0; g < p; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			seq := g * 1_000_000_000
			for time.Now().Before(stop) {
				t0 := time.Now()
				var err error
				k := 1
				if mode == "bulk" {
					k = batch
					err = ins.Bulk(ctx, makeArgs(seq, batch))
				} else {
					err = ins.One(ctx, JobArgs{N: seq})
				}
				callLat.Record(time.Since(t0))
				if err != nil {
					errOnce.Do(func() { firstErr = err })
					return
				}
				seq += k
				inserted.Add(int64(k))
			}
		}()
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	t := time.NewTicker(time.Second)
	for running := true; running; {
		select {
		case <-done:
			running = false
		case <-t.C:
			e.con.progress(fmt.Sprintf("%s enqueue %s: %d inserted, %.0f/s", sys.Name(), run.Variant,
				inserted.Load(), float64(inserted.Load())/time.Since(start).Seconds()))
		}
	}
	t.Stop()
	elapsed := time.Since(start)
	if firstErr != nil {
		return firstErr
	}
	if err := h.endWAL(ctx); err != nil {
		return err
	}
	pool.Close()
	run.Jobs = inserted.Load()
	run.Seconds = elapsed.Seconds()
	run.PerSecond = float64(run.Jobs) / run.Seconds
	cs := callLat.Summary()
	run.InsertCallLatncy = &cs
	return h.collect(ctx)
}

// median of the runs' values.
func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}
