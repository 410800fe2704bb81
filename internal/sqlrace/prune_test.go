package sqlrace

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// TestPruneRacingClaimsNeverRemovesALiveJob: two producers (about one
// transaction in six rolled back, some held open for 20-60 ms so that other
// producers wait on the lane lock across a rotation) and three claimers run while a maintenance
// connection loops rotate_ring/prune_ring over the queue and claim rings as
// fast as it can, each call its own autocommit statement. Claimers sometimes
// hold a claimed batch open (claimed, not finalized) for up to ~120 ms, and
// complete a batch in one or two calls (in either order). Asserts: every
// committed job is claimed once and completed (applied) exactly once, the
// jobs of an unworked queue are carried and still claimable once, no
// completion is stale, no rolled-back job is ever claimed, prune really
// truncated slots of both rings under load (and carried available jobs out
// of sealed queue slots while claimers raced), and at the end awa.queue_counts
// shows 0 available and 0 running.
func TestPruneRacingClaimsNeverRemovesALiveJob(t *testing.T) {
	const (
		queue     = "q"
		producers = 2
		txPerProd = 150
		claimers  = 3
		perClaim  = 20
	)
	ctx, pool := newDB(t, 90*time.Second)
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)

	// A few jobs of a queue nobody works sit in the ring from the start: the
	// slot they are in never empties by itself, so prune must carry them (and
	// whatever of queue q is still available there) while the claimers race.
	setup := connect(t, ctx, pool)
	idle := mustInsertBatch(t, ctx, setup, "idle", 2, 5)

	runCtx, cancel, fail := withErrOnce(ctx)
	defer cancel()

	var (
		mu         sync.Mutex
		committed  = map[int64]bool{}
		rolledBack = map[int64]bool{}
		claims     = map[int64][]claimed{}
		applied    = map[int64]int{}
		stale      []finalized
	)
	var producing, claiming atomic.Int32
	producing.Store(producers)
	claiming.Store(claimers)
	var wg sync.WaitGroup

	for p := 0; p < producers; p++ {
		conn := connect(t, ctx, pool)
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer producing.Add(-1)
			rng := rand.New(rand.NewPCG(seed, uint64(p)))
			for n := 0; n < txPerProd && runCtx.Err() == nil; n++ {
				tx, err := conn.Begin(runCtx)
				if err != nil {
					fail.set("producer %d: begin: %v", p, err)
					return
				}
				ids, err := insertBatch(runCtx, tx, queue, 1+rng.IntN(2), 5+rng.IntN(26))
				if err != nil {
					fail.set("producer %d: insert_jobs: %v", p, err)
					return
				}
				hold := time.Duration(rng.IntN(2000)) * time.Microsecond
				if rng.IntN(15) == 0 { // hold the lane locks across rotations
					hold = time.Duration(20+rng.IntN(40)) * time.Millisecond
				}
				time.Sleep(hold)
				rollback := rng.IntN(6) == 0
				if rollback {
					err = tx.Rollback(runCtx)
				} else {
					err = tx.Commit(runCtx)
				}
				if err != nil {
					fail.set("producer %d: end transaction: %v", p, err)
					return
				}
				mu.Lock()
				for _, id := range ids {
					if rollback {
						rolledBack[id] = true
					} else {
						committed[id] = true
					}
				}
				mu.Unlock()
			}
		}()
	}

	for c := 0; c < claimers; c++ {
		conn := connect(t, ctx, pool)
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer claiming.Add(-1)
			rng := rand.New(rand.NewPCG(seed, 100+uint64(c)))
			for runCtx.Err() == nil {
				done := producing.Load() == 0
				got, err := claim(runCtx, conn, queue, perClaim, nil)
				if err != nil {
					fail.set("claimer %d: claim_ready_runtime: %v", c, err)
					return
				}
				if len(got) == 0 {
					if done {
						if d, err := drained(runCtx, conn, queue); err != nil || d {
							if err != nil {
								fail.set("claimer %d: queue_pending: %v", c, err)
							}
							return
						}
					}
					time.Sleep(time.Millisecond)
					continue
				}
				mu.Lock()
				for _, g := range got {
					claims[g.ID] = append(claims[g.ID], g)
				}
				mu.Unlock()
				if rng.IntN(5) == 0 { // held open across maintenance ticks
					time.Sleep(time.Duration(30+rng.IntN(90)) * time.Millisecond)
				}
				parts := [][]claimed{got}
				if len(got) > 1 && rng.IntN(2) == 0 {
					k := 1 + rng.IntN(len(got)-1)
					parts = [][]claimed{got[k:], got[:k]} // later receipts first
				}
				for _, part := range parts {
					res, err := complete(runCtx, conn, part)
					if err != nil {
						fail.set("claimer %d: complete_jobs: %v", c, err)
						return
					}
					mu.Lock()
					for _, r := range res {
						if r.Outcome == "applied" {
							applied[r.JobID]++
						} else {
							stale = append(stale, r)
						}
					}
					mu.Unlock()
				}
			}
		}()
	}

	outcomes := map[string]int{}
	pruned := map[string]map[int32]int{"queue": {}, "claim": {}, "cursor": {}}
	carries := 0
	maint := connect(t, ctx, pool)
	wg.Add(1)
	go func() {
		defer wg.Done()
		for runCtx.Err() == nil && claiming.Load() > 0 {
			for _, step := range [][2]string{{"rotate", "queue"}, {"prune", "queue"}, {"rotate", "claim"}, {"prune", "claim"},
				{"prune", "cursor"}, {"rotate", "cursor"}} {
				o, err := ringOp(runCtx, maint, step[0], step[1])
				if err != nil {
					fail.set("maintenance: %s_ring(%s): %v", step[0], step[1], err)
					return
				}
				outcomes[o.Ring+" "+o.Action+" "+o.Outcome]++
				if o.Outcome == "pruned" {
					pruned[o.Ring][*o.Slot]++
				}
				if o.Detail != nil && strings.Contains(*o.Detail, "after moving") {
					carries++ // the slot still held available jobs: prune carried them forward
				}
			}
		}
	}()
	wg.Wait()
	if err := fail.get(); err != nil {
		t.Fatal(err)
	}
	t.Logf("maintenance outcomes: %v", outcomes)
	t.Logf("pruned slots: %v", pruned)
	t.Logf("prunes that carried available jobs forward first: %d", carries)

	// Anything left? (Nothing should be: the claimers stopped on an empty claim
	// after the producers were done.)
	drain := connect(t, ctx, pool)
	if left, err := claim(ctx, drain, queue, 1000, nil); err != nil || len(left) != 0 {
		t.Errorf("after the run a claim returned %d jobs (err %v), want 0", len(left), err)
	}

	if len(stale) > 0 {
		t.Errorf("%d completions were stale (nothing rescues or cancels in this test): %s", len(stale), firstN(stale, 10))
	}
	for _, id := range sortedKeys(rolledBack) {
		if len(claims[id]) > 0 {
			t.Errorf("rolled-back job %d was claimed: %v", id, claims[id])
		}
	}
	lost := 0
	for _, id := range sortedKeys(committed) {
		switch {
		case len(claims[id]) == 0:
			lost++
			if lost <= 20 {
				t.Errorf("committed job %d was never claimed", id)
			}
		case len(claims[id]) > 1:
			t.Errorf("job %d claimed %d times: %v", id, len(claims[id]), claims[id])
		}
		if applied[id] != 1 && len(claims[id]) > 0 {
			t.Errorf("job %d completed (applied) %d times, want exactly 1", id, applied[id])
		}
	}
	if lost > 0 {
		t.Errorf("%d of %d committed jobs were never claimed", lost, len(committed))
	}
	t.Logf("%d jobs committed, %d rolled back, %d completed", len(committed), len(rolledBack), len(applied))
	if len(rolledBack) == 0 {
		t.Errorf("no producer transaction rolled back: the test did not exercise rollbacks")
	}

	if carries == 0 {
		t.Errorf("no prune carried available jobs forward: the race of carry with claims did not happen")
	}
	if got, err := claim(ctx, drain, "idle", 100, nil); err != nil || len(got) != len(idle) {
		t.Errorf("the unworked queue's jobs after the run: %s, %v; want its %d jobs, each once", describeClaims(got), err, len(idle))
	} else {
		for i, g := range got {
			if g.ID != idle[i] {
				t.Errorf("the unworked queue's job %d came back as %d (lane order %v)", idle[i], g.ID, idle)
			}
		}
	}
	const minPruned = 3
	for _, ring := range []string{"queue", "claim", "cursor"} {
		if n := outcomes[ring+" prune pruned"]; n < minPruned {
			t.Errorf("%s ring: prune reported 'pruned' %d times, want at least %d (the race did not happen)", ring, n, minPruned)
		}
	}

	qc := queueCounts(t, ctx, pool, queue)
	if qc.Available != 0 || qc.Running != 0 || qc.Scheduled != 0 || qc.Retryable != 0 || qc.Failed != 0 || qc.Cancelled != 0 {
		t.Errorf("awa.queue_counts(%q) = %+v, want 0 available and 0 running (and nothing scheduled, retryable, failed or cancelled)", queue, qc)
	}
	st := jobStates(t, ctx, pool, queue)
	for s, n := range st {
		if s != "completed" {
			t.Errorf("awa.jobs shows %d %s jobs in %q, want only completed ones", n, s, queue)
		}
	}
}

// TestPruneNeverTruncatesAnOpenClaim: one job is claimed and left open while
// other jobs flow and both rings are rotated and pruned many times. A prune of
// the ready slot or the claim slot holding that attempt must either skip it
// (skipped_live) or, when it is the slot the next rotation needs, carry the
// attempt forward first (docs/storage.md, "Long attempts"); the job stays
// running after every tick, is carried in both rings, still completes
// (applied) with the receipt it got at claim time, and then every slot is
// pruned.
func TestPruneNeverTruncatesAnOpenClaim(t *testing.T) {
	const queue = "q"
	ctx, pool := newDB(t, 60*time.Second)
	conn := connect(t, ctx, pool)

	mustInsert := func(n int) {
		t.Helper()
		if _, err := insertBatch(ctx, conn, queue, 2, n); err != nil {
			t.Fatalf("insert_jobs: %v", err)
		}
	}
	mustInsert(1)
	open, err := claim(ctx, conn, queue, 1, nil)
	if err != nil || len(open) != 1 {
		t.Fatalf("claim of the open job: %v, %v", open, err)
	}
	var openReadySlot int32
	if err := conn.QueryRow(ctx, `SELECT ready_slot FROM awa.ready_entries WHERE job_id = $1`, open[0].ID).
		Scan(&openReadySlot); err != nil {
		t.Fatal(err)
	}
	t.Logf("open job %d: ready slot %d, claim slot %d", open[0].ID, openReadySlot, open[0].ClaimSlot)

	liveSlot := map[string]int32{"queue": openReadySlot, "claim": open[0].ClaimSlot}
	skippedLive, carried := map[string]int{}, map[string]int{}
	// Where the attempt is now: its batch's claim slot and ready slot.
	locate := func() {
		t.Helper()
		var c, r int32
		if err := conn.QueryRow(ctx, `SELECT claim_slot, ready_slot FROM awa.claim_batches WHERE batch_id = $1`,
			open[0].ReceiptID>>10).Scan(&c, &r); err != nil {
			t.Fatalf("the open attempt's claim batch: %v", err)
		}
		liveSlot["claim"], liveSlot["queue"] = c, r
		var state string
		if err := conn.QueryRow(ctx, `SELECT state::text FROM awa.jobs WHERE id = $1`, open[0].ID).Scan(&state); err != nil || state != "running" {
			t.Fatalf("open job %d is %q in awa.jobs (err %v), want running", open[0].ID, state, err)
		}
	}
	outcomes := map[string]int{}
	tick := func(phase string) {
		t.Helper()
		for _, ring := range []string{"queue", "claim", "cursor"} {
			for _, action := range []string{"rotate", "prune"} {
				o, err := ringOp(ctx, conn, action, ring)
				if err != nil {
					t.Fatalf("%s: %s_ring(%s): %v", phase, action, ring, err)
				}
				outcomes[phase+": "+o.Ring+" "+o.Action+" "+o.Outcome]++
				if action != "prune" || phase != "open" || ring == "cursor" { // marks are never live
					continue
				}
				if o.Slot != nil && *o.Slot == liveSlot[ring] {
					switch {
					case o.Outcome == "skipped_live":
						skippedLive[ring]++
					case o.Outcome == "pruned" && o.Detail != nil && strings.Contains(*o.Detail, "carrying"):
						carried[ring]++
					default:
						t.Fatalf("%s ring: prune of slot %d holding the open attempt of job %d gave %v, want skipped_live or a carry",
							ring, liveSlot[ring], open[0].ID, o)
					}
					locate()
				}
			}
		}
	}

	// Many rotations with traffic, enough to wrap both rings (16 and 8 slots).
	for i := 0; i < 40; i++ {
		mustInsert(3)
		got, err := claim(ctx, conn, queue, 10, nil)
		if err != nil {
			t.Fatal(err)
		}
		res, err := complete(ctx, conn, got)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range res {
			if r.Outcome != "applied" {
				t.Fatalf("completing traffic job: %v", r)
			}
		}
		tick("open")
	}
	// The open attempt's slot waits while it is the newest sealed slot (one
	// tick here: every tick rotates), then its attempt is carried forward at
	// every prune of the slot it lives in, never truncated with it.
	for _, ring := range []string{"queue", "claim"} {
		if skippedLive[ring] < 1 || carried[ring] < 10 {
			t.Errorf("%s ring: over 40 ticks prune skipped the open attempt's slot %d times and carried it %d times; want at least 1 and 10",
				ring, skippedLive[ring], carried[ring])
		}
	}
	var state string
	if err := conn.QueryRow(ctx, `SELECT state::text FROM awa.jobs WHERE id = $1`, open[0].ID).Scan(&state); err != nil {
		t.Fatalf("open job %d is gone from awa.jobs: %v", open[0].ID, err)
	}
	if state != "running" {
		t.Errorf("open job %d is %s after the rotations, want running", open[0].ID, state)
	}

	res, err := complete(ctx, conn, open)
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != 1 || res[0].Outcome != "applied" {
		t.Fatalf("completing the open job after %d rotations gave %v, want applied", 40, res)
	}

	// Now everything is closed: the rings drain completely.
	prunedSlots, _ := drainRings(t, ctx, conn, "after completing everything,")
	for _, ring := range []string{"queue", "claim"} {
		if !prunedSlots[ring][liveSlot[ring]] {
			t.Errorf("%s ring: slot %d was never pruned after the open job completed (pruned %v)", ring, liveSlot[ring], prunedSlots[ring])
		}
	}
	if n := ringRows(t, ctx, conn); n != "" {
		t.Errorf("ring tables still hold rows after draining: %s", n)
	}
	t.Logf("outcomes: %v", outcomes)
}

// ringRows describes the non-empty ring child tables ("" when all are empty).
func ringRows(t *testing.T, ctx context.Context, conn *pgx.Conn) string {
	t.Helper()
	rels := ringChildren(t, ctx, conn)
	var parts []string
	for _, rel := range rels {
		var n int64
		if err := conn.QueryRow(ctx, "SELECT count(*) FROM awa."+pgx.Identifier{rel}.Sanitize()).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n > 0 {
			parts = append(parts, fmt.Sprintf("%s=%d", rel, n))
		}
	}
	return strings.Join(parts, " ")
}

// ringPattern matches the ring child tables (one per parent and slot).
const ringPattern = `^(ready_entries|ready_tombstones|done_entries|done_completions|claim_batches|claim_closures|leases|cursor_marks)_[0-9]+$`

func ringChildren(t *testing.T, ctx context.Context, conn *pgx.Conn) []string {
	t.Helper()
	rows, err := conn.Query(ctx, `
		SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
		WHERE n.nspname = 'awa' AND c.relkind = 'r' AND c.relname ~ $1
		ORDER BY c.relname`, ringPattern)
	if err != nil {
		t.Fatal(err)
	}
	rels, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	if len(rels) != 16*4+8*2+8+2 {
		t.Fatalf("found %d ring child tables, want %d (16 queue slots x 4, 8 claim x 2, 8 lease x 1, 2 cursor x 1)", len(rels), 16*4+8*2+8+2)
	}
	return rels
}
