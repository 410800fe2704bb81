package sqlrace

import (
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// TestConcurrentProducersKeepLaneOrder: four producers, each on its own
// connection, insert into the four priorities of one queue in small
// transactions (one insert_jobs call with mixed priorities, or one insert_job),
// holding each transaction open a little and rolling back about one in
// four on purpose, while one claimer claims and completes. The lanes do not
// exist at the start, so the first producers also race lane creation (see
// TestSingleInsertTransactionsDoNotDeadlockOnLaneCreation). It runs with one
// enqueue shard (one lane per priority: producers take turns) and with eight
// (producers spread over the shard lanes of a priority). Asserts:
//   - no committed job is lost: each is claimed exactly once;
//   - no rolled-back job ever appears (in a claim or in awa.jobs);
//   - lane order: the jobs of one producer in one lane are claimed in the order
//     they were inserted, and, lane by lane, the claimer receives lane
//     positions in increasing order;
//   - the jobs of one transaction for one priority share one lane;
//   - rows of one claim call come highest priority first;
//   - at the end the queue shows nothing available (rolled-back positions were
//     passed) or running, and every committed job completed.
func TestConcurrentProducersKeepLaneOrder(t *testing.T) {
	for _, shards := range []int{1, 8} {
		t.Run(fmt.Sprintf("enqueue_shards=%d", shards), func(t *testing.T) {
			concurrentProducersKeepLaneOrder(t, shards)
		})
	}
}

func concurrentProducersKeepLaneOrder(t *testing.T, shards int) {
	const (
		queue     = "q"
		producers = 4
		txPerProd = 60
		perClaim  = 7 // cuts across producer transactions
	)
	ctx, pool := newDB(t, 60*time.Second)
	if _, err := pool.Exec(ctx, `SELECT awa.configure_queue($1, jsonb_build_object('enqueue_shards', $2::int))`,
		queue, shards); err != nil {
		t.Fatal(err)
	}

	type job struct {
		id       int64
		priority int32
		tx       int // the producer's transaction number
	}
	type producer struct {
		conn       *pgx.Conn
		seed       uint64
		committed  []job // in insert order
		rolledBack []int64
	}
	prods := make([]*producer, producers)
	for i := range prods {
		prods[i] = &producer{conn: connect(t, ctx, pool), seed: uint64(time.Now().UnixNano()) + uint64(i)}
		t.Logf("producer %d seed %d", i, prods[i].seed)
	}
	claimConn := connect(t, ctx, pool)

	runCtx, cancel, fail := withErrOnce(ctx)
	defer cancel()
	var producing atomic.Int32
	producing.Store(producers)
	var wg sync.WaitGroup

	for pi, p := range prods {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer producing.Add(-1)
			rng := rand.New(rand.NewPCG(p.seed, 1))
			for n := 0; n < txPerProd && runCtx.Err() == nil; n++ {
				var jobs []job
				tx, err := p.conn.Begin(runCtx)
				if err != nil {
					fail.set("producer %d: begin: %v", pi, err)
					return
				}
				// One insert call per transaction: either awa.insert_jobs with
				// mixed priorities or one awa.insert_job. (Several insert calls
				// in one transaction can deadlock on the lane locks; see
				// TestProducerTransactionsWithSeveralInsertsDoNotDeadlock.)
				if rng.IntN(4) == 0 {
					prio := 1 + rng.Int32N(4)
					id, err := insertOne(runCtx, tx, queue, int(prio))
					if err != nil {
						fail.set("producer %d: insert_job: %v", pi, err)
						return
					}
					jobs = append(jobs, job{id, prio, n})
				} else {
					prios := make([]int32, 1+rng.IntN(8))
					for i := range prios {
						prios[i] = 1 + rng.Int32N(4)
					}
					ids, err := insertMixed(runCtx, tx, queue, prios)
					if err != nil || len(ids) != len(prios) {
						fail.set("producer %d: insert_jobs: %d ids for %d jobs, %v", pi, len(ids), len(prios), err)
						return
					}
					for i, id := range ids {
						jobs = append(jobs, job{id, prios[i], n})
					}
				}
				time.Sleep(time.Duration(rng.IntN(1500)) * time.Microsecond) // hold the lane locks
				if rng.IntN(4) == 0 {
					if err := tx.Rollback(runCtx); err != nil {
						fail.set("producer %d: rollback: %v", pi, err)
						return
					}
					for _, j := range jobs {
						p.rolledBack = append(p.rolledBack, j.id)
					}
					continue
				}
				if err := tx.Commit(runCtx); err != nil {
					fail.set("producer %d: commit: %v", pi, err)
					return
				}
				p.committed = append(p.committed, jobs...)
			}
		}()
	}

	// One claimer, so the order it receives jobs in is the claim order.
	var claimOrder []claimed
	var calls [][]claimed
	wg.Add(1)
	go func() {
		defer wg.Done()
		for runCtx.Err() == nil {
			done := producing.Load() == 0 // read before claiming: empty then means drained
			got, err := claim(runCtx, claimConn, queue, perClaim, nil)
			if err != nil {
				fail.set("claimer: claim_ready_runtime: %v", err)
				return
			}
			if len(got) == 0 {
				if done {
					return
				}
				time.Sleep(200 * time.Microsecond)
				continue
			}
			calls = append(calls, got)
			claimOrder = append(claimOrder, got...)
			if _, err := completeApplied(runCtx, claimConn, got); err != nil {
				fail.set("claimer: %v", err)
				return
			}
		}
	}()
	wg.Wait()
	if err := fail.get(); err != nil {
		t.Fatal(err)
	}

	pos := map[int64]int{} // job id -> index in claim order
	for i, c := range claimOrder {
		if prev, dup := pos[c.ID]; dup {
			t.Errorf("job %d claimed twice (claims #%d and #%d)", c.ID, prev, i)
		}
		pos[c.ID] = i
	}

	committedTotal, rolledTotal := 0, 0
	for pi, p := range prods {
		committedTotal += len(p.committed)
		rolledTotal += len(p.rolledBack)
		for _, id := range p.rolledBack {
			if i, ok := pos[id]; ok {
				t.Errorf("producer %d: rolled-back job %d was claimed (claim #%d)", pi, id, i)
			}
		}
		for _, j := range p.committed {
			if _, ok := pos[j.id]; !ok {
				t.Errorf("producer %d: committed job %d (priority %d) was never claimed", pi, j.id, j.priority)
			}
		}
	}
	if len(claimOrder) != committedTotal {
		t.Errorf("claimed %d jobs, producers committed %d", len(claimOrder), committedTotal)
	}
	t.Logf("%d jobs committed, %d rolled back, %d claim calls", committedTotal, rolledTotal, len(calls))
	if rolledTotal == 0 {
		t.Errorf("no transaction was rolled back: the test did not exercise rollbacks")
	}

	for n, call := range calls {
		for i := 1; i < len(call); i++ {
			if call[i].Priority < call[i-1].Priority {
				t.Errorf("claim call #%d returned priority %d (job %d) after priority %d (job %d): want highest priority first",
					n, call[i].Priority, call[i].ID, call[i-1].Priority, call[i-1].ID)
			}
		}
	}

	// Lane positions, straight from the ready rows: per lane the claimer must
	// have received strictly increasing positions.
	rows, err := pool.Query(ctx, `SELECT job_id, lane_id, lane_seq FROM awa.ready_entries WHERE queue = $1`, queue)
	if err != nil {
		t.Fatal(err)
	}
	type lanePos struct {
		lane int32
		seq  int64
	}
	where := map[int64]lanePos{}
	var id, seq int64
	var lane int32
	if _, err := pgx.ForEachRow(rows, []any{&id, &lane, &seq}, func() error {
		where[id] = lanePos{lane, seq}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	lastSeq := map[int32]int64{}
	for i, c := range claimOrder {
		lp, ok := where[c.ID]
		if !ok {
			t.Errorf("claimed job %d has no ready row", c.ID)
			continue
		}
		if lp.seq <= lastSeq[lp.lane] {
			t.Errorf("claim #%d: job %d at lane %d position %d came after position %d of the same lane",
				i, c.ID, lp.lane, lp.seq, lastSeq[lp.lane])
		}
		lastSeq[lp.lane] = lp.seq
	}
	lanesUsed := map[int32]bool{}
	for pi, p := range prods {
		last := map[int32]job{} // per lane: previous committed job of this producer
		type txPrio struct {
			tx   int
			prio int32
		}
		txLane := map[txPrio]int32{}
		for _, j := range p.committed {
			lp, ok := where[j.id]
			i, claimedOK := pos[j.id]
			if !ok || !claimedOK {
				continue // reported above
			}
			lanesUsed[lp.lane] = true
			if l, seen := txLane[txPrio{j.tx, j.priority}]; seen && l != lp.lane {
				t.Errorf("producer %d, transaction %d: priority-%d jobs in lanes %d and %d, want one lane",
					pi, j.tx, j.priority, l, lp.lane)
			}
			txLane[txPrio{j.tx, j.priority}] = lp.lane
			if prev, seen := last[lp.lane]; seen && pos[prev.id] > i {
				t.Errorf("producer %d, lane %d (priority %d): job %d inserted before job %d but claimed after it (claims #%d > #%d)",
					pi, lp.lane, j.priority, prev.id, j.id, pos[prev.id], i)
			}
			last[lp.lane] = j
		}
	}
	var lanes int
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM awa.queue_lanes WHERE queue = $1`, queue).Scan(&lanes); err != nil {
		t.Fatal(err)
	}
	if lanes < 4 || lanes > 4*shards {
		t.Errorf("queue %q has %d lanes, want 4 to %d (shard 0 of 4 priorities, more shards only as producers need them, at most %d each)",
			queue, lanes, 4*shards, shards)
	}
	t.Logf("%d lanes received jobs", len(lanesUsed))
	for pi, p := range prods {
		for _, id := range p.rolledBack {
			if _, ok := where[id]; ok {
				t.Errorf("producer %d: rolled-back job %d has a ready row", pi, id)
			}
		}
	}

	var rolledIDs []int64
	for _, p := range prods {
		rolledIDs = append(rolledIDs, p.rolledBack...)
	}
	var ghosts int64
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM awa.jobs WHERE id = ANY ($1)`, rolledIDs).Scan(&ghosts); err != nil {
		t.Fatal(err)
	}
	if ghosts != 0 {
		t.Errorf("awa.jobs shows %d rolled-back jobs", ghosts)
	}
	qc := queueCounts(t, ctx, pool, queue)
	if qc != (queueCount{Completed: int64(committedTotal)}) {
		t.Errorf("awa.queue_counts(%q) = %+v, want only completed = %d", queue, qc, committedTotal)
	}
}
