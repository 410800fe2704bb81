package sqlrace

import (
	"context"
	"testing"
	"time"

	"github.com/awa-queue/awa/internal/pgtest"
)

// TestInsertNotifiesOnlyWhenNoCommittedJobWaitsAhead: awa._append_ready sends
// NOTIFY "awa:<queue>" unless a committed, unclaimed job already waits
// between the lane's claim cursor and the new job (whose producer notified).
// A listener on its own connection counts what arrives.
func TestInsertNotifiesOnlyWhenNoCommittedJobWaitsAhead(t *testing.T) {
	ctx := testCtx(t, 60*time.Second)
	pool := pgtest.NewDB(t)
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

	tx, err := producer.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := insertOne(ctx, tx, "q", 2); err != nil {
		t.Fatal(err)
	}
	if err := tx.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	notified("a rolled-back insert", false)
	if got, err := claim(ctx, pool, "q", 10, nil); err != nil || len(got) != 1 {
		t.Fatalf("claim: %s, %v", describeClaims(got), err)
	}
	// The rolled-back position is now passed; roll back another and insert
	// behind it: no committed job waits ahead, so the insert notifies.
	tx, err = producer.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := insertOne(ctx, tx, "q", 2); err != nil {
		t.Fatal(err)
	}
	if err := tx.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
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
