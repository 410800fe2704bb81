package sqlrace

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	_ "github.com/jackc/pgx/v5/stdlib"

	"github.com/awa-queue/awa/internal/pgtest"
)

// Enqueue shards: a priority of a queue has enqueue_shards lanes, and a
// producer takes the first whose lock is free. These tests hold real producer
// transactions open on several connections.

func configureShards(t *testing.T, ctx context.Context, pool *pgxpool.Pool, queue string, shards int) {
	t.Helper()
	if _, err := pool.Exec(ctx, `SELECT awa.configure_queue($1, jsonb_build_object('enqueue_shards', $2::int))`,
		queue, shards); err != nil {
		t.Fatalf("configure_queue(%q, enqueue_shards %d): %v", queue, shards, err)
	}
}

// jobLane is where a committed job's ready row is: its lane and the lane's
// (queue, priority, shard).
type jobLane struct {
	id       int32
	queue    string
	priority int16
	shard    int16
}

func laneOf(t *testing.T, ctx context.Context, pool *pgxpool.Pool, id int64) jobLane {
	t.Helper()
	var l jobLane
	if err := pool.QueryRow(ctx, `SELECT l.lane_id, l.queue, l.priority, l.shard
		FROM awa.ready_entries r JOIN awa.queue_lanes l USING (lane_id) WHERE r.job_id = $1`, id).
		Scan(&l.id, &l.queue, &l.priority, &l.shard); err != nil {
		t.Fatalf("lane of job %d: %v", id, err)
	}
	return l
}

// TestOpenProducerTransactionDoesNotBlockOtherProducers: a transaction that
// enqueued a job and stays open must not stop other producers of the same
// (queue, priority), nor the claim of their committed jobs; its own job is
// claimable once it commits. With one enqueue shard the second producer waits
// for the first to commit (the price of a single FIFO lane), and the claim
// then returns both in commit order.
func TestOpenProducerTransactionDoesNotBlockOtherProducers(t *testing.T) {
	t.Run("enqueue_shards=8", func(t *testing.T) {
		ctx, pool := newDB(t, 30*time.Second)
		// The queue's lanes exist (a transaction that creates them holds the
		// queue's lane-creation lock until it ends).
		if _, err := insertOne(ctx, pool, "q", 2); err != nil {
			t.Fatal(err)
		}
		if got, err := claim(ctx, pool, "q", 10, nil); err != nil || len(got) != 1 {
			t.Fatalf("claim of the warm-up job: %s, %v", describeClaims(got), err)
		}
		open := connect(t, ctx, pool)
		tx, held := openProducer(t, ctx, open, "q", 2)

		other := connect(t, ctx, pool)
		short, cancel := context.WithTimeout(ctx, 5*time.Second)
		defer cancel()
		var later []int64
		for i := 0; i < 3; i++ { // autocommit producers on a second connection
			id, err := insertOne(short, other, "q", 2)
			if err != nil {
				t.Fatalf("insert while another producer's transaction is open: %v (want no wait)", describeErr(err))
			}
			later = append(later, id)
		}
		got, err := claim(ctx, pool, "q", 10, nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 3 || got[0].ID != later[0] || got[1].ID != later[1] || got[2].ID != later[2] {
			t.Fatalf("claim with job %d still uncommitted returned %s; want the committed jobs %v in order",
				held, describeClaims(got), later)
		}
		if err := tx.Commit(ctx); err != nil {
			t.Fatal(err)
		}
		got, err = claim(ctx, pool, "q", 10, nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 1 || got[0].ID != held {
			t.Fatalf("claim after the open transaction committed returned %s; want job %d", describeClaims(got), held)
		}
		if laneOf(t, ctx, pool, held).id == laneOf(t, ctx, pool, later[0]).id {
			t.Fatalf("jobs %d and %d share a lane although their producers overlapped", held, later[0])
		}
	})

	t.Run("enqueue_shards=1", func(t *testing.T) {
		ctx, pool := newDB(t, 30*time.Second)
		configureShards(t, ctx, pool, "q", 1)
		open := connect(t, ctx, pool)
		tx, first := openProducer(t, ctx, open, "q", 2)
		other := connect(t, ctx, pool)
		done := make(chan error, 1)
		var second int64
		go func() {
			var err error
			second, err = insertOne(ctx, other, "q", 2)
			done <- err
		}()
		waitForLockWait(t, ctx, pool, other.PgConn().PID())
		if got, err := claim(ctx, pool, "q", 10, nil); err != nil || len(got) != 0 {
			t.Fatalf("claim while the lane's first producer is open: %s, %v; want nothing", describeClaims(got), err)
		}
		if err := tx.Commit(ctx); err != nil {
			t.Fatal(err)
		}
		if err := <-done; err != nil {
			t.Fatalf("the waiting producer: %v", describeErr(err))
		}
		got, err := claim(ctx, pool, "q", 10, nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 2 || got[0].ID != first || got[1].ID != second {
			t.Fatalf("claim returned %s; want job %d then job %d (lane order)", describeClaims(got), first, second)
		}
	})
}

// TestShardedProducersInOppositeOrderBothCommit: the pattern that deadlocks
// with one enqueue shard (two transactions inserting into two priorities in
// opposite orders, in separate calls) commits both when the shards are free:
// the second transaction to reach a held lane takes another shard.
func TestShardedProducersInOppositeOrderBothCommit(t *testing.T) {
	ctx, pool := newDB(t, 30*time.Second)
	for _, prio := range []int{1, 2} {
		if _, err := insertOne(ctx, pool, "q", prio); err != nil {
			t.Fatal(err)
		}
	}
	c1, c2 := connect(t, ctx, pool), connect(t, ctx, pool)
	short, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	tx1, err := c1.Begin(short)
	if err != nil {
		t.Fatal(err)
	}
	defer tx1.Rollback(ctx)
	tx2, err := c2.Begin(short)
	if err != nil {
		t.Fatal(err)
	}
	defer tx2.Rollback(ctx)
	var ids []int64
	for _, step := range []struct {
		tx   pgx.Tx
		prio int
	}{{tx1, 1}, {tx2, 2}, {tx1, 2}, {tx2, 1}} {
		id, err := insertOne(short, step.tx, "q", step.prio)
		if err != nil {
			t.Fatalf("insert priority %d: %v (want no wait and no deadlock)", step.prio, describeErr(err))
		}
		ids = append(ids, id)
	}
	if err := tx1.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	if err := tx2.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	var n int
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM awa.jobs WHERE id = ANY ($1) AND state = 'available'`, ids).
		Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 4 {
		t.Fatalf("%d of jobs %v available, want 4", n, ids)
	}
}

// TestTransactionKeepsItsShard: a transaction whose own shard was held when it
// first enqueued takes another shard, and its later jobs for the same
// (queue, priority) follow it there even once its own shard is free again, so
// one transaction's jobs keep their order. The next transaction goes back to
// its own shard.
func TestTransactionKeepsItsShard(t *testing.T) {
	ctx, pool := newDB(t, 30*time.Second)
	if _, err := insertOne(ctx, pool, "q", 2); err != nil { // the lanes exist
		t.Fatal(err)
	}
	c := connect(t, ctx, pool)
	var home int32 // the only lane yet: shard 0
	if err := pool.QueryRow(ctx, `SELECT lane_id FROM awa.queue_lanes WHERE queue = 'q' AND priority = 2`).Scan(&home); err != nil {
		t.Fatal(err)
	}
	hold := connect(t, ctx, pool)
	if _, err := hold.Exec(ctx, `SELECT pg_advisory_lock(awa._lock_key('lane_producer'), $1::int)`, home); err != nil {
		t.Fatal(err)
	}
	tx, x := openProducer(t, ctx, c, "q", 2)
	if _, err := hold.Exec(ctx, `SELECT pg_advisory_unlock(awa._lock_key('lane_producer'), $1::int)`, home); err != nil {
		t.Fatal(err)
	}
	y, err := insertOne(ctx, tx, "q", 2)
	if err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	lx, ly := laneOf(t, ctx, pool, x).id, laneOf(t, ctx, pool, y).id
	if lx == home {
		t.Fatalf("job %d went to lane %d, whose producer lock another session held", x, home)
	}
	if ly != lx {
		t.Fatalf("jobs %d and %d of one transaction went to lanes %d and %d; want one lane", x, y, lx, ly)
	}
	var lanes int
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM awa.queue_lanes WHERE queue = 'q' AND priority = 2`).Scan(&lanes); err != nil || lanes != 2 {
		t.Fatalf("queue q has %d lanes at priority 2 (err %v); want 2: shard 1 added while shard 0 was held", lanes, err)
	}
	var own int32 // a new transaction starts at shard (pid mod lanes)
	if err := pool.QueryRow(ctx, `SELECT lane_id FROM awa.queue_lanes WHERE queue = 'q' AND priority = 2 AND shard = $1 % 2`,
		int32(c.PgConn().PID())).Scan(&own); err != nil {
		t.Fatal(err)
	}
	z, err := insertOne(ctx, c, "q", 2)
	if err != nil {
		t.Fatal(err)
	}
	if lz := laneOf(t, ctx, pool, z).id; lz != own {
		t.Fatalf("the next transaction's job %d went to lane %d; want its own shard's lane %d", z, lz, own)
	}
}

// TestLaneCacheNeverOutlivesItsSchema: a session caches the lanes of the
// (queue, priority) it enqueued into (awa._append_ready). When the schema is
// dropped and installed again (goose down to 0, then up) while the session
// stays open, lane ids start over and the sequences are new: the session's
// next insert must use the new lanes, not the cached ones.
func TestLaneCacheNeverOutlivesItsSchema(t *testing.T) {
	ctx := pgtest.Context(t, 60*time.Second)
	dsn := pgtest.NewDBDSN(t)
	pool, err := pgxpool.New(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	session := connect(t, ctx, pool)
	if _, err := insertOne(ctx, session, "other", 2); err != nil { // lane ids 1..32 go to "other"
		t.Fatal(err)
	}
	if _, err := insertOne(ctx, session, "q", 2); err != nil { // cached: lanes 33..64
		t.Fatal(err)
	}

	p, closeDB, err := pgtest.OpenProvider(dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer closeDB()
	if _, err := p.DownTo(ctx, 0); err != nil {
		t.Fatalf("down-to 0: %v", err)
	}
	if _, err := p.Up(ctx); err != nil {
		t.Fatalf("up: %v", err)
	}

	id, err := insertOne(ctx, session, "q", 2) // "q" is now the first queue: lanes 1..32
	if err != nil {
		t.Fatalf("insert from the session that cached the old lanes: %v", describeErr(err))
	}
	if l := laneOf(t, ctx, pool, id); l.queue != "q" || l.priority != 2 {
		t.Fatalf("job %d went to a lane of (%q, %d), want (q, 2)", id, l.queue, l.priority)
	}
}

// TestLaneCacheFollowsAShardCountChange: a session that cached a queue's 8
// shard lanes keeps using them for at most 5 seconds after enqueue_shards
// drops to 1; then its jobs go to shard 0. (The 8 lanes are added up front, as
// concurrent producers would add them.)
func TestLaneCacheFollowsAShardCountChange(t *testing.T) {
	ctx, pool := newDB(t, 60*time.Second)
	if _, err := pool.Exec(ctx, `SELECT awa._add_lane('q', 2::smallint, 8) FROM generate_series(1, 8)`); err != nil {
		t.Fatal(err)
	}
	var session *pgx.Conn
	for session == nil { // a session whose own shard is not 0, so the cache shows
		c := connect(t, ctx, pool)
		if c.PgConn().PID()%8 != 0 {
			session = c
		}
	}
	first, err := insertOne(ctx, session, "q", 2)
	if err != nil {
		t.Fatal(err)
	}
	home := int16(session.PgConn().PID() % 8)
	if s := laneOf(t, ctx, pool, first).shard; s != home {
		t.Fatalf("first job in shard %d, want the session's own shard %d", s, home)
	}
	configureShards(t, ctx, pool, "q", 1)
	cached, err := insertOne(ctx, session, "q", 2)
	if err != nil {
		t.Fatal(err)
	}
	if s := laneOf(t, ctx, pool, cached).shard; s != home {
		t.Logf("job inserted right after the change went to shard %d (cache already expired)", s)
	}
	time.Sleep(5200 * time.Millisecond)
	later, err := insertOne(ctx, session, "q", 2)
	if err != nil {
		t.Fatal(err)
	}
	if s := laneOf(t, ctx, pool, later).shard; s != 0 {
		t.Fatalf("job inserted 5 s after enqueue_shards became 1 went to shard %d, want 0", s)
	}
}
