package sqlrace

import (
	"regexp"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// heldClaim is one claim call of the held-backlog test: its jobs and when
// the call was sent and returned (it committed in between).
type heldClaim struct {
	ids          []int64
	sent, landed time.Time
}

var movedJobs = regexp.MustCompile(`(?:moved|moving) (\d+) available jobs`)

// TestHeldBacklogIsClaimedOnceInLaneOrderAcrossWraps is issue 14's race test.
// A standing backlog of 12,000 jobs (more than one slot may hold before prune
// holds it, 10,000) waits in queue "bq", fed by one producer (one lane: lane
// order is id order) with 50 jobs every 20 ms for the first half of the run,
// and worked by two claimers (50 jobs a call, completed at once), so the
// held slot drains while they run. Queue "fq" runs
// a small flow through (a producer, a claimer that completes). A maintenance
// session rotates and prunes the queue ring with no sealed slot kept
// (keep_sealed 0, carry_limit 1,000, a carried prune repeated), and the claim
// and cursor rings, every 15 ms, so the queue ring wraps many times. Then:
//
//   - prune held a slot (outcome held), gave a held slot back (pruned it)
//     while the sessions ran, and the ring still wrapped at least 3 times;
//   - the rows prune carried are fewer than the jobs inserted (a backlog
//     copied on every wrap would be many times that);
//   - no claim call ran ahead of its lane: a call that was sent after another
//     returned claimed only jobs above every job of that one;
//   - after the run, the rest is claimed and every job inserted was claimed
//     exactly once and completed once (a slot truncated with a live row in it
//     would lose its jobs or turn their completion stale);
//   - draining the rings then leaves them idle with no slot held.
//
// AWA_HELD_SECONDS sets the run's length (default 16).
func TestHeldBacklogIsClaimedOnceInLaneOrderAcrossWraps(t *testing.T) {
	seconds := envInt(t, "AWA_HELD_SECONDS", 16, 4)
	ctx, pool := newDB(t, time.Duration(seconds)*time.Second+4*time.Minute)
	setup := connect(t, ctx, pool)

	var mu sync.Mutex
	var inserted []int64
	for range 2 {
		ids := mustInsertBatch(t, ctx, setup, "bq", 2, 6000)
		inserted = append(inserted, ids...)
	}
	var lanes int
	if err := setup.QueryRow(ctx, `SELECT count(DISTINCT lane_id) FROM awa.ready_entries`).Scan(&lanes); err != nil || lanes != 1 {
		t.Fatalf("setup: the backlog is in %d lanes (err %v), want 1", lanes, err)
	}

	runCtx, cancel, fail := withErrOnce(ctx)
	defer cancel()
	stopAt := time.Now().Add(time.Duration(seconds) * time.Second)
	feedUntil := time.Now().Add(time.Duration(seconds) * time.Second / 2)
	var wg sync.WaitGroup
	var claims []heldClaim
	completed := map[int64]int{}
	outcomes := map[string]int{}
	carriedRows := 0
	heldSlots := map[int32]bool{}
	released := 0

	goSession(t, ctx, pool, &wg, func(conn *pgx.Conn) { // the backlog's producer
		for time.Now().Before(feedUntil) && runCtx.Err() == nil {
			ids, err := insertBatch(runCtx, conn, "bq", 2, 50)
			if err != nil {
				fail.set("insert bq: %v", err)
				return
			}
			mu.Lock()
			inserted = append(inserted, ids...)
			mu.Unlock()
			time.Sleep(20 * time.Millisecond)
		}
	})
	for range 2 { // the backlog's claimers and finalizers
		goSession(t, ctx, pool, &wg, func(conn *pgx.Conn) {
			for time.Now().Before(stopAt) && runCtx.Err() == nil {
				sent := time.Now()
				got, err := claim(runCtx, conn, "bq", 50, nil)
				if err != nil {
					fail.set("claim bq: %v", err)
					return
				}
				landed := time.Now()
				if len(got) == 0 {
					time.Sleep(10 * time.Millisecond)
					continue
				}
				res, err := complete(runCtx, conn, got)
				if err != nil {
					fail.set("complete bq: %v", err)
					return
				}
				mu.Lock()
				claims = append(claims, heldClaim{ids(got), sent, landed})
				for _, r := range res {
					if r.Outcome == "applied" {
						completed[r.JobID]++
					}
				}
				mu.Unlock()
			}
		})
	}
	goSession(t, ctx, pool, &wg, func(conn *pgx.Conn) { // a small flow through fq
		for time.Now().Before(stopAt) && runCtx.Err() == nil {
			if _, err := insertBatch(runCtx, conn, "fq", 2, 10); err != nil {
				fail.set("insert fq: %v", err)
				return
			}
			got, err := claim(runCtx, conn, "fq", 100, nil)
			if err == nil && len(got) > 0 {
				_, err = complete(runCtx, conn, got)
			}
			if err != nil {
				fail.set("work fq: %v", err)
				return
			}
			time.Sleep(10 * time.Millisecond)
		}
	})
	var generation int64
	goSession(t, ctx, pool, &wg, func(conn *pgx.Conn) { // maintenance
		for time.Now().Before(stopAt) && runCtx.Err() == nil {
			for _, ring := range []string{"queue", "claim", "cursor"} {
				if _, err := ringOp(runCtx, conn, "rotate", ring); err != nil {
					fail.set("rotate %s: %v", ring, err)
					return
				}
				for {
					o, err := pruneOp(runCtx, conn, ring, 50, 0, 1000)
					if err != nil {
						fail.set("prune %s: %v", ring, err)
						return
					}
					if ring != "queue" {
						break
					}
					mu.Lock()
					outcomes[o.Outcome]++
					for _, m := range movedJobs.FindAllStringSubmatch(deref(o.Detail), -1) {
						n, _ := strconv.Atoi(m[1])
						carriedRows += n
					}
					if o.Generation != nil {
						generation = *o.Generation
					}
					if o.Slot != nil && o.Outcome == "held" {
						heldSlots[*o.Slot] = true
					}
					if o.Slot != nil && o.Outcome == "pruned" && heldSlots[*o.Slot] {
						delete(heldSlots, *o.Slot)
						released++
					}
					mu.Unlock()
					if o.Outcome != "carried" {
						break
					}
				}
			}
			time.Sleep(15 * time.Millisecond)
		}
	})
	wg.Wait()
	if err := fail.get(); err != nil {
		t.Fatal(err)
	}
	t.Logf("queue ring: generation %d, prune outcomes %v, %d held slots given back, %d rows carried, %d jobs inserted, %d claim calls",
		generation, outcomes, released, carriedRows, len(inserted), len(claims))
	if outcomes["held"] == 0 || released == 0 || generation < 3*16 {
		t.Fatalf("prune held %d slots and gave %d back in %d generations; want one of each and at least 3 wraps (48 generations)",
			outcomes["held"], released, generation)
	}
	if carriedRows >= len(inserted) {
		t.Fatalf("prune carried %d rows for %d jobs inserted: the backlog was copied again", carriedRows, len(inserted))
	}

	// Lane order: a claim sent after another returned took only later jobs.
	for _, a := range claims {
		if len(a.ids) == 0 {
			continue
		}
		hi := slices.Max(a.ids)
		for _, b := range claims {
			if len(b.ids) > 0 && b.sent.After(a.landed) && slices.Min(b.ids) < hi {
				t.Fatalf("a claim sent after another returned took job %d below that one's %d: out of lane order",
					slices.Min(b.ids), hi)
			}
		}
	}

	// The rest, claimed and completed, each call above every earlier claim;
	// then each job exactly once.
	var top int64
	for _, c := range claims {
		for _, id := range c.ids {
			top = max(top, id)
		}
	}
	for {
		got, err := claim(ctx, setup, "bq", 1024, nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) == 0 {
			break
		}
		if slices.Min(ids(got)) < top {
			t.Fatalf("the drain claimed job %d below an earlier claim's %d: out of lane order", slices.Min(ids(got)), top)
		}
		top = slices.Max(ids(got))
		res, err := complete(ctx, setup, got)
		if err != nil {
			t.Fatal(err)
		}
		claims = append(claims, heldClaim{ids: ids(got)})
		for _, r := range res {
			if r.Outcome == "applied" {
				completed[r.JobID]++
			}
		}
	}
	times := map[int64]int{}
	for _, c := range claims {
		for _, id := range c.ids {
			times[id]++
		}
	}
	lost, twice := lostAndTwice(inserted, times)
	if len(lost) > 0 || len(twice) > 0 || len(times) != len(inserted) {
		t.Fatalf("%d jobs inserted, %d claimed: %d never claimed %v, %d claimed twice %v",
			len(inserted), len(times), len(lost), firstN(lost, 10), len(twice), firstN(twice, 10))
	}
	for _, id := range inserted {
		if completed[id] != 1 {
			t.Fatalf("job %d completed (applied) %d times, want once", id, completed[id])
		}
	}
	if _, idle := drainRings(t, ctx, setup, "after the run"); !idle {
		t.Fatal("the rings did not end idle after every job was worked")
	}
	var held int
	if err := setup.QueryRow(ctx, `SELECT count(*) FROM awa.ring_held_slots`).Scan(&held); err != nil || held != 0 {
		t.Fatalf("%d slots still held after the backlog was worked (err %v)", held, err)
	}
}

// deref is *s, or "" for nil.
func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
