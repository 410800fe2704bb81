package sqlrace

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestInsertNotifiesOnlyWhenNoCommittedJobWaitsAhead: awa._append_ready sends
// NOTIFY "awa:<queue>" unless a committed, unclaimed job already waits
// between the lane's claim cursor and the new job (whose producer notified).
// A listener on its own connection counts what arrives.
func TestInsertNotifiesOnlyWhenNoCommittedJobWaitsAhead(t *testing.T) {
	ctx, pool := newDB(t, 60*time.Second)
	listener := connect(t, ctx, pool)
	if _, err := listener.Exec(ctx, `SELECT awa.listen_queues(ARRAY['q'])`); err != nil {
		t.Fatal(err)
	}
	producer := connect(t, ctx, pool) // one session: its jobs share a lane
	notified := func(what string, want bool) {
		t.Helper()
		wctx, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
		defer cancel()
		n, err := listener.WaitForNotification(wctx)
		got := err == nil
		if got && n.Channel != "awa:q" {
			t.Fatalf("%s: notification on %q, want awa:q", what, n.Channel)
		}
		if err != nil && wctx.Err() == nil {
			t.Fatal(err)
		}
		if got != want {
			t.Fatalf("%s: notified %v, want %v", what, got, want)
		}
	}
	insert := func() int64 {
		t.Helper()
		id, err := insertOne(ctx, producer, "q", 2)
		if err != nil {
			t.Fatal(err)
		}
		return id
	}

	insert()
	notified("first job of a new queue", true)
	insert()
	notified("a job behind a committed unclaimed job", false)
	if got, err := claim(ctx, pool, "q", 10, nil); err != nil || len(got) != 2 {
		t.Fatalf("claim: %s, %v", describeClaims(got), err)
	}
	insert()
	notified("a job in a drained lane", true)

	insertRolledBack(t, ctx, producer, "q")
	notified("a rolled-back insert", false)
	if got, err := claim(ctx, pool, "q", 10, nil); err != nil || len(got) != 1 {
		t.Fatalf("claim: %s, %v", describeClaims(got), err)
	}
	// The rolled-back position is now passed; roll back another and insert
	// behind it: no committed job waits ahead, so the insert notifies.
	insertRolledBack(t, ctx, producer, "q")
	insert()
	notified("a job behind a rolled-back position", true)

	// Another priority is another lane: its first job notifies although
	// priority 2 has a committed job waiting.
	if _, err := insertOne(ctx, producer, "q", 1); err != nil {
		t.Fatal(err)
	}
	notified("a job in another, empty lane", true)

	// A batch into a lane with a waiting job: no notification; a batch that
	// also reaches an empty lane: one.
	if _, err := insertMixed(ctx, producer, "q", []int32{2, 2}); err != nil {
		t.Fatal(err)
	}
	notified("a batch behind waiting jobs", false)
	if _, err := insertMixed(ctx, producer, "q", []int32{2, 3}); err != nil {
		t.Fatal(err)
	}
	notified("a batch that reaches an empty lane", true)
}

// TestQueuePendingSeesOpenProducersButNotAnotherLanesPositions: lanes share
// pool sequences, so a lane's tip can pass its cursor without any job of its
// own. queue_pending must still be true while a producer of the lane is open
// (its job may commit without a NOTIFY), true while a committed job waits,
// and false for positions another lane drew from the shared sequence or a
// producer rolled back.
func TestQueuePendingSeesOpenProducersButNotAnotherLanesPositions(t *testing.T) {
	ctx, pool := newDB(t, 30*time.Second)
	configureShards(t, ctx, pool, "pa", 1)
	configureShards(t, ctx, pool, "pb", 1)
	if _, err := insertOne(ctx, pool, "pa", 2); err != nil {
		t.Fatal(err)
	}
	// pb's first insert creates its lanes of priorities 1 to 4 in order: each
	// gets pa's lane id of the same priority + 256, the same pool sequence.
	if _, err := pool.Exec(ctx, `SELECT setval('awa.lane_id_seq', (SELECT min(lane_id) FROM awa.queue_lanes WHERE queue = 'pa') + 255)`); err != nil {
		t.Fatal(err)
	}
	if _, err := insertOne(ctx, pool, "pb", 2); err != nil {
		t.Fatal(err)
	}
	var shared bool
	if err := pool.QueryRow(ctx, `SELECT count(DISTINCT lane_seq) = 1 FROM awa.queue_lanes WHERE queue IN ('pa', 'pb') AND priority = 2`).Scan(&shared); err != nil || !shared {
		t.Fatalf("setup: lanes of pa and pb share a pool sequence: %v, %v", shared, err)
	}
	if got, err := claim(ctx, pool, "pa", 10, nil); err != nil || len(got) != 1 {
		t.Fatalf("claim of pa: %v, %v", got, err)
	}
	if queuePending(t, ctx, pool, "pa") {
		t.Fatal("pa is pending after its only job was claimed")
	}

	// Another lane moves the shared sequence: pa's tip passes its cursor.
	if _, err := insertOne(ctx, pool, "pb", 2); err != nil {
		t.Fatal(err)
	}
	if queuePending(t, ctx, pool, "pa") {
		t.Fatal("pa is pending because pb drew positions from the shared sequence")
	}
	if !queuePending(t, ctx, pool, "pb") {
		t.Fatal("pb is not pending with two committed jobs")
	}

	// An open producer of pa: pending, from another session, before it commits.
	tx, id := openProducer(t, ctx, pool, "pa", 2)
	if !queuePending(t, ctx, pool, "pa") {
		t.Fatal("pa is not pending while its producer is open")
	}
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	if !queuePending(t, ctx, pool, "pa") {
		t.Fatal("pa is not pending with a committed job")
	}
	if got, err := claim(ctx, pool, "pa", 10, nil); err != nil || len(got) != 1 || got[0].ID != id {
		t.Fatalf("claim of pa: %v, %v; want job %d", got, err, id)
	}

	// A producer that rolls back leaves nothing pending.
	insertRolledBack(t, ctx, pool, "pa")
	if queuePending(t, ctx, pool, "pa") {
		t.Fatal("pa is pending after its producer rolled back")
	}
}

// TestInsertTakesTheSessionsLastAppendAsEvidenceOnlyWhileItHolds: a one-job
// insert (awa._append_one) skips its NOTIFY on the evidence of this session's
// last append into the lane (the lane cache's tail) only while that job is
// committed, the cursor ring has not turned and no claim mark at or above it
// lies in the current cursor slot; otherwise the full rule
// (awa._claimers_behind) decides. Each case below would miss a wake-up if
// that condition were dropped.
func TestInsertTakesTheSessionsLastAppendAsEvidenceOnlyWhileItHolds(t *testing.T) {
	ctx, pool := newDB(t, 60*time.Second)
	listener := connect(t, ctx, pool)
	if _, err := listener.Exec(ctx, `SELECT awa.listen_queues(ARRAY['q'])`); err != nil {
		t.Fatal(err)
	}
	producer := connect(t, ctx, pool)
	notified := func(what string, want bool) {
		t.Helper()
		wctx, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
		defer cancel()
		_, err := listener.WaitForNotification(wctx)
		if err != nil && wctx.Err() == nil {
			t.Fatal(err)
		}
		if got := err == nil; got != want {
			t.Fatalf("%s: notified %v, want %v", what, got, want)
		}
	}
	insert := func() {
		t.Helper()
		if _, err := insertOne(ctx, producer, "q", 2); err != nil {
			t.Fatal(err)
		}
	}
	claimN := func(n, want int) {
		t.Helper()
		if got, err := claim(ctx, pool, "q", n, nil); err != nil || len(got) != want {
			t.Fatalf("claim %d: %s, %v", n, describeClaims(got), err)
		}
	}
	tail := func() []string {
		t.Helper()
		var entry string
		if err := producer.QueryRow(ctx, `SELECT current_setting(awa._lane_cache_key('q', 2::smallint))`).Scan(&entry); err != nil {
			t.Fatal(err)
		}
		f := strings.Split(entry, "|")
		if len(f) != 12 {
			t.Fatalf("lane cache entry %q: %d fields, want 12 (with the tail)", entry, len(f))
		}
		return f
	}

	insert()
	notified("first job", true)
	insert()
	notified("behind the session's last job, no mark", false)
	claimN(1, 1)
	insert()
	notified("behind the session's last job, a mark below it", false)
	claimN(10, 2)
	insert()
	notified("the session's last job claimed (mark at it): the full rule, a drained lane", true)

	// The cursor ring turns, then a claim takes the session's last job: its
	// mark lies in the new cursor slot, which the tail does not name.
	if _, err := pool.Exec(ctx, `SELECT count(*) FROM awa.rotate_ring('cursor', now(), interval '0 seconds')`); err != nil {
		t.Fatal(err)
	}
	claimN(10, 1)
	insert()
	notified("a claim after the cursor ring turned", true)
	claimN(10, 1)

	// A tail whose transaction did not commit (as after a prepared
	// transaction rolled back): its position holds no job.
	before := tail()
	var aborted string
	tx := mustBegin(t, ctx, producer)
	if err := tx.QueryRow(ctx, `SELECT pg_current_xact_id()::text`).Scan(&aborted); err != nil {
		t.Fatal(err)
	}
	if err := tx.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	// One past the last job's position: above the cursor (that job is claimed).
	last, err := strconv.ParseInt(before[8], 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	forged := append(append([]string{}, before[:8]...), strconv.FormatInt(last+1, 10), aborted, before[10], before[11])
	if _, err := producer.Exec(ctx, `SELECT set_config(awa._lane_cache_key('q', 2::smallint), $1, false)`,
		strings.Join(forged, "|")); err != nil {
		t.Fatal(err)
	}
	insert()
	notified("a tail of a transaction that rolled back", true)
	if got := tail(); got[7] != before[7] || got[9] == aborted {
		t.Fatalf("tail after the insert %v: want the lane %s and this transaction", got, before[7])
	}
}
