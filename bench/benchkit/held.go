package benchkit

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
)

// HeldQueue is the queue of the jobs a burn-down or rate run holds besides
// its own (-parked, -long). Not the run's queue: the run's end ("nothing
// available or running in default") and its jobs/s then count the short jobs
// only, and the worker client never claims a held job. The rings are shared by
// every queue, so what the held jobs do to rotation and prune is the same.
const HeldQueue = "bench_held"

// Held-job settings: parked jobs wait a day for their callback (no timeout
// rescue during a run); the keeper ticks every heldTick (or the awa
// maintenance interval when shorter): it heartbeats the held attempts'
// process, has each long attempt report progress once every
// heldProgressEvery ticks and register a callback once every
// heldCallbackEvery ticks, as a long handler would now and then, and claims
// one fresh job of HeldQueue that registers a callback. Each callback
// registered during the run waits heldWaitTicks ticks (longer than a lease
// ring wrap of 8 slots at one rotation a tick), then is resumed from SQL and
// taken, and a fresh attempt completed.
const (
	heldCallbackTimeout = "24 hours"
	heldTick            = time.Second
	heldProgressEvery   = 5
	heldCallbackEvery   = 20
	heldWaitTicks       = 10
	heldClaimBatch      = 1000
)

// HeldJobs is what a burn-down or rate run with -parked or -long reports
// about its held jobs: set up before the measured phase, accounted for after
// it.
type HeldJobs struct {
	Parked       int     `json:"parked"`
	Long         int     `json:"long"`
	Queue        string  `json:"queue"`
	SetupSeconds float64 `json:"setup_seconds"`
	// During the measured phase: heartbeats of the long attempts' process,
	// and their progress writes (stale ones: attempts found closed).
	Heartbeats     int64 `json:"heartbeats"`
	ProgressWrites int64 `json:"progress_writes"`
	ProgressStale  int64 `json:"progress_stale"`
	// Callbacks registered during the measured phase: by long attempts, and
	// by fresh attempts (each a new lease in the lease ring's current slot);
	// each resumed (awa.resume_external applied and awa.take_callback_result
	// handed the payload over) after heldWaitTicks, the last ones after the
	// run, and each fresh attempt then completed. CallbackStale counts those
	// steps that did not apply, CallbackResumedAgain a second resume of a
	// token that applied: both must be 0.
	CallbacksLong        int64 `json:"callbacks_long"`
	CallbacksFresh       int64 `json:"callbacks_fresh"`
	CallbacksResumed     int64 `json:"callbacks_resumed"`
	FreshCompleted       int64 `json:"fresh_completed"`
	CallbackStale        int64 `json:"callback_stale"`
	CallbackResumedAgain int64 `json:"callback_resumed_again"`
	// At the end: parked jobs still in awa.external_waits with the token they
	// parked with (and awa.queue_counts' waiting_external of the queue), long
	// attempts still open with their claim-time receipt (their last progress
	// write applied), then completed (complete_jobs applied, state completed).
	ParkedWaiting   int64 `json:"parked_still_waiting"`
	QueueWaiting    int64 `json:"queue_counts_waiting_external"`
	LongOpen        int64 `json:"long_still_open"`
	LongCompleted   int64 `json:"long_completed"`
	LongCompleteDup int64 `json:"long_completed_again"` // a second complete_jobs of the same receipts that applied: must be 0
}

// accounted reports whether every held job was found as it should be.
func (hj *HeldJobs) accounted() error {
	var errs []error
	if hj.ParkedWaiting != int64(hj.Parked) || hj.QueueWaiting != int64(hj.Parked) {
		errs = append(errs, fmt.Errorf("%d of %d parked jobs still waiting with their token (queue_counts: %d waiting_external)",
			hj.ParkedWaiting, hj.Parked, hj.QueueWaiting))
	}
	if hj.LongOpen != int64(hj.Long) || hj.LongCompleted != int64(hj.Long) || hj.LongCompleteDup != 0 {
		errs = append(errs, fmt.Errorf("%d of %d long attempts still open, %d completed, %d completed again",
			hj.LongOpen, hj.Long, hj.LongCompleted, hj.LongCompleteDup))
	}
	if hj.ProgressStale > 0 {
		errs = append(errs, fmt.Errorf("%d progress writes of long attempts were stale", hj.ProgressStale))
	}
	if hj.CallbacksResumed != hj.CallbacksLong+hj.CallbacksFresh || hj.FreshCompleted != hj.CallbacksFresh ||
		hj.CallbackStale != 0 || hj.CallbackResumedAgain != 0 {
		errs = append(errs, fmt.Errorf("callbacks during the run: %d by long and %d by fresh attempts, %d resumed, "+
			"%d fresh completed, %d steps stale, %d resumed again", hj.CallbacksLong, hj.CallbacksFresh,
			hj.CallbacksResumed, hj.FreshCompleted, hj.CallbackStale, hj.CallbackResumedAgain))
	}
	return errors.Join(errs...)
}

// attempt is one claimed attempt and its receipt.
type attempt struct {
	job, lease int64
	slot       int32
	receipt    int64
}

// attempts are parallel arrays of attempts, the finalizers' arguments.
type attempts struct {
	jobs, leases, receipts []int64
	slots                  []int32
}

func (as *attempts) add(a attempt) {
	as.jobs = append(as.jobs, a.job)
	as.leases = append(as.leases, a.lease)
	as.slots = append(as.slots, a.slot)
	as.receipts = append(as.receipts, a.receipt)
}

func (as *attempts) len() int { return len(as.jobs) }

func (as *attempts) at(i int) attempt {
	return attempt{as.jobs[i], as.leases[i], as.slots[i], as.receipts[i]}
}

// slice returns attempts [i, j).
func (as *attempts) slice(i, j int) attempts {
	return attempts{jobs: as.jobs[i:j], leases: as.leases[i:j], slots: as.slots[i:j], receipts: as.receipts[i:j]}
}

// wait is a callback registered during the run, resumed at tick due.
type wait struct {
	attempt
	token string
	due   int
	fresh bool // a fresh attempt's, completed once resumed; else a long attempt's
}

// holder keeps the held jobs of one run: its own connection (a process of
// its own, awa.heartbeat_instance) and, while the keeper runs, the
// heartbeat, progress and callbacks of the held attempts.
type holder struct {
	conn      *pgx.Conn
	instance  string
	every     time.Duration // the keeper's tick
	long      attempts
	parked    []int64
	tokens    []string
	waits     []wait   // registered during the run, not yet resumed
	resumed   []string // their tokens once resumed
	unclaimed int      // fresh jobs inserted, not yet claimed
	rep       *HeldJobs
	stop      chan struct{}
	done      chan struct{}
	errs      atomic.Pointer[error] // the keeper's first error
}

// holdJobs inserts parked+long jobs in HeldQueue, claims them in batches as a
// process of its own, parks parked of them (register_callback, then
// park_jobs) and keeps long of them open (first progress write: each escalates
// to a lease), all in SQL through pgx. The caller starts the keeper at the
// measured phase and calls finish after it.
func holdJobs(ctx context.Context, dsn string, parked, long int, every time.Duration, progress func(string)) (*holder, error) {
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		return nil, err
	}
	hd := &holder{conn: conn, every: every, rep: &HeldJobs{Parked: parked, Long: long, Queue: HeldQueue}}
	t0 := time.Now()
	if err := hd.setup(ctx, progress); err != nil {
		conn.Close(context.Background())
		return nil, fmt.Errorf("hold %d parked and %d long jobs: %w", parked, long, err)
	}
	hd.rep.SetupSeconds = time.Since(t0).Seconds()
	return hd, nil
}

func (hd *holder) setup(ctx context.Context, progress func(string)) error {
	c := hd.conn
	if err := c.QueryRow(ctx, `SELECT instance_id::text FROM awa.heartbeat_instance(gen_random_uuid())`).Scan(&hd.instance); err != nil {
		return err
	}
	total := hd.rep.Parked + hd.rep.Long
	for done := 0; done < total; {
		k := min(10_000, total-done)
		if _, err := c.Exec(ctx, `SELECT count(*) FROM awa.insert_jobs(array_fill('bench'::text, ARRAY[$1::int]),
			ARRAY(SELECT jsonb_build_object('n', i) FROM generate_series($2::int, $2::int + $1::int - 1) AS i),
			array_fill(jsonb_build_object('queue', $3::text), ARRAY[$1::int]))`, k, done, HeldQueue); err != nil {
			return fmt.Errorf("insert: %w", err)
		}
		done += k
	}
	empty := 0
	for claimed := 0; claimed < total; {
		got, err := hd.claim(ctx, min(heldClaimBatch, total-claimed))
		if err != nil {
			return err
		}
		if got.len() == 0 {
			if empty++; empty > 50 {
				return fmt.Errorf("claim: %d of %d jobs claimed, then none", claimed, total)
			}
			time.Sleep(10 * time.Millisecond)
			continue
		}
		claimed += got.len()
		// The first long claimed stay open; the rest are parked.
		nLong := min(got.len(), hd.rep.Long-hd.long.len())
		for i := range nLong {
			hd.long.add(got.at(i))
		}
		if err := hd.park(ctx, got.slice(nLong, got.len())); err != nil {
			return err
		}
		progress(fmt.Sprintf("awa: held %d/%d jobs claimed (%d parked)", claimed, total, len(hd.parked)))
	}
	// Each long attempt's first progress write escalates it to a lease.
	if n, err := hd.progress(ctx, hd.long, 0); err != nil || n != int64(hd.rep.Long) {
		return fmt.Errorf("first progress of the long attempts: %d of %d applied: %v", n, hd.rep.Long, err)
	}
	return flushStats(ctx, c)
}

// flushStats has conn's backend report its pending table statistics now
// (PostgreSQL 15 reports them at most once a second, an idle backend's up to
// 10 s later):
// the setup's before the measured phase resets them, the keeper's before the
// run reads them.
func flushStats(ctx context.Context, conn *pgx.Conn) error {
	_, err := conn.Exec(ctx, "SELECT pg_stat_force_next_flush()")
	return err
}

// claim claims up to n jobs of HeldQueue as the holder's process.
func (hd *holder) claim(ctx context.Context, n int) (attempts, error) {
	var got attempts
	rows, err := hd.conn.Query(ctx, `SELECT id, run_lease, claim_slot, receipt_id FROM awa.claim_ready_runtime($1, $2, $3::text::uuid)`,
		HeldQueue, n, hd.instance)
	if err != nil {
		return got, fmt.Errorf("claim: %w", err)
	}
	var a attempt
	if _, err := pgx.ForEachRow(rows, []any{&a.job, &a.lease, &a.slot, &a.receipt}, func() error {
		got.add(a)
		return nil
	}); err != nil {
		return got, fmt.Errorf("claim: %w", err)
	}
	return got, nil
}

// register registers a callback for each attempt (one call each, in one
// statement) and returns their tokens; each must apply.
func (hd *holder) register(ctx context.Context, as attempts) ([]string, error) {
	rows, err := hd.conn.Query(ctx, `SELECT r.job_id, r.outcome::text, r.callback_id::text
		FROM unnest($1::bigint[], $2::bigint[], $3::int[], $4::bigint[]) AS u (job_id, run_lease, claim_slot, receipt_id),
		     LATERAL awa.register_callback(u.job_id, u.run_lease, u.claim_slot, u.receipt_id, $5::interval) AS r`,
		as.jobs, as.leases, as.slots, as.receipts, heldCallbackTimeout)
	if err != nil {
		return nil, fmt.Errorf("register callbacks: %w", err)
	}
	var job int64
	var outcome string
	var token *string
	tokens := make([]string, 0, as.len())
	if _, err := pgx.ForEachRow(rows, []any{&job, &outcome, &token}, func() error {
		if outcome != "applied" || token == nil {
			return fmt.Errorf("job %d: %s", job, outcome)
		}
		tokens = append(tokens, *token)
		return nil
	}); err != nil {
		return nil, fmt.Errorf("register callbacks: %w", err)
	}
	return tokens, nil
}

// park registers a callback for each attempt and parks them all.
func (hd *holder) park(ctx context.Context, as attempts) error {
	if as.len() == 0 {
		return nil
	}
	tokens, err := hd.register(ctx, as)
	if err != nil {
		return err
	}
	var parked int
	if err := hd.conn.QueryRow(ctx, `SELECT count(*) FILTER (WHERE outcome = 'applied' AND state = 'waiting_external')
		FROM awa.park_jobs($1, $2, $3, $4)`, as.jobs, as.leases, as.slots, as.receipts).Scan(&parked); err != nil {
		return fmt.Errorf("park: %w", err)
	}
	if parked != as.len() || len(tokens) != as.len() {
		return fmt.Errorf("park: %d of %d jobs parked (%d tokens)", parked, as.len(), len(tokens))
	}
	hd.parked = append(hd.parked, as.jobs...)
	hd.tokens = append(hd.tokens, tokens...)
	return nil
}

// progress writes a checkpoint for each attempt (one call each, in one
// statement) and returns how many applied.
func (hd *holder) progress(ctx context.Context, as attempts, tick int) (int64, error) {
	var n int64
	err := hd.conn.QueryRow(ctx, `SELECT count(*) FILTER (WHERE p.outcome = 'applied')
		FROM unnest($1::bigint[], $2::bigint[], $3::int[], $4::bigint[]) AS u (job_id, run_lease, claim_slot, receipt_id),
		     LATERAL awa.set_progress(u.job_id, u.run_lease, u.claim_slot, u.receipt_id, jsonb_build_object('tick', $5::int)) AS p`,
		as.jobs, as.leases, as.slots, as.receipts, tick).Scan(&n)
	return n, err
}

// keep starts the keeper: every tick it heartbeats the held attempts'
// process, has a share of the long attempts report progress (each once
// every heldProgressEvery ticks, each attempt in a statement of its own, as
// handlers report theirs) and runs the callbacks of the tick.
func (hd *holder) keep(ctx context.Context) {
	if hd == nil {
		return
	}
	hd.stop, hd.done = make(chan struct{}), make(chan struct{})
	go tickUntil(ctx, hd.every, hd.stop, hd.done, func(tick int) {
		if err := hd.tick(ctx, tick); err != nil {
			hd.errs.CompareAndSwap(nil, &err)
		}
	})
}

func (hd *holder) tick(ctx context.Context, tick int) error {
	if _, err := hd.conn.Exec(ctx, `SELECT 1 FROM awa.heartbeat_instance($1::text::uuid)`, hd.instance); err != nil {
		return fmt.Errorf("heartbeat: %w", err)
	}
	hd.rep.Heartbeats++
	for i := tick % heldProgressEvery; i < hd.long.len(); i += heldProgressEvery {
		n, err := hd.progress(ctx, hd.long.slice(i, i+1), tick)
		if err != nil {
			return fmt.Errorf("progress: %w", err)
		}
		hd.rep.ProgressWrites++
		hd.rep.ProgressStale += 1 - n
	}
	return hd.callbacks(ctx, tick)
}

// callbacks resumes the callbacks due at tick, then registers the tick's
// new ones: one fresh job of HeldQueue inserted and claimed (its
// registration is its attempt's first mutable state: a lease row in the
// current lease slot), and the long attempts whose turn it is (their lease
// exists since the set-up: a new token, no new lease).
func (hd *holder) callbacks(ctx context.Context, tick int) error {
	if err := hd.resume(ctx, tick); err != nil {
		return err
	}
	if _, err := hd.conn.Exec(ctx, `SELECT 1 FROM awa.insert_job('bench', jsonb_build_object('n', $1::int),
		jsonb_build_object('queue', $2::text))`, -tick, HeldQueue); err != nil {
		return fmt.Errorf("insert a fresh job: %w", err)
	}
	hd.unclaimed++
	fresh, err := hd.claim(ctx, hd.unclaimed)
	if err != nil {
		return err
	}
	hd.unclaimed -= fresh.len()
	var long attempts
	for i := tick % heldCallbackEvery; i < hd.long.len(); i += heldCallbackEvery {
		long.add(hd.long.at(i))
	}
	for _, set := range []struct {
		as    attempts
		fresh bool
		count *int64
	}{{fresh, true, &hd.rep.CallbacksFresh}, {long, false, &hd.rep.CallbacksLong}} {
		if set.as.len() == 0 {
			continue
		}
		tokens, err := hd.register(ctx, set.as)
		if err != nil {
			return err
		}
		for i, tok := range tokens {
			hd.waits = append(hd.waits, wait{attempt: set.as.at(i), token: tok, due: tick + heldWaitTicks, fresh: set.fresh})
		}
		*set.count += int64(len(tokens))
	}
	return nil
}

// resume resumes the callbacks due by tick (every one: tick -1) from SQL (awa.resume_external),
// has their attempts take the payload (awa.take_callback_result, as a
// sequential handler does) and completes the fresh attempts among them.
func (hd *holder) resume(ctx context.Context, tick int) error {
	var due, fresh attempts
	var tokens []string
	keep := hd.waits[:0]
	for _, w := range hd.waits {
		if tick >= 0 && w.due > tick {
			keep = append(keep, w)
			continue
		}
		due.add(w.attempt)
		tokens = append(tokens, w.token)
		if w.fresh {
			fresh.add(w.attempt)
		}
	}
	hd.waits = keep
	if len(tokens) == 0 {
		return nil
	}
	var applied, taken, completed int64
	if err := hd.conn.QueryRow(ctx, `SELECT count(*) FILTER (WHERE r.outcome = 'applied')
		FROM unnest($1::text[]::uuid[]) AS t (id), LATERAL awa.resume_external(t.id, jsonb_build_object('tick', $2::int)) AS r`,
		tokens, tick).Scan(&applied); err != nil {
		return fmt.Errorf("resume callbacks: %w", err)
	}
	if err := hd.conn.QueryRow(ctx, `SELECT count(*) FILTER (WHERE w.status = 'resumed')
		FROM unnest($1::bigint[], $2::bigint[], $3::int[], $4::bigint[], $5::text[]::uuid[])
		         AS u (job_id, run_lease, claim_slot, receipt_id, callback_id),
		     LATERAL awa.take_callback_result(u.job_id, u.run_lease, u.claim_slot, u.receipt_id, u.callback_id) AS w`,
		due.jobs, due.leases, due.slots, due.receipts, tokens).Scan(&taken); err != nil {
		return fmt.Errorf("take callback results: %w", err)
	}
	if fresh.len() > 0 {
		if err := hd.conn.QueryRow(ctx, `SELECT count(*) FILTER (WHERE outcome = 'applied' AND state = 'completed')
			FROM awa.complete_jobs($1, $2, $3, $4)`, fresh.jobs, fresh.leases, fresh.slots, fresh.receipts).Scan(&completed); err != nil {
			return fmt.Errorf("complete fresh attempts: %w", err)
		}
	}
	hd.rep.CallbacksResumed += min(applied, taken)
	hd.rep.FreshCompleted += completed
	hd.rep.CallbackStale += 2*int64(len(tokens)) - applied - taken + int64(fresh.len()) - completed
	hd.resumed = append(hd.resumed, tokens...)
	return nil
}

// stopKeeping stops the keeper and returns its first error.
func (hd *holder) stopKeeping() error {
	if hd == nil {
		return nil
	}
	if hd.stop != nil {
		close(hd.stop)
		<-hd.done
		hd.stop = nil
		if err := flushStats(context.Background(), hd.conn); err != nil {
			hd.errs.CompareAndSwap(nil, &err)
		}
	}
	if p := hd.errs.Load(); p != nil {
		return *p
	}
	return nil
}

// finish accounts for the held jobs after the measured phase (the keeper
// stopped): parked jobs still parked, long attempts still open with their
// claim-time receipts, then completes these once. Its writes come after the
// run's statistics were read.
func (hd *holder) finish(ctx context.Context) (*HeldJobs, error) {
	if err := hd.stopKeeping(); err != nil {
		return hd.rep, err
	}
	c, r := hd.conn, hd.rep
	// The callbacks still waiting: resumed now, then every token resumed
	// once more, which must change nothing.
	if err := hd.resume(ctx, -1); err != nil {
		return r, err
	}
	if err := c.QueryRow(ctx, `SELECT count(*) FILTER (WHERE r.outcome = 'applied')
		FROM unnest($1::text[]::uuid[]) AS t (id), LATERAL awa.resume_external(t.id) AS r`,
		hd.resumed).Scan(&r.CallbackResumedAgain); err != nil {
		return r, fmt.Errorf("resume callbacks again: %w", err)
	}
	if err := c.QueryRow(ctx, `SELECT (SELECT count(*) FROM awa.external_waits w
		                            JOIN unnest($1::bigint[], $2::text[]::uuid[]) AS p (job_id, callback_id) USING (job_id, callback_id)),
		                           (SELECT coalesce(sum(waiting_external), 0)::bigint FROM awa.queue_counts($3))`,
		hd.parked, hd.tokens, HeldQueue).Scan(&r.ParkedWaiting, &r.QueueWaiting); err != nil {
		return r, fmt.Errorf("parked jobs: %w", err)
	}
	if hd.long.len() == 0 {
		return r, r.accounted()
	}
	var err error
	if r.LongOpen, err = hd.progress(ctx, hd.long, -1); err != nil {
		return r, fmt.Errorf("long attempts: %w", err)
	}
	complete := func() (n int64, err error) {
		err = c.QueryRow(ctx, `SELECT count(*) FILTER (WHERE outcome = 'applied' AND state = 'completed')
			FROM awa.complete_jobs($1, $2, $3, $4)`, hd.long.jobs, hd.long.leases, hd.long.slots, hd.long.receipts).Scan(&n)
		return n, err
	}
	if r.LongCompleted, err = complete(); err == nil {
		r.LongCompleteDup, err = complete()
	}
	if err != nil {
		return r, fmt.Errorf("complete the long attempts: %w", err)
	}
	return r, r.accounted()
}

func (hd *holder) close() {
	if hd == nil {
		return
	}
	_ = hd.stopKeeping()
	hd.conn.Close(context.Background())
}
