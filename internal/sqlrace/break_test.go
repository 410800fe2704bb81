package sqlrace

// Adversarial interleavings of prune (with carry) against cancel_job and
// against producers whose ring slot is stale. Each test holds transactions
// open on real sessions and waits for the exact lock wait it needs.

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// drainQueue claims (max 50 per call) and completes until a claim returns
// nothing, and returns every claimed id in claim order.
func drainQueue(t *testing.T, ctx context.Context, conn *pgx.Conn, queue string) []int64 {
	t.Helper()
	var got []int64
	for {
		cs, err := claim(ctx, conn, queue, 50, nil)
		if err != nil {
			t.Fatalf("drain claim: %v", err)
		}
		if len(cs) == 0 {
			return got
		}
		res, err := complete(ctx, conn, cs)
		if err != nil {
			t.Fatalf("drain complete: %v", err)
		}
		for _, r := range res {
			if r.Outcome != "applied" {
				t.Fatalf("drain complete: %v, want applied", r)
			}
		}
		got = append(got, ids(cs)...)
	}
}

// TestPruneAfterACancelCommittedWhileItWaitedNeverCarriesTheCancelledJob:
// jobs sit available in the sealed queue slot 0. An operator's cancel_job of
// one of them applies in a transaction that stays open (it holds the slot's
// ready rows ACCESS SHARE). A prune then proves the slot (the job is still
// available to its snapshot, so it would be carried) and waits for its locks.
// The cancel commits. Under the locks the fingerprint is unchanged (a
// tombstone moves no lane tip and no claim cursor): prune must still not carry
// the cancelled job. Afterwards draining the queue claims every other job
// exactly once, in lane order, and never the cancelled one; cancelling it
// again reports it already cancelled or gone, never applied.
func TestPruneAfterACancelCommittedWhileItWaitedNeverCarriesTheCancelledJob(t *testing.T) {
	for _, tc := range []struct {
		name  string
		limit int
		want  string
	}{
		{"whole slot carried", 100000, "pruned"},
		{"part of the slot carried", 10, "carried"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			const queue = "q"
			ctx, pool := newDB(t, 60*time.Second)
			setup := connect(t, ctx, pool)
			older, newer := sealedAndCurrent(t, ctx, setup, queue, 40, 5)
			victim := older[3] // among the first carried in both cases

			canceller := connect(t, ctx, pool)
			ctx2, err := canceller.Begin(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer ctx2.Rollback(context.Background())
			var outcome string
			if err := ctx2.QueryRow(ctx, `SELECT f.outcome::text FROM awa.cancel_job($1) AS f`, victim).Scan(&outcome); err != nil || outcome != "applied" {
				t.Fatalf("cancel_job: %q, %v; want applied", outcome, err)
			}

			pruner := connect(t, ctx, pool)
			pid := pruner.PgConn().PID()
			done := pruneInBackground(ctx, pruner, "queue", 10000, 0, tc.limit)
			waitForPruneRetry(t, ctx, setup, pid)
			if err := ctx2.Commit(ctx); err != nil {
				t.Fatal(err)
			}
			r := <-done
			if r.err != nil || r.o.Outcome != tc.want || r.o.Slot == nil || *r.o.Slot != 0 {
				t.Fatalf("prune: %v, %v; want %s of slot 0", r.o, r.err, tc.want)
			}
			t.Logf("prune after the cancel committed: %v", r.o)

			var inBoth int
			if err := setup.QueryRow(ctx, `SELECT count(*) FROM awa.ready_entries WHERE job_id = $1 AND ready_slot <> 0`, victim).
				Scan(&inBoth); err != nil || inBoth != 0 {
				t.Fatalf("the cancelled job %d was carried: %d ready rows outside slot 0 (err %v)", victim, inBoth, err)
			}

			got := drainQueue(t, ctx, setup, queue)
			want := slices.DeleteFunc(append(slices.Clone(older), newer...), func(id int64) bool { return id == victim })
			if !slices.Equal(got, want) {
				t.Fatalf("drain claimed %d jobs %v; want the %d others once, in lane order %v",
					len(got), firstN(got, 60), len(want), firstN(want, 60))
			}
			// A second cancel must not apply again (already cancelled, or
			// its history was truncated with the slot).
			_, err = setup.Exec(ctx, `SELECT * FROM awa.cancel_job($1)`, victim)
			if code := sqlState(err); code != "AW021" && code != "AW020" {
				t.Fatalf("second cancel_job of job %d: %v; want AW021 or AW020", victim, err)
			}
			// Whatever the first prune left, the slot is reclaimable now.
			if o, err := pruneOp(ctx, setup, "queue", 1000, 0, 1000); err != nil || (o.Outcome != "pruned" && o.Outcome != "already_empty") {
				t.Fatalf("final prune: %v, %v", o, err)
			}
			var left int
			if err := setup.QueryRow(ctx, `SELECT count(*) FROM awa.ready_entries WHERE ready_slot = 0`).Scan(&left); err != nil || left != 0 {
				t.Fatalf("slot 0 still holds %d ready rows (err %v)", left, err)
			}
		})
	}
}

// TestProducerWaitingForItsLaneAcrossARotationAndPruneKeepsItsJob: a READ
// COMMITTED producer picks the current queue slot (0), then waits for its
// lane's producer lock (enqueue_shards 1) held by another producer's open
// transaction. Meanwhile the ring rotates. The holder commits; the waiting
// producer writes its job into slot 0, now sealed. A prune then carries it
// (it is available), the queue drains every job exactly once in lane order,
// and slot 0 is reclaimed.
func TestProducerWaitingForItsLaneAcrossARotationAndPruneKeepsItsJob(t *testing.T) {
	const queue = "s"
	ctx, pool := newDB(t, 60*time.Second)
	setup := connect(t, ctx, pool)
	if _, err := setup.Exec(ctx, `SELECT awa.configure_queue($1, '{"enqueue_shards": 1}')`, queue); err != nil {
		t.Fatal(err)
	}
	first, err := insertOne(ctx, setup, queue, 2)
	if err != nil {
		t.Fatal(err)
	}

	holder := connect(t, ctx, pool)
	htx := mustBegin(t, ctx, holder)
	defer htx.Rollback(context.Background())
	held, err := insertOne(ctx, htx, queue, 2)
	if err != nil {
		t.Fatal(err)
	}

	waiter := connect(t, ctx, pool)
	pid := waiter.PgConn().PID()
	type insertResult struct {
		id  int64
		err error
	}
	done := make(chan insertResult, 1)
	go func() {
		id, err := insertOne(ctx, waiter, queue, 2)
		done <- insertResult{id, err}
	}()
	waitForLockWait(t, ctx, setup, pid)

	rotateQueueRing(t, ctx, setup)
	if err := htx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	r := <-done
	if r.err != nil {
		t.Fatalf("waiting producer: %v", r.err)
	}
	var slot int32
	if err := setup.QueryRow(ctx, `SELECT ready_slot FROM awa.ready_entries WHERE job_id = $1`, r.id).Scan(&slot); err != nil {
		t.Fatal(err)
	}
	t.Logf("the waiting producer's job %d landed in ready slot %d (current is 1)", r.id, slot)

	later, err := insertOne(ctx, setup, queue, 2)
	if err != nil {
		t.Fatal(err)
	}
	o, err := pruneOp(ctx, setup, "queue", 1000, 0, 1000)
	if err != nil || o.Outcome != "pruned" || o.Slot == nil || *o.Slot != 0 {
		t.Fatalf("prune: %v, %v; want slot 0 pruned after carrying its jobs", o, err)
	}
	got := drainQueue(t, ctx, setup, queue)
	if want := []int64{first, held, r.id, later}; !slices.Equal(got, want) {
		t.Fatalf("drain claimed %v; want %v (each once, in lane order)", got, want)
	}
}

// TestCarryingPruneHoldsItsLocksForTheSlotsLanesOnly: many lanes exist
// (96 queues with 64 enqueue shards, used at all 4 priorities: 24,576 lanes),
// one job each in 384 of them, in the sealed queue slot 0. A prune that will
// carry those 384 jobs retries for the slot's locks behind a reader. When the
// reader commits, the prune takes the locks, carries and truncates under
// them, and every claim that reads the ring waits meanwhile: that must cost
// about the 384 jobs carried, not a probe of every lane in the database (the
// carry used to walk every claim head: 0.1 to 0.5 s here, against a 50 ms
// lock budget). Afterwards a claim takes the carried job.
func TestCarryingPruneHoldsItsLocksForTheSlotsLanesOnly(t *testing.T) {
	const queues, bound = 96, 150 * time.Millisecond
	ctx, pool := newDB(t, 120*time.Second)
	setup := connect(t, ctx, pool)
	for i := 0; i < queues; i++ {
		q := fmt.Sprintf("wide_%d", i)
		if _, err := setup.Exec(ctx, `SELECT awa.configure_queue($1, '{"enqueue_shards": 64}')`, q); err != nil {
			t.Fatal(err)
		}
		for prio := 1; prio <= 4; prio++ {
			if _, err := insertOne(ctx, setup, q, prio); err != nil {
				t.Fatal(err)
			}
		}
		// Producers add shards as they need them: add all 64 of each priority.
		if _, err := setup.Exec(ctx, `SELECT awa._add_lane($1, p::smallint, 64) FROM generate_series(1, 4) p, generate_series(1, 63)`, q); err != nil {
			t.Fatal(err)
		}
	}
	var lanes int
	if err := setup.QueryRow(ctx, `SELECT count(*) FROM awa.queue_claim_heads`).Scan(&lanes); err != nil || lanes != queues*256 {
		t.Fatalf("setup: %d lanes (err %v), want %d", lanes, err, queues*256)
	}
	rotateQueueRing(t, ctx, setup)

	pruner := connect(t, ctx, pool)
	// Warm the pruner session's plans (a maintenance leader's session is
	// long-lived), without moving anything.
	if _, err := pruner.Exec(ctx, `BEGIN; SELECT * FROM awa._carry_ready(0, 1, 1); ROLLBACK`); err != nil {
		t.Fatal(err)
	}
	rtx := holdingTx(t, ctx, pool, `SELECT count(*) FROM awa.ready_entries_0`)

	pruned := pruneInBackground(ctx, pruner, "queue", 30000, 0, 1000)
	waitForPruneRetry(t, ctx, setup, pruner.PgConn().PID())

	released := time.Now()
	if err := rtx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	p := <-pruned
	if p.err != nil || p.o.Outcome != "pruned" || p.o.Detail == nil || !strings.Contains(*p.o.Detail, fmt.Sprintf("moving %d available jobs", 4*queues)) {
		t.Fatalf("prune: %v, %v; want slot 0 pruned after moving %d jobs", p.o, p.err, 4*queues)
	}
	took := p.at.Sub(released)
	t.Logf("the prune returned %v after the reader released the slot (prune: %v)", took, p.o)
	if took > bound {
		t.Fatalf("the prune returned %v after the reader released the slot (its locks held for the carry and truncate); want under %v for %d carried jobs",
			took, bound, 4*queues)
	}
	got, err := claim(ctx, connect(t, ctx, pool), "wide_0", 1, nil)
	if err != nil || len(got) != 1 {
		t.Fatalf("claim: %v, %v; want the carried job of wide_0", got, err)
	}
}
