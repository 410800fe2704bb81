package sqlrace

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Lock-order tests: who may wait for whom (docs/storage.md, "Locks").

// TestClaimersVisitingLanesInOppositeOrderDoNotDeadlock: two claimer
// transactions each claim twice (a SQL worker that claims, then claims more
// before it commits). A claim visits a priority's shard lanes in a rotation
// that starts at a random shard; the sessions' random seeds are chosen so that
// claimer 1 starts at shard 0 then shard 1, and claimer 2 at shard 1 then
// shard 0. Each first claim holds the head of its start lane; each second
// claim then meets the lane the other holds. A claim that waited for that
// head would close a cycle (40P01 after deadlock_timeout); a claim skips it
// and takes its next job from its own lane instead. Both second claims return
// one job at once, every job is claimed once, in lane order.
func TestClaimersVisitingLanesInOppositeOrderDoNotDeadlock(t *testing.T) {
	ctx, pool := newDB(t, 30*time.Second)
	configureShards(t, ctx, pool, "q", 2)
	lanes := fillTwoShards(t, ctx, pool, "q", 2)

	c1, c2 := connect(t, ctx, pool), connect(t, ctx, pool)
	seedRotation(t, ctx, c1, 0, 1)
	seedRotation(t, ctx, c2, 1, 0)
	tx1 := mustBegin(t, ctx, c1)
	tx2 := mustBegin(t, ctx, c2)
	first1, err := claim(ctx, tx1, "q", 1, nil)
	if err != nil {
		t.Fatalf("claimer 1, first claim: %v", err)
	}
	first2, err := claim(ctx, tx2, "q", 1, nil)
	if err != nil {
		t.Fatalf("claimer 2, first claim: %v", err)
	}
	if len(first1) != 1 || first1[0].ID != lanes[0][0] || len(first2) != 1 || first2[0].ID != lanes[1][0] {
		t.Fatalf("first claims returned %s and %s; want job %d (head of shard 0) and job %d (head of shard 1): the seeds no longer pick the start shards",
			describeClaims(first1), describeClaims(first2), lanes[0][0], lanes[1][0])
	}

	// Both second claims run at once; each meets the head the other holds.
	// A bound well under deadlock_timeout (1 s): a claim must not wait.
	type res struct {
		got     []claimed
		err     error
		elapsed time.Duration
	}
	second := func(tx pgx.Tx, out chan<- res) {
		start := time.Now()
		got, err := claim(ctx, tx, "q", 1, nil)
		out <- res{got, err, time.Since(start)}
	}
	r1, r2 := make(chan res, 1), make(chan res, 1)
	go second(tx1, r1)
	go second(tx2, r2)
	s1, s2 := <-r1, <-r2
	if s1.err != nil || s2.err != nil {
		t.Fatalf("second claims: claimer 1 %s, claimer 2 %s; want both to return a job (a claim never waits for a lane head)",
			describeErr(s1.err), describeErr(s2.err))
	}
	if len(s1.got) != 1 || s1.got[0].ID != lanes[0][1] || len(s2.got) != 1 || s2.got[0].ID != lanes[1][1] {
		t.Fatalf("second claims returned %s and %s; want job %d (next in shard 0, which claimer 1 holds) and job %d (next in shard 1)",
			describeClaims(s1.got), describeClaims(s2.got), lanes[0][1], lanes[1][1])
	}
	for i, s := range []res{s1, s2} {
		if s.elapsed > 500*time.Millisecond {
			t.Fatalf("claimer %d's second claim took %v: it waited for a lane head", i+1, s.elapsed)
		}
	}
	if err := tx1.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	if err := tx2.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	if c := queueCounts(t, ctx, pool, "q"); c.Available != 0 || c.Running != 4 {
		t.Fatalf("queue_counts: %+v; want 0 available, 4 running", c)
	}
}

// fillTwoShards commits perShard jobs of priority 2 into each of the two shard
// lanes of queue (enqueue_shards 2) and returns their ids by shard, in lane
// order. Two producer transactions are open at once, so the second takes the
// shard the first holds not.
func fillTwoShards(t *testing.T, ctx context.Context, pool *pgxpool.Pool, queue string, perShard int) [2][]int64 {
	t.Helper()
	var out [2][]int64
	// The queue's first insert creates its lanes and holds the creation lock
	// until it commits: create them first with a job that is run at once.
	if _, err := insertOne(ctx, pool, queue, 2); err != nil {
		t.Fatal(err)
	}
	if got, err := claim(ctx, pool, queue, 1, nil); err != nil || len(got) != 1 {
		t.Fatalf("claim of the lane-creating job: %v, %v", got, err)
	} else if _, err := complete(ctx, pool, got); err != nil {
		t.Fatal(err)
	}
	p1, p2 := connect(t, ctx, pool), connect(t, ctx, pool)
	tx1 := mustBegin(t, ctx, p1)
	tx2 := mustBegin(t, ctx, p2)
	ids1 := mustInsertBatch(t, ctx, tx1, queue, 2, perShard)
	ids2 := mustInsertBatch(t, ctx, tx2, queue, 2, perShard)
	if err := tx1.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	if err := tx2.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	for _, ids := range [][]int64{ids1, ids2} {
		s := laneOf(t, ctx, pool, ids[0]).shard
		if out[s] != nil {
			t.Fatalf("both producers landed in shard %d", s)
		}
		out[s] = ids
	}
	return out
}

// seedRotation seeds the session's random() so that its next two claims of a
// two-shard priority start at shard first, then at shard then: the claim
// starts at floor(random() * 2) and calls random() once per call.
func seedRotation(t *testing.T, ctx context.Context, conn *pgx.Conn, first, then int) {
	t.Helper()
	for i := -100; i <= 100; i++ {
		seed := float64(i) / 100
		var r1, r2 float64
		if _, err := conn.Exec(ctx, `SELECT setseed($1)`, seed); err != nil {
			t.Fatal(err)
		}
		if err := conn.QueryRow(ctx, `SELECT random(), random()`).Scan(&r1, &r2); err != nil {
			t.Fatal(err)
		}
		if int(r1*2) == first && int(r2*2) == then {
			if _, err := conn.Exec(ctx, `SELECT setseed($1)`, seed); err != nil {
				t.Fatal(err)
			}
			return
		}
	}
	t.Fatalf("no seed starts the rotation at shard %d then %d", first, then)
}

// holdHead opens a transaction on its own connection that holds the claim
// lock of lane (lane_claim, lane_id), as a claim (or awa.cancel_job) in
// progress does. The lock goes when the returned transaction ends.
func holdHead(t *testing.T, ctx context.Context, pool *pgxpool.Pool, lane int32) pgx.Tx {
	t.Helper()
	return holdingTx(t, ctx, pool, `SELECT pg_advisory_xact_lock(awa._lock_key('lane_claim'), $1)`, lane)
}

// holdingTx opens a transaction on its own connection and runs stmt in it, so
// it holds what stmt locks until the test ends it (or the test ends).
func holdingTx(t *testing.T, ctx context.Context, pool *pgxpool.Pool, stmt string, args ...any) pgx.Tx {
	t.Helper()
	tx, err := connect(t, ctx, pool).Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = tx.Rollback(context.Background()) })
	if _, err := tx.Exec(ctx, stmt, args...); err != nil {
		t.Fatal(err)
	}
	return tx
}

// timedClaim claims on its own connection and fails the test when the claim
// takes longer than 500 ms (it waited for a lock: a claim must not).
func timedClaim(t *testing.T, ctx context.Context, pool *pgxpool.Pool, queue string, max int) []claimed {
	t.Helper()
	conn := connect(t, ctx, pool)
	cctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	start := time.Now()
	got, err := claim(cctx, conn, queue, max, nil)
	if err != nil {
		t.Fatalf("claim_ready_runtime(%q, %d): %v", queue, max, err)
	}
	if d := time.Since(start); d > 500*time.Millisecond {
		t.Fatalf("claim_ready_runtime(%q, %d) took %v: it waited for a lock", queue, max, d)
	}
	return got
}

func queuePending(t *testing.T, ctx context.Context, pool *pgxpool.Pool, queue string) bool {
	t.Helper()
	var p bool
	if err := pool.QueryRow(ctx, `SELECT pending FROM awa.queue_pending($1)`, queue).Scan(&p); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestClaimSkipsAHeldLaneAndQueuePendingStaysTrue: while another transaction
// holds the head of one shard lane, a claim returns the other lane's jobs at
// once; the held lane's jobs stay above its committed cursor, so
// awa.queue_pending stays true (a Go worker claims again soon instead of
// sleeping). Once the head is free, the next claim returns them in lane order.
func TestClaimSkipsAHeldLaneAndQueuePendingStaysTrue(t *testing.T) {
	ctx, pool := newDB(t, 30*time.Second)
	configureShards(t, ctx, pool, "q", 2)
	lanes := fillTwoShards(t, ctx, pool, "q", 2)
	held := holdHead(t, ctx, pool, laneOf(t, ctx, pool, lanes[0][0]).id)

	got := timedClaim(t, ctx, pool, "q", 10)
	if len(got) != 2 || got[0].ID != lanes[1][0] || got[1].ID != lanes[1][1] {
		t.Fatalf("claim with shard 0's head held returned %s; want shard 1's jobs %v", describeClaims(got), lanes[1])
	}
	if !queuePending(t, ctx, pool, "q") {
		t.Fatal("queue_pending is false while shard 0 still holds 2 unclaimed jobs")
	}
	if err := held.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	got = timedClaim(t, ctx, pool, "q", 10)
	if len(got) != 2 || got[0].ID != lanes[0][0] || got[1].ID != lanes[0][1] {
		t.Fatalf("claim after the head was released returned %s; want shard 0's jobs %v in order", describeClaims(got), lanes[0])
	}
	if queuePending(t, ctx, pool, "q") {
		t.Fatal("queue_pending is true with every job claimed")
	}
}

// TestClaimDoesNotWaitToAdvanceAnEmptyLane: a lane whose tip is ahead of its
// cursor but holds no job (a rolled-back insert) is skipped by the next claim,
// which writes nothing for it. When another transaction holds that lane's
// claim lock, the claim must not wait for it either.
func TestClaimDoesNotWaitToAdvanceAnEmptyLane(t *testing.T) {
	ctx, pool := newDB(t, 30*time.Second)
	configureShards(t, ctx, pool, "gap", 1)
	id, err := insertOne(ctx, pool, "gap", 2)
	if err != nil {
		t.Fatal(err)
	}
	if got := timedClaim(t, ctx, pool, "gap", 1); len(got) != 1 || got[0].ID != id {
		t.Fatalf("claim of the first job: %s", describeClaims(got))
	}
	lane := laneOf(t, ctx, pool, id).id
	tx := mustBegin(t, ctx, pool)
	if _, err := insertOne(ctx, tx, "gap", 2); err != nil {
		t.Fatal(err)
	}
	if err := tx.Rollback(ctx); err != nil {
		t.Fatal(err)
	}

	held := holdHead(t, ctx, pool, lane)
	if got := timedClaim(t, ctx, pool, "gap", 1); len(got) != 0 {
		t.Fatalf("claim of a lane holding only a gap returned %s", describeClaims(got))
	}
	if err := held.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	if got := timedClaim(t, ctx, pool, "gap", 1); len(got) != 0 {
		t.Fatalf("claim of a lane holding only a gap returned %s", describeClaims(got))
	}
	var cursor, first int64
	if err := pool.QueryRow(ctx, `SELECT c.claim_seq, (SELECT lane_seq FROM awa.ready_entries WHERE job_id = $2)
		FROM awa.claim_cursors c WHERE c.lane_id = $1`, lane, id).Scan(&cursor, &first); err != nil {
		t.Fatal(err)
	}
	if cursor != first {
		t.Fatalf("lane cursor is %d after the claims of an empty lane; want %d (the first job's position: nothing written)", cursor, first)
	}
	if queuePending(t, ctx, pool, "gap") {
		t.Fatal("queue_pending is true after the gap was passed")
	}
}
