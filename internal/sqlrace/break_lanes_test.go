package sqlrace

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/awa-queue/awa/internal/pgtest"
)

// Attacks on the lane design of a617c40: lanes are rows, positions come from
// a pool of 256 sequences (lane_id mod 256) in blocks of 1024 per call, so
// lanes share sequences and a lane's positions have gaps. Each test forces
// sharing (setval of awa.lane_id_seq) and checks a property with several real
// sessions.

// shareLanesWith makes the next lanes created share pool sequences with the
// lanes of queue busy: the next lane id becomes busy's first lane id + 256 *
// k, so a queue created next with as many shards draws from busy's
// sequences, shard for shard.
func shareLanesWith(t *testing.T, ctx context.Context, pool *pgxpool.Pool, busy string) {
	t.Helper()
	if _, err := pool.Exec(ctx, `
		SELECT setval('awa.lane_id_seq',
		              (SELECT min(lane_id) FROM awa.queue_lanes WHERE queue = $1)
		              + 256 * ((SELECT max(lane_id) FROM awa.queue_lanes) / 256 + 1) - 1)`, busy); err != nil {
		t.Fatalf("setval(awa.lane_id_seq): %v", err)
	}
}

// requireShared fails unless every lane of queue a draws from a sequence that
// a lane of queue b also draws from.
func requireShared(t *testing.T, ctx context.Context, pool *pgxpool.Pool, a, b string) {
	t.Helper()
	var alone int
	if err := pool.QueryRow(ctx, `
		SELECT count(*) FROM awa.queue_lanes x
		WHERE x.queue = $1
		  AND NOT EXISTS (SELECT 1 FROM awa.queue_lanes y WHERE y.queue = $2 AND y.lane_seq = x.lane_seq)`,
		a, b).Scan(&alone); err != nil {
		t.Fatal(err)
	}
	if alone != 0 {
		t.Fatalf("setup: %d lanes of %s share no pool sequence with %s", alone, a, b)
	}
}

// leakedProducerLocks counts the producer locks (1096237313, lane) that
// conn's session holds at session level.
func leakedProducerLocks(t *testing.T, ctx context.Context, conn *pgx.Conn) int {
	t.Helper()
	var n int
	if err := conn.QueryRow(ctx, `
		SELECT count(*) FROM pg_locks
		WHERE locktype = 'advisory' AND pid = pg_backend_pid() AND classid = 1096237313 AND objsubid = 2`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestACancelledQueuePendingLeavesNoProducerLockHeld: awa.queue_pending tests
// each lane's producer lock with a session-level try-lock and releases it at
// once. A query cancel (statement_timeout, pg_cancel_backend, a client's
// cancel request) that lands between the lock and the release must not leave
// the lock held by the session: it would outlive the transaction, so
// producers of that lane skip it or, once every shard is held (always with
// enqueue_shards 1), wait until the session disconnects; claims could never
// advance the lane; and queue_pending of every other session would report
// the queue pending forever. The session runs queue_pending under a 1-3 ms
// statement_timeout, so that cancels land all over the call; afterwards it
// must hold no producer lock, and a producer of a one-shard queue must not
// wait.
func TestACancelledQueuePendingLeavesNoProducerLockHeld(t *testing.T) {
	ctx := testCtx(t, 120*time.Second)
	pool := pgtest.NewDB(t)
	configureShards(t, ctx, pool, "one", 1)
	// A queue with 32 lanes (4 priorities x 8 shards) whose tips are past
	// their cursors with nothing above them: queue_pending tests every
	// lane's producer lock. A claim passes the first jobs; the tips then move
	// as if another lane drew from the shared sequences.
	queues := []string{"qa", "one"}
	for _, q := range queues {
		if _, err := insertMixed(ctx, pool, q, []int32{1, 2, 3, 4}); err != nil {
			t.Fatal(err)
		}
		if got, err := claim(ctx, pool, q, 10, nil); err != nil || len(got) != 4 {
			t.Fatalf("claim %s: %s, %v", q, describeClaims(got), err)
		}
	}
	if _, err := pool.Exec(ctx, `SELECT nextval(lane_seq) FROM awa.queue_lanes`); err != nil {
		t.Fatal(err)
	}

	conn := connect(t, ctx, pool)
	cancelled := 0
	for i := 0; i < 3000 && ctx.Err() == nil; i++ {
		q := queues[i%2]
		// A timeout that fires as a statement ends can cancel the next one
		// ("due to user request"): the set-up statements retry on 57014.
		setTimeout(t, ctx, conn, []string{"1ms", "2ms", "3ms"}[i%3])
		_, err := conn.Exec(ctx, `SELECT awa.queue_pending($1)`, q)
		if err != nil {
			if sqlState(err) != "57014" {
				t.Fatalf("queue_pending: %v", err)
			}
			cancelled++
		}
		setTimeout(t, ctx, conn, "0")
	}
	if cancelled < 500 {
		t.Fatalf("setup: only %d of 3000 queue_pending calls were cancelled; the attack needs cancels all over the call", cancelled)
	}
	if n := leakedProducerLocks(t, ctx, conn); n != 0 {
		t.Errorf("after %d cancelled queue_pending calls the session holds %d producer locks at session level", cancelled, n)
	}
	// The consequence: a producer of the one-shard queue waits for that session.
	other := connect(t, ctx, pool)
	if _, err := other.Exec(ctx, `SET lock_timeout = '2s'`); err != nil {
		t.Fatal(err)
	}
	for p := 1; p <= 4; p++ {
		if _, err := insertOne(ctx, other, "one", p); err != nil {
			t.Errorf("insert into the one-shard queue at priority %d: %v", p, err)
		}
	}
}

// setTimeout sets the session's statement_timeout, retrying while a cancel
// left pending by the previous statement's timeout cancels it.
func setTimeout(t *testing.T, ctx context.Context, conn *pgx.Conn, v string) {
	t.Helper()
	for {
		_, err := conn.Exec(ctx, `SELECT set_config('statement_timeout', $1, false)`, v)
		if err == nil {
			return
		}
		if sqlState(err) != "57014" || ctx.Err() != nil {
			t.Fatalf("set statement_timeout %s: %v", v, err)
		}
	}
}
