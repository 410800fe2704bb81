package driver_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/awa-queue/awa/driver"
)

// TestMaintenanceCarriesAnUnworkedBacklogInOneTick: 5,000 jobs wait in a queue
// nobody works, in a sealed queue slot. With BatchSize 500, one prune call
// moves at most 500 of them to the current slot (outcome carried), so the
// leader must call prune again in the same tick until the slot is empty and
// truncated: every carried and the final pruned outcome are logged after one
// rotate, with no rotate (the next tick) between them. The jobs stay
// available, each once.
func TestMaintenanceCarriesAnUnworkedBacklogInOneTick(t *testing.T) {
	ctx, pool := parallelDB(t, time.Minute)
	if _, err := pool.Exec(ctx, `SELECT * FROM awa.insert_jobs(array_fill('k'::text, ARRAY[5000]), NULL,
		array_fill('{"queue": "unworked"}'::jsonb, ARRAY[5000]))`); err != nil {
		t.Fatal(err)
	}
	if _, err := pool.Exec(ctx, `SELECT * FROM awa.rotate_ring('queue')`); err != nil {
		t.Fatal(err)
	}

	maint := fastMaintenance()
	maint.QueueRingInterval = 40 * time.Second // carry budget: 10s a tick (ample on a loaded machine)
	maint.KeepSealedQueueSlots = -1            // prune slot 0 at once
	maint.BatchSize = 500
	log, _ := testLogger(t, "leader")
	c, events := startClientEvents(t, pool, &driver.Config{Logger: log, Maintenance: maint})
	waitFor(t, 30*time.Second, "slot 0 to be pruned (within the first tick)", func() (bool, string) {
		return len(events.of(driver.EventRingMaintenance, func(e *driver.Event) bool {
			return e.Ring.Ring == "queue" && e.Ring.Outcome == "pruned"
		})) > 0, ""
	})
	if !c.IsLeader() {
		t.Fatal("the client does not lead")
	}

	var seq []string
	for _, e := range events.of(driver.EventRingMaintenance, func(e *driver.Event) bool { return e.Ring.Ring == "queue" }) {
		seq = append(seq, e.Ring.Action+" "+e.Ring.Outcome)
	}
	seq = seq[:slices.Index(seq, "prune pruned")+1]
	carried, rotates := 0, 0
	for _, s := range seq {
		switch {
		case s == "prune carried":
			carried++
		case strings.HasPrefix(s, "rotate "):
			rotates++
		case s != "prune pruned":
			t.Fatalf("unexpected queue-ring outcome %q in %v", s, seq)
		}
	}
	if carried != 9 || rotates != 1 || !strings.HasPrefix(seq[0], "rotate ") {
		t.Fatalf("queue-ring outcomes %v: want one rotate, then 9 carried and 1 pruned in the same tick", seq)
	}
	var avail, rows int64
	if err := pool.QueryRow(ctx, `SELECT (SELECT available FROM awa.queue_counts('unworked')),
		(SELECT count(DISTINCT id) FROM awa.jobs WHERE queue = 'unworked' AND state = 'available')`).Scan(&avail, &rows); err != nil {
		t.Fatal(err)
	}
	var inSlot0 int64
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM awa.ready_entries_0`).Scan(&inSlot0); err != nil {
		t.Fatal(err)
	}
	if avail != 5000 || rows != 5000 || inSlot0 != 0 {
		t.Fatalf("after the carry: %d available (queue_counts), %d distinct available jobs (awa.jobs), %d rows in slot 0; want 5000, 5000, 0",
			avail, rows, inSlot0)
	}
}

// TestMaintenanceHoldsALargeBacklogAndRotatesPastIt: 10,001 jobs wait in a
// queue nobody works, in the sealed queue slot 0: more than prune carries. The
// leader's prune holds the slot (outcome held, nothing moved) and its
// rotations then pass over it: after slot 15 comes slot 1, never slot 0, while
// a producer keeps the current slot from being idle. The backlog stays in
// slot 0, each job available once.
func TestMaintenanceHoldsALargeBacklogAndRotatesPastIt(t *testing.T) {
	ctx, pool := parallelDB(t, 2*time.Minute)
	if _, err := pool.Exec(ctx, `SELECT * FROM awa.insert_jobs(array_fill('k'::text, ARRAY[10000]), NULL,
		array_fill('{"queue": "unworked"}'::jsonb, ARRAY[10000]))`); err != nil {
		t.Fatal(err)
	}
	if _, err := pool.Exec(ctx, `SELECT * FROM awa.insert_job('k', '{}', '{"queue": "unworked"}')`); err != nil {
		t.Fatal(err)
	}
	if _, err := pool.Exec(ctx, `SELECT * FROM awa.rotate_ring('queue')`); err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	defer close(stop)
	go func() { // keeps the current slot from being idle, so the ring turns
		for {
			select {
			case <-stop:
				return
			case <-time.After(50 * time.Millisecond):
				_, _ = pool.Exec(ctx, `SELECT * FROM awa.insert_job('k', '{}', '{"queue": "other"}')`)
			}
		}
	}()

	maint := fastMaintenance()
	maint.QueueRingInterval = 300 * time.Millisecond
	maint.KeepSealedQueueSlots = -1 // prune each slot as soon as it is sealed
	log, _ := testLogger(t, "leader")
	_, events := startClientEvents(t, pool, &driver.Config{Logger: log, Maintenance: maint})
	queueEvents := func(action, outcome string) []*driver.Event {
		return events.of(driver.EventRingMaintenance, func(e *driver.Event) bool {
			return e.Ring.Ring == "queue" && e.Ring.Action == action && e.Ring.Outcome == outcome
		})
	}
	waitFor(t, 90*time.Second, "a rotation past slot 15 after slot 0 was held", func() (bool, string) {
		held := queueEvents("prune", "held")
		for _, e := range queueEvents("rotate", "rotated") {
			if len(held) > 0 && e.Ring.Slot == 1 && e.Ring.Generation >= 16 {
				return true, ""
			}
		}
		return false, fmt.Sprintf("%d held, %d rotations", len(held), len(queueEvents("rotate", "rotated")))
	})
	held := queueEvents("prune", "held")
	if held[0].Ring.Slot != 0 {
		t.Fatalf("prune held slot %d, want slot 0", held[0].Ring.Slot)
	}
	for _, e := range queueEvents("rotate", "rotated") {
		if e.Ring.Slot == 0 {
			t.Fatalf("a rotation took the held slot 0: %+v", *e.Ring)
		}
	}
	var avail, rows, inSlot0 int64
	if err := pool.QueryRow(ctx, `SELECT (SELECT available FROM awa.queue_counts('unworked')),
		(SELECT count(DISTINCT id) FROM awa.jobs WHERE queue = 'unworked' AND state = 'available'),
		(SELECT count(*) FROM awa.ready_entries_0 WHERE queue = 'unworked')`).Scan(&avail, &rows, &inSlot0); err != nil {
		t.Fatal(err)
	}
	if avail != 10001 || rows != 10001 || inSlot0 != 10001 {
		t.Fatalf("held backlog: %d available (queue_counts), %d distinct available jobs (awa.jobs), %d in slot 0; want 10001 each",
			avail, rows, inSlot0)
	}
}
