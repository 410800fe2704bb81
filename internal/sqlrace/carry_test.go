package sqlrace

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// pruneOp runs awa.prune_ring(ring, lock_timeout_ms, keep_sealed, carry_limit)
// on q (a connection or an open transaction) and returns its outcome row.
func pruneOp(ctx context.Context, q interface {
	QueryRow(context.Context, string, ...any) pgx.Row
}, ring string, lockTimeoutMs, keepSealed, carryLimit int) (ringOutcome, error) {
	var o ringOutcome
	err := q.QueryRow(ctx, `SELECT o.ring, o.action, o.outcome, o.slot, o.generation, o.detail
		FROM awa.prune_ring($1, $2, $3, $4) AS o`, ring, lockTimeoutMs, keepSealed, carryLimit).
		Scan(&o.Ring, &o.Action, &o.Outcome, &o.Slot, &o.Generation, &o.Detail)
	return o, err
}

// pruneResult is what a pruneInBackground call returned, how long it took
// and when it returned.
type pruneResult struct {
	o   ringOutcome
	err error
	d   time.Duration
	at  time.Time
}

// pruneInBackground runs pruneOp on q in a goroutine (q is its own until the
// result arrives): the test holds a lock prune needs, checks what waits, then
// reads how the prune ended.
func pruneInBackground(ctx context.Context, q interface {
	QueryRow(context.Context, string, ...any) pgx.Row
}, ring string, lockTimeoutMs, keepSealed, carryLimit int) <-chan pruneResult {
	done := make(chan pruneResult, 1)
	go func() {
		start := time.Now()
		o, err := pruneOp(ctx, q, ring, lockTimeoutMs, keepSealed, carryLimit)
		done <- pruneResult{o, err, time.Since(start), time.Now()}
	}()
	return done
}

// requirePrunedSlot0 fails the test (message starting with what) unless the
// background prune p pruned slot 0.
func requirePrunedSlot0(t *testing.T, p pruneResult, what string) {
	t.Helper()
	if p.err != nil || p.o.Outcome != "pruned" || p.o.Slot == nil || *p.o.Slot != 0 {
		t.Fatalf("%s: %v, %v; want pruned slot 0", what, p.o, p.err)
	}
}

// TestCarryUnderAWaitingClaimAndCancel: 1,000 available jobs sit in the sealed
// queue slot 0 and 100 newer ones of the same lane in the current slot 1. A
// prune moves the sealed slot's jobs (all of them, or 300 of them) to slot 1
// in a transaction it keeps open, so it holds the slot's ACCESS EXCLUSIVE
// locks. A claimer (max 50) and an operator cancel of a moved job, each on its
// own connection, block behind it. After the prune commits, the claim returns
// the lane's first 50 jobs, the cancel applies, and draining the queue claims
// every other job exactly once, in lane order (never a job in both slots),
// and completes each once. Slot 0 ends empty (truncated by the first prune,
// or by the one after the drain).
func TestCarryUnderAWaitingClaimAndCancel(t *testing.T) {
	for _, tc := range []struct {
		name        string
		limit       int
		wantOutcome string
		wantFinal   string // the prune after the queue drained
	}{
		{"whole slot carried and truncated", 100000, "pruned", "already_empty"},
		{"part of the slot carried", 300, "carried", "pruned"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			const queue = "q"
			ctx, pool := newDB(t, 60*time.Second)
			setup := connect(t, ctx, pool)

			// One connection, so every job lands in the same shard lane: lane
			// order is id order.
			older, newer := sealedAndCurrent(t, ctx, setup, queue, 1000, 100)
			all := append(slices.Clone(older), newer...)
			var lanes int
			if err := setup.QueryRow(ctx, `SELECT count(DISTINCT lane_id) FROM awa.ready_entries`).Scan(&lanes); err != nil || lanes != 1 {
				t.Fatalf("setup: the jobs are in %d lanes (err %v), want 1", lanes, err)
			}
			victim := older[200] // moved in both cases, beyond the first claim

			pruner := connect(t, ctx, pool)
			tx := mustBegin(t, ctx, pruner)
			defer tx.Rollback(context.Background())
			o, err := pruneOp(ctx, tx, "queue", 5000, 0, tc.limit)
			if err != nil || o.Outcome != tc.wantOutcome || o.Slot == nil || *o.Slot != 0 {
				t.Fatalf("prune with carry_limit %d: %v, %v; want %s of slot 0", tc.limit, o, err, tc.wantOutcome)
			}
			t.Logf("prune (open transaction): %v", o)

			claimer, canceller := connect(t, ctx, pool), connect(t, ctx, pool)
			type claimResult struct {
				got []claimed
				err error
			}
			claimDone := make(chan claimResult, 1)
			go func() {
				got, err := claim(ctx, claimer, queue, 50, nil)
				claimDone <- claimResult{got, err}
			}()
			cancelDone := make(chan error, 1)
			go func() {
				var outcome, state string
				err := canceller.QueryRow(ctx, `SELECT outcome::text, state::text FROM awa.cancel_job($1, 'operator')`, victim).
					Scan(&outcome, &state)
				if err == nil && (outcome != "applied" || state != "cancelled") {
					err = fmt.Errorf("cancel_job(%d) gave %s %s, want applied cancelled", victim, outcome, state)
				}
				cancelDone <- err
			}()
			waitForLockWait(t, ctx, setup, claimer.PgConn().PID())
			waitForLockWait(t, ctx, setup, canceller.PgConn().PID())
			time.Sleep(50 * time.Millisecond)
			select {
			case r := <-claimDone:
				t.Fatalf("the claim returned while the prune held slot 0: %v, %v", r.got, r.err)
			default:
			}
			if err := tx.Commit(ctx); err != nil {
				t.Fatal(err)
			}

			first := <-claimDone
			if first.err != nil {
				t.Fatalf("claim after the prune: %v", first.err)
			}
			if err := <-cancelDone; err != nil {
				t.Fatalf("cancel after the prune: %v", err)
			}
			if len(first.got) == 0 {
				// The cancel took the lane's claim lock first, and a claim skips a
				// held lane rather than wait (a worker asks queue_pending, then
				// claims again): the claim after the cancel gets the lane's head.
				if first.got, first.err = claim(ctx, claimer, queue, 50, nil); first.err != nil {
					t.Fatalf("claim after the cancel: %v", first.err)
				}
			}
			if got := ids(first.got); !slices.Equal(got, all[:50]) {
				t.Fatalf("the claim that waited for the prune returned %v, want the lane's first 50 jobs %v", firstN(got, 60), firstN(all[:50], 60))
			}

			// Drain: every job but the cancelled one, once, in lane order.
			claims := first.got
			for {
				got, err := claim(ctx, setup, queue, 1024, nil)
				if err != nil {
					t.Fatal(err)
				}
				if len(got) == 0 {
					break
				}
				claims = append(claims, got...)
			}
			want := slices.DeleteFunc(slices.Clone(all), func(id int64) bool { return id == victim })
			if got := ids(claims); !slices.Equal(got, want) {
				t.Fatalf("claimed %d jobs %v, want %d jobs (all but the cancelled %d, each once, in lane order)",
					len(got), firstN(got, 20), len(want), victim)
			}
			res, err := complete(ctx, setup, claims)
			if err != nil {
				t.Fatal(err)
			}
			applied := 0
			for _, r := range res {
				if r.Outcome == "applied" {
					applied++
				}
			}
			if applied != len(want) {
				t.Fatalf("%d of %d completions applied", applied, len(want))
			}
			st := jobStates(t, ctx, pool, queue)
			if st["completed"] != int64(len(want)) || st["cancelled"] != 1 || len(st) != 2 {
				t.Fatalf("awa.jobs states %v, want %d completed and 1 cancelled", st, len(want))
			}
			var rows int64
			if err := setup.QueryRow(ctx, `SELECT count(*) FROM awa.jobs WHERE queue = $1`, queue).Scan(&rows); err != nil ||
				rows != int64(len(all)) {
				t.Fatalf("awa.jobs has %d rows for %d jobs (err %v): a job shows twice", rows, len(all), err)
			}
			if o, err := pruneOp(ctx, setup, "queue", 5000, 0, tc.limit); err != nil || o.Outcome != tc.wantFinal {
				t.Fatalf("prune after the queue drained: %v, %v; want %s", o, err, tc.wantFinal)
			}
			var left int64
			if err := setup.QueryRow(ctx, `SELECT count(*) FROM awa.ready_entries_0`).Scan(&left); err != nil || left != 0 {
				t.Fatalf("slot 0 still holds %d ready rows (err %v), want 0", left, err)
			}
		})
	}
}

func ids(cs []claimed) []int64 {
	out := make([]int64, len(cs))
	for i, c := range cs {
		out[i] = c.ID
	}
	return out
}

// envInt reads an integer setting of a long test from the environment: def
// when unset, at least least.
func envInt(t *testing.T, name string, def, least int) int {
	s := os.Getenv(name)
	if s == "" {
		return def
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < least {
		t.Fatalf("%s=%q: want an integer of at least %d", name, s, least)
	}
	return n
}

// TestOrphanJobDoesNotStopReclamation is issue 7's storage-liveness test: N
// jobs (AWA_ORPHAN_JOBS, default 200,000) go through queue "work" at a steady
// rate (AWA_ORPHAN_RATE jobs/s, default 8,000: 2 producers inserting batches
// of 500, 2 claimers claiming and completing batches of up to 500, each on its
// own connection) while a maintenance connection rotates and prunes both rings
// every 200 ms, as the Go leader does (14 sealed queue slots kept, a prune
// that carried repeated), so the queue ring wraps every 3.2 s. The run is made twice: once with one job in queue
// "orphan", which nobody works, inserted first; once without. The ring
// tables' size (pg_total_relation_size of every queue- and claim-ring child,
// sampled every tick) must stay within 2x the orphan-free run's, and the
// orphan must be claimable afterwards, claimed once and completed once.
func TestOrphanJobDoesNotStopReclamation(t *testing.T) {
	n := envInt(t, "AWA_ORPHAN_JOBS", 200_000, 10_000)
	rate := envInt(t, "AWA_ORPHAN_RATE", 8_000, 1_000)
	without, with := runWithAndWithout(t, n, rate, runOrphan, "one orphan job")
	if with.endBytes > 2*without.maxBytes {
		t.Errorf("with one orphan job the ring tables end at %d bytes, more than 2x the %d bytes the run without it reached",
			with.endBytes, without.maxBytes)
	}
}

// runWithAndWithout makes the run of n jobs at rate twice, plain and with
// kind (what names it), and fails the test when the ring tables of the run
// with it reached more than 2x the size of the plain run's.
func runWithAndWithout(t *testing.T, n, rate int, kind runKind, what string) (without, with orphanResult) {
	t.Helper()
	without = orphanRun(t, n, rate, runPlain)
	with = orphanRun(t, n, rate, kind)
	t.Logf("N=%d without %s: %v", n, what, without)
	t.Logf("N=%d with %s:    %v", n, what, with)
	if with.maxBytes > 2*without.maxBytes {
		t.Errorf("with %s the ring tables reached %d bytes, more than 2x the %d bytes of the run without it",
			what, with.maxBytes, without.maxBytes)
	}
	return without, with
}

type orphanResult struct {
	jobs               int
	maxBytes, endBytes int64
	elapsed            time.Duration
	outcomes           map[string]int
}

func (r orphanResult) String() string {
	return fmt.Sprintf("ring tables max %.1f MB, end %.1f MB, %.1fs (%.0f jobs/s), outcomes %v",
		float64(r.maxBytes)/1e6, float64(r.endBytes)/1e6, r.elapsed.Seconds(), float64(r.jobs)/r.elapsed.Seconds(), r.outcomes)
}

// TestLongJobDoesNotStopReclamation: a job that stays running while both the
// queue ring and the claim ring wrap at least 10 times (its attempt is open
// from the first claim to the end) must not keep its ready slot or its claim
// slot: prune carries them forward (docs/storage.md, "Long attempts"). The ring
// tables stay within 2x the size of the same run without it, rotation never
// stops, and at the end the attempt completes once with the receipt it got at
// claim time.
func TestLongJobDoesNotStopReclamation(t *testing.T) {
	rate := envInt(t, "AWA_ORPHAN_RATE", 8_000, 1_000)
	// 10 wraps of the 16-slot queue ring at one rotation per 200 ms tick, and
	// a quarter more.
	n := rate * 10 * 16 * 5 / 4 / 5
	_, with := runWithAndWithout(t, n, rate, runLong, "one long job")
	for ring, slots := range map[string]int{"queue": 16, "claim": 8} {
		if got := with.outcomes[ring+" rotate rotated"]; got < 10*slots {
			t.Errorf("the %s ring rotated %d times while the long job ran, want at least %d (10 wraps); outcomes %v",
				ring, got, 10*slots, with.outcomes)
		}
	}
}

type runKind int

const (
	runPlain  runKind = iota
	runOrphan         // one job in a queue that nobody works
	runLong           // one job claimed at the start and completed at the end
)

func orphanRun(t *testing.T, n, rate int, kind runKind) orphanResult {
	t.Helper()
	orphan := kind == runOrphan
	const (
		queue     = "work"
		producers = 2
		claimers  = 2
		batch     = 500
		tick      = 200 * time.Millisecond
		keep      = 14
	)
	ctx, pool := newDB(t, 10*time.Minute)
	check := connect(t, ctx, pool)

	var orphanID int64
	if orphan {
		var err error
		if orphanID, err = insertOne(ctx, check, "orphan", 2); err != nil {
			t.Fatal(err)
		}
	}
	var long []claimed
	if kind == runLong {
		if _, err := insertOne(ctx, check, "long", 2); err != nil {
			t.Fatal(err)
		}
		var err error
		if long, err = claim(ctx, check, "long", 1, nil); err != nil || len(long) != 1 {
			t.Fatalf("claim of the long job: %v, %v", long, err)
		}
	}

	runCtx, cancel, fail := withErrOnce(ctx)
	defer cancel()
	var batches, completed atomic.Int64
	var wg sync.WaitGroup
	start := time.Now()
	for p := 0; p < producers; p++ {
		conn := connect(t, ctx, pool)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for runCtx.Err() == nil {
				i := batches.Add(1) - 1
				if i*batch >= int64(n) {
					return
				}
				// Batch i is due at start + i*batch/rate.
				time.Sleep(time.Until(start.Add(time.Duration(i * batch * int64(time.Second) / int64(rate)))))
				if _, err := insertBatch(runCtx, conn, queue, 2, batch); err != nil {
					fail.set("producer %d: insert_jobs: %v", p, err)
					return
				}
			}
		}()
	}
	for c := 0; c < claimers; c++ {
		conn := connect(t, ctx, pool)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for runCtx.Err() == nil && completed.Load() < int64(n) {
				got, err := claim(runCtx, conn, queue, batch, nil)
				if err != nil {
					fail.set("claimer %d: claim_ready_runtime: %v", c, err)
					return
				}
				if len(got) == 0 {
					time.Sleep(time.Millisecond)
					continue
				}
				n, err := completeApplied(runCtx, conn, got)
				if err != nil {
					fail.set("claimer %d: %v", c, err)
					return
				}
				completed.Add(int64(n))
			}
		}()
	}

	res := orphanResult{jobs: n, outcomes: map[string]int{}}
	maint := connect(t, ctx, pool)
	sample := func() int64 {
		var b int64
		if err := maint.QueryRow(ctx, `
			SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0)::bigint
			FROM pg_class c JOIN pg_namespace s ON s.oid = c.relnamespace
			WHERE s.nspname = 'awa' AND c.relkind = 'r'
			  AND c.relname ~ '^(ready_entries|ready_tombstones|done_entries|done_completions|claim_batches|claim_closures)_[0-9]+$'`).
			Scan(&b); err != nil {
			fail.set("ring size: %v", err)
		}
		return b
	}
	maintTick := func() error {
		for _, ring := range []string{"queue", "claim", "cursor"} {
			o, err := ringOp(runCtx, maint, "rotate", ring)
			if err != nil {
				return fmt.Errorf("rotate_ring(%s): %w", ring, err)
			}
			res.outcomes[o.Ring+" rotate "+o.Outcome]++
			k := 0
			if ring == "queue" {
				k = keep
			}
			for until := time.Now().Add(tick / 4); ; {
				o, err := pruneOp(runCtx, maint, ring, 50, k, 1000)
				if err != nil {
					return fmt.Errorf("prune_ring(%s): %w", ring, err)
				}
				res.outcomes[o.Ring+" prune "+o.Outcome]++
				if o.Outcome != "carried" || time.Now().After(until) {
					break
				}
			}
		}
		return nil
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	ticker := time.NewTicker(tick)
	defer ticker.Stop()
loop:
	for {
		select {
		case <-done:
			break loop
		case <-ticker.C:
			if err := maintTick(); err != nil {
				if runCtx.Err() == nil {
					fail.set("maintenance: %v", err)
				}
				break loop
			}
			res.maxBytes = max(res.maxBytes, sample())
		}
	}
	<-done
	if err := fail.get(); err != nil {
		t.Fatal(err)
	}
	res.elapsed = time.Since(start)
	if c := completed.Load(); c != int64(n) {
		t.Fatalf("completed %d jobs, want %d", c, n)
	}
	res.endBytes = sample()
	res.maxBytes = max(res.maxBytes, res.endBytes)

	if kind == runLong {
		fin, err := complete(ctx, check, long)
		if err != nil || len(fin) != 1 || fin[0].Outcome != "applied" {
			t.Fatalf("completing the long job with its receipt from the claim: %v, %v; want applied", fin, err)
		}
		if again, err := complete(ctx, check, long); err != nil || len(again) != 1 || again[0].Outcome != "stale" {
			t.Fatalf("completing the long job again: %v, %v; want stale", again, err)
		}
		var state string
		if err := check.QueryRow(ctx, `SELECT state::text FROM awa.jobs WHERE id = $1`, long[0].ID).Scan(&state); err != nil || state != "completed" {
			t.Fatalf("awa.jobs shows the long job as %q (err %v), want completed", state, err)
		}
	}

	if orphan {
		got, err := claim(ctx, check, "orphan", 10, nil)
		if err != nil || len(got) != 1 || got[0].ID != orphanID {
			t.Fatalf("claim of queue orphan after the run: %v, %v; want exactly the orphan job %d", got, err, orphanID)
		}
		fin, err := complete(ctx, check, got)
		if err != nil || len(fin) != 1 || fin[0].Outcome != "applied" {
			t.Fatalf("completing the orphan: %v, %v", fin, err)
		}
		if again, err := claim(ctx, check, "orphan", 10, nil); err != nil || len(again) != 0 {
			t.Fatalf("a second claim of queue orphan returned %v, %v; want nothing", again, err)
		}
		var states []string
		rows, err := check.Query(ctx, `SELECT state::text FROM awa.jobs WHERE id = $1`, orphanID)
		if err == nil {
			states, err = pgx.CollectRows(rows, pgx.RowTo[string])
		}
		if err != nil || !slices.Equal(states, []string{"completed"}) {
			t.Fatalf("awa.jobs shows the orphan as %v (err %v), want completed once", states, err)
		}
	}
	return res
}

// TestPruneSeesAClaimThatCommittedWhileItWaited: ten available jobs sit in
// the sealed queue slot 0. A claim takes the first three in a transaction it
// keeps open (it holds slot 0's tables). Prune proves the slot (the claim is
// not committed, so all ten look available and no claim is open), takes its
// fingerprint and waits for its locks; then the claim commits. Under the
// locks prune must see that a claim took jobs of the slot (the lane's first
// open position there moved) and skip: carrying the seven still available
// and truncating would take the three running jobs' ready rows with it, and a
// retry of one of them needs its ready row. Afterwards every job ends exactly
// once.
func TestPruneSeesAClaimThatCommittedWhileItWaited(t *testing.T) {
	const queue = "q"
	ctx, pool := newDB(t, 60*time.Second)
	setup := connect(t, ctx, pool)
	ids := mustInsertBatch(t, ctx, setup, queue, 2, 10)
	rotateQueueRing(t, ctx, setup)

	claimer := connect(t, ctx, pool)
	tx := mustBegin(t, ctx, claimer)
	defer tx.Rollback(context.Background())
	running, err := claim(ctx, tx, queue, 3, nil)
	if err != nil || len(running) != 3 {
		t.Fatalf("claim: %v, %v; want 3 jobs", running, err)
	}

	pruner := connect(t, ctx, pool)
	pruned := make(chan ringOutcome, 1)
	pruneErr := make(chan error, 1)
	go func() {
		o, err := pruneOp(ctx, pruner, "queue", 10000, 0, 100000)
		pruned <- o
		pruneErr <- err
	}()
	waitForPruneRetry(t, ctx, setup, pruner.PgConn().PID())
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	o := <-pruned
	if err := <-pruneErr; err != nil {
		t.Fatal(err)
	}
	if o.Outcome != "skipped_live" || o.Slot == nil || *o.Slot != 0 {
		t.Fatalf("prune while a claim of the slot committed: %v; want skipped_live of slot 0", o)
	}

	var readyRows int
	if err := setup.QueryRow(ctx, `SELECT count(*) FROM awa.ready_entries WHERE ready_slot = 0`).Scan(&readyRows); err != nil || readyRows != 10 {
		t.Fatalf("slot 0 holds %d ready rows (err %v), want all 10", readyRows, err)
	}
	retried, err := finalizeAs(ctx, setup, "retry", running[:1])
	if err != nil || len(retried) != 1 || retried[0].Outcome != "applied" {
		t.Fatalf("retry of a running job of slot 0: %v, %v; want applied", retried, err)
	}
	if done, err := complete(ctx, setup, running[1:]); err != nil || len(done) != 2 || done[0].Outcome != "applied" || done[1].Outcome != "applied" {
		t.Fatalf("completion of the other two: %v, %v; want applied", done, err)
	}

	// Drain: promote the retry, claim and complete everything; each job ends
	// completed exactly once.
	for range 20 {
		if _, err := setup.Exec(ctx, `SELECT * FROM awa.promote_due_jobs(1000, now() + interval '1 hour')`); err != nil {
			t.Fatal(err)
		}
		got, err := claim(ctx, setup, queue, 100, nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) == 0 {
			break
		}
		if _, err := complete(ctx, setup, got); err != nil {
			t.Fatal(err)
		}
	}
	var completed, distinct int
	if err := setup.QueryRow(ctx, `SELECT count(*), count(DISTINCT id) FROM awa.terminal_jobs
		WHERE queue = $1 AND state = 'completed'`, queue).Scan(&completed, &distinct); err != nil {
		t.Fatal(err)
	}
	if completed != len(ids) || distinct != len(ids) {
		t.Fatalf("%d completed records for %d distinct jobs, want %d each", completed, distinct, len(ids))
	}
}

// turnRing turns a ring times: each time one job of queue "_turn" is
// inserted, claimed and completed (so the current slots hold rows and the
// rotation is not skipped idle), then ring rotates.
func turnRing(t *testing.T, ctx context.Context, conn *pgx.Conn, ring string, times int) {
	t.Helper()
	for i := 0; i < times; i++ {
		if _, err := insertOne(ctx, conn, "_turn", 2); err != nil {
			t.Fatal(err)
		}
		got, err := claim(ctx, conn, "_turn", 1, nil)
		if err != nil || len(got) != 1 {
			t.Fatalf("turn %d: claim: %v, %v", i, got, err)
		}
		if _, err := complete(ctx, conn, got); err != nil {
			t.Fatal(err)
		}
		if o, err := ringOp(ctx, conn, "rotate", ring); err != nil || o.Outcome != "rotated" {
			t.Fatalf("turn %d: rotate_ring(%s): %v, %v", i, ring, o, err)
		}
	}
}

// TestCarryOfARunningJobNeverMovesItUnderItsCloser: queue slot 0 holds a
// running job and is the slot the next rotation needs, so prune carries the
// job's ready row forward and repoints its claim batch. A closer takes the
// batch's lock before it reads the batch and then the ready row, so:
//   - while a closer holds that lock, prune moves nothing (skipped_live), and
//     a later prune carries the job;
//   - a closer that comes while prune holds the lock (prune's transaction is
//     still open) waits, then finds the job in its new slot: it applies once,
//     and the job ends completed, with its history in the new slot.
func TestCarryOfARunningJobNeverMovesItUnderItsCloser(t *testing.T) {
	ctx, pool := newDB(t, 60*time.Second)
	conn := connect(t, ctx, pool)
	id, err := insertOne(ctx, conn, "long", 2)
	if err != nil {
		t.Fatal(err)
	}
	long, err := claim(ctx, conn, "long", 1, nil)
	if err != nil || len(long) != 1 || long[0].ID != id {
		t.Fatalf("claim of the long job: %v, %v", long, err)
	}
	turnRing(t, ctx, conn, "queue", 15) // current slot 15: slot 0 is the next rotation's

	closer := connect(t, ctx, pool)
	ctx1 := mustBegin(t, ctx, closer)
	if _, err := ctx1.Exec(ctx, `SELECT pg_advisory_xact_lock(awa._lock_key('claim_batch'), awa._lock_claim_batch_id(awa._receipt_batch_id($1::bigint)))`,
		long[0].ReceiptID); err != nil {
		t.Fatal(err)
	}
	if o, err := pruneOp(ctx, conn, "queue", 50, 0, 1000); err != nil || o.Outcome != "skipped_live" || o.Detail == nil ||
		!strings.Contains(*o.Detail, "a closer holds the lock") {
		t.Fatalf("prune while a closer holds the batch lock: %v, %v; want skipped_live naming the closer", o, err)
	}
	var slot int32
	if err := conn.QueryRow(ctx, `SELECT ready_slot FROM awa.ready_entries WHERE job_id = $1`, id).Scan(&slot); err != nil || slot != 0 {
		t.Fatalf("the job's ready row is in slot %d (err %v); want 0, not moved", slot, err)
	}
	if err := ctx1.Rollback(ctx); err != nil {
		t.Fatal(err)
	}

	pruner := connect(t, ctx, pool)
	ptx := mustBegin(t, ctx, pruner)
	o, err := pruneOp(ctx, ptx, "queue", 50, 0, 1000)
	if err != nil || o.Outcome != "pruned" || o.Detail == nil || !strings.Contains(*o.Detail, "carrying 1 claim batches") {
		t.Fatalf("prune: %v, %v; want slot 0 pruned after carrying the running job", o, err)
	}
	pid := backendPID(t, ctx, closer)
	done := inBackground(func() ([]finalized, error) { return complete(ctx, closer, long) })
	waitForLockWait(t, ctx, pool, pid)
	if err := ptx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	r := <-done
	if r.err != nil || len(r.v) != 1 || r.v[0].Outcome != "applied" {
		t.Fatalf("the closer that waited for prune: %v, %v; want applied", r.v, r.err)
	}
	var states []string
	rows, err := conn.Query(ctx, `SELECT state::text FROM awa.jobs WHERE id = $1`, id)
	if err == nil {
		states, err = pgx.CollectRows(rows, pgx.RowTo[string])
	}
	if err != nil || !slices.Equal(states, []string{"completed"}) {
		t.Fatalf("awa.jobs shows the job as %v (err %v), want completed once", states, err)
	}
	if err := conn.QueryRow(ctx, `SELECT ready_slot FROM awa.done_completions WHERE $1 = ANY (job_ids)`, id).
		Scan(&slot); err != nil || slot != 15 {
		t.Fatalf("the completion is in slot %d (err %v), want 15, with the carried ready row", slot, err)
	}
	if again, err := complete(ctx, conn, long); err != nil || len(again) != 1 || again[0].Outcome != "stale" {
		t.Fatalf("completing again: %v, %v; want stale", again, err)
	}
}
