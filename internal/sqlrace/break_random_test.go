package sqlrace

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// TestAdversarialRunWithStaleProducersAndPartialCarries: for 12 s, on one
// queue with a single lane per priority (enqueue_shards 1, so producers queue
// on the lane lock and pick their ring slot before waiting):
//   - READ COMMITTED producers that sometimes keep their transaction open
//     (holding the lane) for up to 60 ms before committing, across rotations;
//   - REPEATABLE READ producers whose snapshot is taken (by reading
//     awa.jobs) up to 60 ms before they insert, so they may write into a slot
//     sealed, pruned or carried since;
//   - claimers, slower than the producers (a backlog builds up), that
//     complete, fail, retry or cancel what they claim, some late;
//   - an operator cancelling recent jobs (available or running);
//   - maintenance every 20 ms: rotate both rings, rescue stale claims after
//     300 ms (so rescue races slow finalizers), rescue expired deadlines,
//     promote, and prune the queue ring with carry_limit 7 (mostly partial
//     carries) and lock budgets of 5 to 50 ms.
//
// Then it drains. Every committed job must end exactly once (one terminal
// outcome among completed, cancelled, failed), none may be left, nothing
// may stay running, and the queue ring must have been pruned and carried
// while jobs raced.
func TestAdversarialRunWithStaleProducersAndPartialCarries(t *testing.T) {
	const queue = "adv"
	run := 12 * time.Second
	ctx, pool := newDB(t, 4*time.Minute)
	if _, err := pool.Exec(ctx, `SELECT awa.configure_queue($1, '{"enqueue_shards": 1}')`, queue); err != nil {
		t.Fatal(err)
	}
	m := &mixedLedger{inserted: map[int64]bool{}, ended: map[int64][]string{}}
	failCtx, failCancel, fail := withErrOnce(ctx)
	defer failCancel()
	check := func(ctx context.Context, who string, err error, expected ...string) bool {
		if err == nil {
			return true
		}
		if ctx.Err() != nil {
			return false
		}
		var pgErr *pgconn.PgError
		if errors.As(err, &pgErr) {
			for _, code := range expected {
				if pgErr.Code == code {
					return false
				}
			}
		}
		fail.set("%s: %v", who, err)
		return false
	}
	var outcomes sync.Map // "ring outcome" -> *atomic.Int64
	count := func(k string) {
		v, _ := outcomes.LoadOrStore(k, new(atomic.Int64))
		v.(*atomic.Int64).Add(1)
	}

	var stopProducing atomic.Bool
	var producers, others sync.WaitGroup
	for p := 0; p < 4; p++ {
		conn := connect(t, ctx, pool)
		rng := rand.New(rand.NewPCG(uint64(p), 11))
		level := pgx.ReadCommitted
		if p%2 == 1 {
			level = pgx.RepeatableRead
		}
		producers.Add(1)
		go func() {
			defer producers.Done()
			for failCtx.Err() == nil && !stopProducing.Load() {
				ids, err := advProduce(failCtx, conn, rng, queue, level)
				// 40001: a REPEATABLE READ insert racing lane creation
				// (documented); the transaction rolled back.
				if check(failCtx, fmt.Sprintf("producer %d (%s)", p, level), err, "40001") {
					m.insert(ids)
				}
				time.Sleep(time.Duration(rng.IntN(5)) * time.Millisecond)
			}
		}()
	}

	drainCtx, stopOthers := context.WithCancel(failCtx)
	defer stopOthers()
	var late sync.WaitGroup
	for c := 0; c < 2; c++ {
		goSession(t, ctx, pool, &others, func(conn *pgx.Conn) {
			rng := rand.New(rand.NewPCG(uint64(c), 12))
			for drainCtx.Err() == nil {
				// Slower than the producers while they run, so sealed
				// slots hold available jobs that prune must carry.
				if !stopProducing.Load() {
					time.Sleep(time.Duration(10+rng.IntN(10)) * time.Millisecond)
				}
				got, err := claim(drainCtx, conn, queue, 1+rng.IntN(2+8*boolInt(stopProducing.Load())), nil)
				if !check(drainCtx, fmt.Sprintf("claimer %d", c), err) || len(got) == 0 {
					time.Sleep(2 * time.Millisecond)
					continue
				}
				// One in 20 is finalized after the stale-claim rescue may have run.
				m.finalize(drainCtx, pool, conn, &late, rng, got, func(claimed) (time.Duration, bool) {
					if rng.IntN(20) != 0 {
						return 0, false
					}
					return time.Duration(200+rng.IntN(400)) * time.Millisecond, true
				}, check, fmt.Sprintf("claimer %d", c))
			}
		})
	}
	cancelRng := rand.New(rand.NewPCG(5, 13))
	repeatOnConn(t, ctx, drainCtx, pool, &others, 10*time.Millisecond, func(conn *pgx.Conn) {
		m.cancelRecent(drainCtx, conn, cancelRng, check, "cancel_job")
	})
	maintRng := rand.New(rand.NewPCG(6, 14))
	repeatOnConn(t, ctx, drainCtx, pool, &others, 20*time.Millisecond, func(conn *pgx.Conn) {
		_, err := conn.Exec(drainCtx, `SELECT count(*) FROM awa.promote_due_jobs(1000, now() + interval '1 day')`)
		check(drainCtx, "promote_due_jobs", err)
		m.rescue(drainCtx, conn, "300 milliseconds", check)
		for _, ring := range []string{"queue", "claim", "cursor"} {
			o, err := ringOp(drainCtx, conn, "rotate", ring)
			if check(drainCtx, "rotate "+ring, err) {
				count(ring + " " + o.Outcome)
			}
			o, err = pruneOp(drainCtx, conn, ring, 5+maintRng.IntN(46), 0, 7)
			if check(drainCtx, "prune "+ring, err) {
				count(ring + " " + o.Outcome)
			}
		}
	})

	select {
	case <-time.After(run):
	case <-failCtx.Done():
	}
	stopProducing.Store(true)
	producers.Wait()
	m.awaitDrained(failCtx, ctx, pool, fail)
	stopOthers()
	others.Wait()
	late.Wait()
	if err := fail.get(); err != nil {
		t.Fatal(err)
	}
	got := map[string]int64{}
	outcomes.Range(func(k, v any) bool { got[k.(string)] = v.(*atomic.Int64).Load(); return true })
	inserted, twice := m.summary()
	t.Logf("%d jobs committed, every one ended; outcomes %v; ring ops %v", inserted, m.byOutcome(), got)
	if len(twice) > 0 {
		t.Fatalf("%d jobs ended more than once, e.g. %v", len(twice), firstN(twice, 10))
	}
	if got["queue pruned"] == 0 || got["queue carried"] == 0 {
		t.Fatalf("the queue ring was never pruned or never carried while jobs raced: %v", got)
	}
	if c := queueCounts(t, ctx, pool, queue); c.Running != 0 || c.Available != 0 {
		t.Fatalf("after the drain: %+v; want nothing running or available", c)
	}
}

// advProduce inserts 1..5 jobs (one insert_jobs call) in one transaction at
// level; the snapshot is sometimes taken well before the insert, and the
// transaction sometimes stays open after it.
func advProduce(ctx context.Context, conn *pgx.Conn, rng *rand.Rand, queue string, level pgx.TxIsoLevel) ([]int64, error) {
	tx, err := conn.BeginTx(ctx, pgx.TxOptions{IsoLevel: level})
	if err != nil {
		return nil, err
	}
	defer func() { _ = tx.Rollback(context.Background()) }()
	if rng.IntN(2) == 0 {
		if _, err := tx.Exec(ctx, `SELECT count(*) FROM awa.ready_entries WHERE false`); err != nil {
			return nil, err
		}
		time.Sleep(time.Duration(rng.IntN(60)) * time.Millisecond)
	}
	prios := make([]int32, 1+rng.IntN(5))
	for i := range prios {
		prios[i] = int32(1 + rng.IntN(2))
	}
	ids, err := insertMixed(ctx, tx, queue, prios)
	if err != nil {
		return nil, err
	}
	if rng.IntN(3) == 0 {
		time.Sleep(time.Duration(rng.IntN(60)) * time.Millisecond)
	}
	return ids, tx.Commit(ctx)
}
