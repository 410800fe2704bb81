package sqlrace

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// Claim cursors: a claim appends marks (awa.cursor_marks, the cursor ring) and
// serializes on a lane through a try-lock, so claimers skip a lane another one
// holds and never wait; cursor-ring prune raises a lane's floor before it
// truncates the slot holding its newest mark.

// TestClaimersOfOneLaneSkipEachOtherAndNeverShareAJob: while one claimer
// holds a lane (its claim transaction is open), a second claim of that queue
// returns at once with nothing, under a lock_timeout that would fail it if it
// waited. Then 4 claimers drain 3,000 jobs of that single lane, each holding
// its claim open for 0-30 ms before completing, all with lock_timeout 100 ms:
// no claim ever waits (no 55P03), every job is claimed exactly once (run_lease
// 1), and the queue ends with everything completed.
func TestClaimersOfOneLaneSkipEachOtherAndNeverShareAJob(t *testing.T) {
	const (
		queue    = "q"
		total    = 3000
		claimers = 4
		perClaim = 10
	)
	ctx, pool := newDB(t, 90*time.Second)
	configureShards(t, ctx, pool, queue, 1)
	prod := connect(t, ctx, pool)
	inserted := map[int64]bool{}
	for len(inserted) < total {
		ids, err := insertBatch(ctx, prod, queue, 2, 500)
		if err != nil {
			t.Fatalf("insert_jobs: %v", err)
		}
		for _, id := range ids {
			inserted[id] = true
		}
	}
	open := func() *pgx.Conn {
		c := connect(t, ctx, pool)
		if _, err := c.Exec(ctx, "SET lock_timeout = '100ms'"); err != nil {
			t.Fatal(err)
		}
		return c
	}

	// One claimer holds the lane; another claim skips it, at once.
	holder, other := open(), open()
	tx := mustBegin(t, ctx, holder)
	held, err := claim(ctx, tx, queue, perClaim, nil)
	if err != nil || len(held) != perClaim {
		t.Fatalf("holder's claim: %d jobs, %v; want %d", len(held), err, perClaim)
	}
	start := time.Now()
	skipped, err := claim(ctx, other, queue, perClaim, nil)
	if err != nil {
		t.Fatalf("claim while another claimer holds the lane: %v (it must skip the lane, not wait)", err)
	}
	if len(skipped) != 0 || time.Since(start) > time.Second {
		t.Fatalf("claim while another claimer holds the lane returned %d jobs after %v; want none, at once",
			len(skipped), time.Since(start))
	}
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	next, err := claim(ctx, other, queue, perClaim, nil)
	if err != nil || len(next) != perClaim {
		t.Fatalf("claim after the holder committed: %d jobs, %v; want %d", len(next), err, perClaim)
	}
	claims := map[int64][]claimed{}
	for _, c := range append(held, next...) {
		claims[c.ID] = append(claims[c.ID], c)
	}
	for _, cs := range [][]claimed{held, next} {
		if res, err := complete(ctx, holder, cs); err != nil || len(res) != len(cs) {
			t.Fatalf("complete_jobs: %v, %v", res, err)
		}
	}

	// Many claimers on the one lane, each holding its claim open a little.
	runCtx, cancel, fail := withErrOnce(ctx)
	defer cancel()
	var (
		mu      sync.Mutex
		skips   int
		applied int
	)
	var wg sync.WaitGroup
	for w := 0; w < claimers; w++ {
		conn := open()
		rng := rand.New(rand.NewPCG(uint64(w), uint64(time.Now().UnixNano())))
		wg.Add(1)
		go func() {
			defer wg.Done()
			for runCtx.Err() == nil {
				tx, err := conn.Begin(runCtx)
				if err != nil {
					fail.set("claimer %d: begin: %v", w, err)
					return
				}
				got, err := claim(runCtx, tx, queue, perClaim, nil)
				if err != nil {
					var pgErr *pgconn.PgError
					if errors.As(err, &pgErr) && pgErr.Code == "55P03" {
						fail.set("claimer %d waited for a lock: %v", w, err)
					} else {
						fail.set("claimer %d: claim_ready_runtime: %v", w, err)
					}
					return
				}
				time.Sleep(time.Duration(rng.IntN(30)) * time.Millisecond)
				var res []finalized
				if len(got) > 0 {
					res, err = complete(runCtx, tx, got)
				}
				if err == nil {
					err = tx.Commit(runCtx)
				}
				if err != nil {
					fail.set("claimer %d: complete_jobs: %v", w, err)
					return
				}
				mu.Lock()
				for _, c := range got {
					claims[c.ID] = append(claims[c.ID], c)
				}
				for _, r := range res {
					if r.Outcome == "applied" {
						applied++
					}
				}
				if len(got) == 0 {
					skips++
				}
				done := len(claims) == total
				mu.Unlock()
				if done {
					return
				}
				if len(got) == 0 {
					time.Sleep(time.Millisecond)
				}
			}
		}()
	}
	wg.Wait()
	if err := fail.get(); err != nil {
		t.Fatal(err)
	}
	for id, cs := range claims {
		if !inserted[id] {
			t.Errorf("claimed job %d was never inserted", id)
		}
		if len(cs) != 1 || cs[0].RunLease != 1 {
			t.Errorf("job %d claimed %d times (%v), want once with run_lease 1", id, len(cs), cs)
		}
	}
	if len(claims) != total || applied != total-2*perClaim {
		t.Fatalf("%d jobs claimed and %d completions applied by the claimers, want %d and %d",
			len(claims), applied, total, total-2*perClaim)
	}
	if qc := queueCounts(t, ctx, prod, queue); qc != (queueCount{Completed: total}) {
		t.Fatalf("awa.queue_counts = %+v, want only completed = %d", qc, total)
	}
	t.Logf("%d claims came back empty while another claimer held the lane", skips)
}

// TestClaimBlockedBehindCursorPruneSeesTheRaisedFloor: a lane's only marks
// are in cursor slot 0; cursor-ring prune truncates slot 0 in a transaction
// that stays open, having raised the lane's floor. A claimer that reads the lane then
// blocks behind prune's exclusive lock on the marks, and when prune commits it
// reads the raised floor (it took its snapshot after the lock): it claims the
// one job above the floor, once, marks the lane at that job's position, and
// nothing at or below the floor is available, pending or claimable again.
func TestClaimBlockedBehindCursorPruneSeesTheRaisedFloor(t *testing.T) {
	const queue = "q"
	ctx, pool := newDB(t, 60*time.Second)
	configureShards(t, ctx, pool, queue, 1)
	conn := connect(t, ctx, pool)

	first := mustInsertBatch(t, ctx, conn, queue, 2, 5)
	got, err := claim(ctx, conn, queue, 5, nil)
	if err != nil || len(got) != 5 {
		t.Fatalf("claim of the first 5: %v, %v", got, err)
	}
	if res, err := complete(ctx, conn, got); err != nil || len(res) != 5 {
		t.Fatalf("complete_jobs: %v, %v", res, err)
	}
	var fifth int64
	if err := conn.QueryRow(ctx, `SELECT max(lane_seq) FROM awa.ready_entries WHERE queue = $1`, queue).Scan(&fifth); err != nil {
		t.Fatal(err)
	}
	if o, err := ringOp(ctx, conn, "rotate", "cursor"); err != nil || o.Outcome != "rotated" {
		t.Fatalf("rotate_ring(cursor): %v, %v", o, err)
	}
	above, err := insertOne(ctx, conn, queue, 2)
	if err != nil {
		t.Fatal(err)
	}
	var abovePos int64
	if err := conn.QueryRow(ctx, `SELECT lane_seq FROM awa.ready_entries WHERE job_id = $1`, above).Scan(&abovePos); err != nil {
		t.Fatal(err)
	}
	var markSlot int32
	var lane int32
	if err := conn.QueryRow(ctx, `SELECT m.cursor_slot, m.lane_id FROM awa.cursor_marks m
		JOIN awa.queue_lanes l USING (lane_id) WHERE l.queue = $1`, queue).Scan(&markSlot, &lane); err != nil {
		t.Fatalf("the lane's only mark: %v", err)
	}

	pruner := connect(t, ctx, pool)
	ptx := mustBegin(t, ctx, pruner)
	var o ringOutcome
	if err := ptx.QueryRow(ctx, `SELECT o.outcome, o.slot FROM awa.prune_ring('cursor') AS o`).Scan(&o.Outcome, &o.Slot); err != nil {
		t.Fatal(err)
	}
	if o.Outcome != "pruned" || o.Slot == nil || *o.Slot != markSlot {
		t.Fatalf("prune_ring(cursor) = %s slot %v, want pruned slot %d (the slot of the lane's only mark)", o.Outcome, o.Slot, markSlot)
	}

	claimer := connect(t, ctx, pool)
	pid := backendPID(t, ctx, claimer)
	done := inBackground(func() ([]claimed, error) { return claim(ctx, claimer, queue, 10, nil) })
	waitForLockWait(t, ctx, pool, pid)
	if err := ptx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	r := <-done
	if r.err != nil {
		t.Fatalf("claim blocked behind prune: %v", r.err)
	}
	if len(r.v) != 1 || r.v[0].ID != above || r.v[0].RunLease != 1 {
		t.Fatalf("claim blocked behind prune returned %v, want only job %d (the one above the floor), run_lease 1", r.v, above)
	}
	var floor, cursor int64
	var marks []int64
	if err := conn.QueryRow(ctx, `SELECT c.floor_seq, c.claim_seq,
		       ARRAY(SELECT m.claim_seq FROM awa.cursor_marks m WHERE m.lane_id = c.lane_id ORDER BY 1)
		FROM awa.claim_cursors c WHERE c.lane_id = $1`, lane).Scan(&floor, &cursor, &marks); err != nil {
		t.Fatal(err)
	}
	if floor != fifth || cursor != abovePos || len(marks) != 1 || marks[0] != abovePos {
		t.Fatalf("lane %d: floor %d, cursor %d, marks %v; want floor %d (the fifth job's position, raised by prune), cursor %d, one mark there",
			lane, floor, cursor, marks, fifth, abovePos)
	}
	if again, err := claim(ctx, claimer, queue, 10, nil); err != nil || len(again) != 0 {
		t.Fatalf("claim after that: %v, %v; want nothing", again, err)
	}
	if qc := queueCounts(t, ctx, conn, queue); qc.Available != 0 || qc.Running != 1 {
		t.Fatalf("awa.queue_counts = %+v, want 0 available and 1 running", qc)
	}
	var pending bool
	if err := conn.QueryRow(ctx, `SELECT pending FROM awa.queue_pending($1)`, queue).Scan(&pending); err != nil || pending {
		t.Fatalf("awa.queue_pending = %v, %v; want false", pending, err)
	}
	t.Logf("first jobs %v (pruned with slot %d), job above the floor %d", first, markSlot, above)
}

// TestPinnedSnapshotDoesNotBloatClaimCursors: an idle session holds a
// REPEATABLE READ snapshot (taken by reading an unrelated table) while 4,000
// jobs are inserted (batches of 20) and claimed and completed by two SQL
// claimers in batches of 5, with the queue and claim rings rotated and pruned
// every 200 ms, and the cursor ring pruned and rotated. No row version written meanwhile can be removed, so every
// UPDATE or DELETE leaves a dead tuple. Claims append (marks) instead of
// updating a cursor row, so the dead tuples of schema awa come only from
// maintenance: ring-ledger trims (a ring trims once per 2 wraps) and floor
// raises (at most one per lane whose newest mark a prune truncates, here
// the 4 lanes the jobs use per prune of the cursor ring). Bound: 4 x
// (cursor-ring prunes) + rotations + 50. The old cursor row took one UPDATE per claim call
// per lane, at least 800 dead tuples for this run.
func TestPinnedSnapshotDoesNotBloatClaimCursors(t *testing.T) {
	const (
		queue    = "q"
		total    = 4000
		batch    = 20
		perClaim = 5
	)
	ctx, pool := newDB(t, 120*time.Second)
	setup := connect(t, ctx, pool)
	if _, err := setup.Exec(ctx, `CREATE TABLE app_orders (id int PRIMARY KEY); INSERT INTO app_orders VALUES (1)`); err != nil {
		t.Fatal(err)
	}
	// Lanes exist before the snapshot is taken.
	if _, err := insertOne(ctx, setup, queue, 2); err != nil {
		t.Fatal(err)
	}
	if got, err := claim(ctx, setup, queue, 1, nil); err != nil || len(got) != 1 {
		t.Fatalf("warm-up claim: %v, %v", got, err)
	} else if _, err := complete(ctx, setup, got); err != nil {
		t.Fatal(err)
	}

	pinned := connect(t, ctx, pool)
	ptx, err := pinned.BeginTx(ctx, pgx.TxOptions{IsoLevel: pgx.RepeatableRead})
	if err != nil {
		t.Fatal(err)
	}
	var n int
	if err := ptx.QueryRow(ctx, `SELECT count(*) FROM app_orders`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	defer ptx.Rollback(context.Background())

	work := []*pgx.Conn{connect(t, ctx, pool), connect(t, ctx, pool), connect(t, ctx, pool), connect(t, ctx, pool)}
	prod, maint, claimConns := work[0], work[1], work[2:]
	runCtx, cancel, fail := withErrOnce(ctx)
	defer cancel()
	var (
		mu        sync.Mutex
		completed int
		calls     int
	)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { // producer: 4,000 jobs over about 4 s, in four priorities
		defer wg.Done()
		for i := 0; i < total/batch && runCtx.Err() == nil; i++ {
			if _, err := insertBatch(runCtx, prod, queue, 1+i%4, batch); err != nil {
				fail.set("insert_jobs: %v", err)
				return
			}
			time.Sleep(5 * time.Millisecond)
		}
	}()
	for c, conn := range claimConns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for runCtx.Err() == nil {
				got, err := claim(runCtx, conn, queue, perClaim, nil)
				if err != nil {
					fail.set("claimer %d: %v", c, err)
					return
				}
				if len(got) > 0 {
					if _, err := complete(runCtx, conn, got); err != nil {
						fail.set("claimer %d: complete_jobs: %v", c, err)
						return
					}
				}
				mu.Lock()
				completed += len(got)
				calls++
				all := completed == total
				mu.Unlock()
				if all {
					return
				}
				if len(got) == 0 {
					time.Sleep(2 * time.Millisecond)
				}
			}
		}()
	}
	outcomes := map[string]int{}
	stopMaint := make(chan struct{})
	maintDone := make(chan struct{})
	go func() {
		defer close(maintDone)
		tick := time.NewTicker(200 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-stopMaint:
				return
			case <-tick.C:
			}
			for _, step := range [][2]string{{"queue", "rotate"}, {"queue", "prune"}, {"claim", "rotate"},
				{"claim", "prune"}, {"cursor", "prune"}, {"cursor", "rotate"}} {
				{
					ring, action := step[0], step[1]
					o, err := ringOp(runCtx, maint, action, ring)
					if err != nil {
						fail.set("%s_ring(%s): %v", action, ring, err)
						return
					}
					outcomes[ring+" "+action+" "+o.Outcome]++
				}
			}
		}
	}()
	wg.Wait()
	close(stopMaint)
	<-maintDone
	if err := fail.get(); err != nil {
		t.Fatal(err)
	}
	if completed != total {
		t.Fatalf("completed %d jobs, want %d", completed, total)
	}

	// Flush the work backends' statistics, then read the dead tuples while
	// the snapshot is still held.
	for _, c := range work {
		if _, err := c.Exec(ctx, "SELECT pg_stat_force_next_flush()"); err != nil {
			t.Fatal(err)
		}
		if err := c.Close(ctx); err != nil {
			t.Fatal(err)
		}
	}
	// Read until two reads 300 ms apart agree (the closed backends' statistics
	// have arrived).
	check := connect(t, ctx, pool)
	var dead, claimHeadsDead, readyDead int64
	var worst string
	prev := ""
	for deadline := time.Now().Add(10 * time.Second); ; {
		if _, err := check.Exec(ctx, "SELECT pg_stat_clear_snapshot()"); err != nil {
			t.Fatal(err)
		}
		var writes int64
		// Ready rows are written only by producers and by queue prune's
		// carry, which a prune ending skipped_live rolls back: its copies
		// are aborted inserts, dead tuples no claim made. They are counted
		// apart (and must be none when no queue prune was skipped).
		if err := check.QueryRow(ctx, `
			SELECT coalesce(sum(n_dead_tup) FILTER (WHERE relname NOT LIKE 'ready\_entries\_%'), 0)::int8,
			       coalesce(sum(n_dead_tup) FILTER (WHERE relname = 'queue_claim_heads'), 0)::int8,
			       coalesce(sum(n_dead_tup) FILTER (WHERE relname LIKE 'ready\_entries\_%'), 0)::int8,
			       coalesce((SELECT relname || ' ' || n_dead_tup FROM pg_stat_user_tables
			                 WHERE schemaname = 'awa' ORDER BY n_dead_tup DESC LIMIT 1), ''),
			       coalesce(sum(n_tup_ins + n_tup_upd + n_tup_del), 0)::int8
			FROM pg_stat_user_tables WHERE schemaname = 'awa'`).Scan(&dead, &claimHeadsDead, &readyDead, &worst, &writes); err != nil {
			t.Fatal(err)
		}
		cur := fmt.Sprint(dead, writes)
		if cur == prev || time.Now().After(deadline) {
			break
		}
		prev = cur
		time.Sleep(300 * time.Millisecond)
	}
	prunes := outcomes["cursor prune pruned"]
	rotations := outcomes["queue rotate rotated"] + outcomes["claim rotate rotated"] + outcomes["cursor rotate rotated"]
	bound := int64(4*prunes + rotations + 50)
	t.Logf("%d claim calls; maintenance outcomes %v; dead tuples in schema awa: %d (queue_claim_heads %d), and %d in ready rows (most of all: %s); bound %d",
		calls, outcomes, dead, claimHeadsDead, readyDead, worst, bound)
	if readyDead > 0 && outcomes["queue prune skipped_live"] == 0 {
		t.Errorf("%d dead ready rows with no queue prune skipped: only a rolled-back carry may leave them", readyDead)
	}
	if dead > bound {
		t.Fatalf("%d dead tuples in schema awa while a snapshot was held (most: %s), want at most %d", dead, worst, bound)
	}
	if err := ptx.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
}
