package sqlrace

import (
	"context"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// TestDeadTupleContract checks the storage contract of the ring planes: a full
// job lifecycle (insert through awa.insert_jobs and awa.insert_job, claim
// through awa.claim_ready_runtime on four connections, completion through
// awa.complete_jobs, rotations of the rings meanwhile) never updates or
// deletes a row of a ring child table, so they hold no dead tuples; claims
// append marks, so queue_claim_heads is not updated either (only a cursor-ring
// prune that truncates a lane's newest mark raises its floor). The figures
// come from pg_stat_user_tables after the work connections closed (a backend
// flushes its statistics when it exits) and the counts settled. The control
// tables' figures (queue_claim_heads, ring_rotations, ...) are logged. Then rotate+prune of every ring, repeated until
// idle, must truncate every slot that held rows, leaving all ring children
// empty.
func TestDeadTupleContract(t *testing.T) {
	const (
		queue    = "q"
		total    = 10000
		singles  = 500
		batch    = 500
		claimers = 4
		perClaim = 100
	)
	ctx, pool := newDB(t, 90*time.Second)
	check := connect(t, ctx, pool)
	if _, err := check.Exec(ctx, "SELECT pg_stat_reset()"); err != nil {
		t.Fatalf("pg_stat_reset: %v", err)
	}

	// Work connections are closed explicitly before the statistics are read.
	open := func() *pgx.Conn { return connect(t, ctx, pool) }
	prod, maint := open(), open()
	rotate := func(ring string) {
		t.Helper()
		if o, err := ringOp(ctx, maint, "rotate", ring); err != nil {
			t.Fatalf("rotate_ring(%s): %v", ring, err)
		} else if o.Outcome != "rotated" && o.Outcome != "skipped_idle" {
			t.Fatalf("rotate_ring(%s) during the work: %v", ring, o)
		}
	}

	inserted := 0
	for b := 0; inserted < total-singles; b++ {
		if _, err := insertBatch(ctx, prod, queue, 1+b%4, batch); err != nil {
			t.Fatalf("insert_jobs: %v", err)
		}
		inserted += batch
		if inserted%2500 == 0 {
			rotate("queue")
		}
	}
	for i := 0; i < singles; i++ {
		if _, err := insertOne(ctx, prod, queue, 1+i%4); err != nil {
			t.Fatalf("insert_job: %v", err)
		}
		inserted++
	}

	runCtx, cancel, fail := withErrOnce(ctx)
	defer cancel()
	completed := make([]int, claimers)
	conns := make([]*pgx.Conn, claimers)
	for i := range conns {
		conns[i] = open()
	}
	var wg sync.WaitGroup
	for c := range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for runCtx.Err() == nil {
				got, err := claim(runCtx, conns[c], queue, perClaim, nil)
				if err != nil {
					fail.set("claimer %d: claim_ready_runtime: %v", c, err)
					return
				}
				if len(got) == 0 {
					if d, err := drained(runCtx, conns[c], queue); err != nil || d {
						if err != nil {
							fail.set("claimer %d: queue_pending: %v", c, err)
						}
						return
					}
					time.Sleep(time.Millisecond) // another claimer holds the lane with jobs
					continue
				}
				n, err := completeApplied(runCtx, conns[c], got)
				if err != nil {
					fail.set("claimer %d: %v", c, err)
					return
				}
				completed[c] += n
			}
		}()
	}
	stopRotating := make(chan struct{})
	rotated := make(chan error, 1)
	go func() { // rotate both rings now and then while the claimers work
		tick := time.NewTicker(40 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-stopRotating:
				rotated <- nil
				return
			case <-tick.C:
				for _, ring := range []string{"queue", "claim", "cursor"} {
					if _, err := ringOp(runCtx, maint, "rotate", ring); err != nil {
						rotated <- fmt.Errorf("rotate_ring(%s): %w", ring, err)
						return
					}
				}
			}
		}
	}()
	wg.Wait()
	close(stopRotating)
	if err := <-rotated; err != nil {
		t.Fatal(err)
	}
	if err := fail.get(); err != nil {
		t.Fatal(err)
	}
	sum := 0
	for _, n := range completed {
		sum += n
	}
	if inserted != total || sum != total {
		t.Fatalf("inserted %d and completed %d jobs, want %d each", inserted, sum, total)
	}
	if qc := queueCounts(t, ctx, check, queue); qc != (queueCount{Completed: total}) {
		t.Fatalf("awa.queue_counts = %+v, want only completed = %d", qc, total)
	}

	// Flush the work backends' statistics: ask for it, then end them.
	for _, c := range append([]*pgx.Conn{prod, maint}, conns...) {
		if _, err := c.Exec(ctx, "SELECT pg_stat_force_next_flush()"); err != nil {
			t.Fatal(err)
		}
		if err := c.Close(ctx); err != nil {
			t.Fatal(err)
		}
	}
	stats := settledStats(t, ctx, check, total)

	ring := regexp.MustCompile(ringPattern)
	var names []string
	for name := range stats {
		names = append(names, name)
	}
	sort.Strings(names)
	ringTables := 0
	for _, name := range names {
		s := stats[name]
		if !ring.MatchString(name) {
			if s == (tableStats{}) && name != "queue_claim_heads" {
				continue // untouched (result-shape tables, backlog, DLQ, ...)
			}
			t.Logf("control/backlog table %-28s ins %6d upd %6d (hot %6d) del %6d live %6d dead %6d",
				name, s.ins, s.upd, s.hotUpd, s.del, s.live, s.dead)
			continue
		}
		ringTables++
		if s.upd != 0 || s.del != 0 || s.dead != 0 {
			t.Errorf("ring table awa.%s: n_tup_upd %d, n_tup_del %d, n_dead_tup %d; want 0, 0, 0 (ring rows are append-only)",
				name, s.upd, s.del, s.dead)
		}
	}
	// No prune ran during the work, so no floor was raised: the claim
	// cursors took no UPDATE at all.
	if s := stats["queue_claim_heads"]; s.upd != 0 || s.del != 0 || s.dead != 0 {
		t.Errorf("awa.queue_claim_heads: n_tup_upd %d, n_tup_del %d, n_dead_tup %d; want 0, 0, 0 (claims append marks)",
			s.upd, s.del, s.dead)
	}
	if ringTables != 16*4+8*2+8+2 {
		t.Errorf("pg_stat_user_tables lists %d ring child tables, want %d", ringTables, 16*4+8*2+8+2)
	}
	for _, prefix := range []string{"ready_entries", "done_completions", "claim_batches",
		"claim_closures", "cursor_marks"} {
		var ins int64
		var slots []string
		for _, name := range names {
			if ring.MatchString(name) && name[:len(name)-len(slotSuffix(name))] == prefix && stats[name].ins > 0 {
				ins += stats[name].ins
				slots = append(slots, slotSuffix(name))
			}
		}
		t.Logf("ring parent %-27s %6d rows inserted into slots %v", prefix, ins, slots)
	}

	// Reclaim: rotate and prune both rings until idle; every slot that held rows
	// must be truncated (prune 'pruned'), and the ring children end empty.
	held := slotsWithRows(t, ctx, check)
	pruned, idle := drainRings(t, ctx, check, "nothing is live, yet")
	if !idle {
		t.Fatalf("rings not idle after 100 rotate+prune rounds")
	}
	for _, ring := range []string{"queue", "claim", "cursor"} {
		for _, slot := range held[ring] {
			if !pruned[ring][slot] {
				t.Errorf("%s ring: slot %d held rows but prune never reported it pruned (pruned: %v)", ring, slot, pruned[ring])
			}
		}
	}
	t.Logf("slots holding rows before reclaim: %v; pruned: %v", held, pruned)
	if left := ringRows(t, ctx, check); left != "" {
		t.Errorf("ring child tables not empty after reclaim: %s", left)
	}
}

type tableStats struct{ ins, upd, hotUpd, del, live, dead int64 }

// settledStats polls pg_stat_user_tables (schema awa) until the work backends'
// statistics have arrived: every inserted ready row is counted and two reads
// 300 ms apart agree.
func settledStats(t *testing.T, ctx context.Context, conn *pgx.Conn, wantReady int64) map[string]tableStats {
	t.Helper()
	read := func() (map[string]tableStats, int64) {
		if _, err := conn.Exec(ctx, "SELECT pg_stat_clear_snapshot()"); err != nil {
			t.Fatal(err)
		}
		rows, err := conn.Query(ctx, `
			SELECT relname, n_tup_ins, n_tup_upd, n_tup_hot_upd, n_tup_del, n_live_tup, n_dead_tup
			FROM pg_stat_user_tables WHERE schemaname = 'awa'`)
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]tableStats{}
		var ready int64
		var name string
		var s tableStats
		if _, err := pgx.ForEachRow(rows, []any{&name, &s.ins, &s.upd, &s.hotUpd, &s.del, &s.live, &s.dead}, func() error {
			out[name] = s
			if len(name) > len("ready_entries_") && name[:len("ready_entries_")] == "ready_entries_" {
				ready += s.ins
			}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		return out, ready
	}
	deadline := time.Now().Add(30 * time.Second)
	prev, _ := read()
	for {
		time.Sleep(300 * time.Millisecond)
		cur, ready := read()
		if ready == wantReady && fmt.Sprint(cur) == fmt.Sprint(prev) {
			return cur
		}
		if time.Now().After(deadline) {
			t.Fatalf("statistics did not settle within 30 s (ready_entries inserts counted: %d, want %d)", ready, wantReady)
		}
		prev = cur
	}
}

// slotSuffix returns the "_N" slot suffix of a ring child table name.
func slotSuffix(name string) string {
	for i := len(name) - 1; i >= 0; i-- {
		if name[i] == '_' {
			return name[i:]
		}
	}
	return ""
}

// slotsWithRows lists, per ring, the slots where any child table holds a row.
func slotsWithRows(t *testing.T, ctx context.Context, conn *pgx.Conn) map[string][]int32 {
	t.Helper()
	parents := map[string][]string{
		"queue":  {"ready_entries", "ready_tombstones", "done_entries", "done_completions"},
		"claim":  {"claim_batches", "claim_closures"},
		"cursor": {"cursor_marks"},
	}
	out := map[string][]int32{}
	for ring, ps := range parents {
		var n int32
		if err := conn.QueryRow(ctx, `SELECT slot_count FROM awa.ring_config WHERE ring = $1`, ring).Scan(&n); err != nil {
			t.Fatal(err)
		}
		for slot := int32(0); slot < n; slot++ {
			for _, p := range ps {
				var has bool
				q := "SELECT EXISTS (SELECT 1 FROM awa." + pgx.Identifier{p + "_" + strconv.Itoa(int(slot))}.Sanitize() + ")"
				if err := conn.QueryRow(ctx, q).Scan(&has); err != nil {
					t.Fatal(err)
				}
				if has {
					out[ring] = append(out[ring], slot)
					break
				}
			}
		}
	}
	return out
}
