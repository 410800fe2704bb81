package sqlrace

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// Job ids come in blocks of 1,024 (docs/storage.md, "Job ids"): a call of
// several jobs takes fresh blocks, a transaction's single inserts share one.
// These tests race producers of every kind to check that no id is ever given
// to two jobs and that every committed job is there under the id it got.

// idJob is one job a producer inserted: its key (args {"key": ...}) and id.
type idJob struct {
	key string
	id  int64
}

// Several producer sessions at one isolation level insert at once, each
// transaction a random mix of single inserts (awa.insert_job), calls of one
// and of up to 2,500 jobs (awa.insert_jobs, so up to three blocks), inserts
// inside savepoints rolled back, and whole transactions rolled back. After
// they stop: every id returned by a committed insert is distinct, each names
// exactly its job in awa.jobs, and nothing else is there (no rolled-back job
// appears, none committed is lost); within a transaction ids ascend in call
// order, and consecutive single inserts take consecutive ids unless a block
// ended between them.
func TestProducersAtEveryLevelGetDistinctIDsAndLoseNoJob(t *testing.T) {
	for _, level := range isoLevels {
		t.Run(levelName(level), func(t *testing.T) {
			const queue, producers = "ids", 4
			ctx, pool := newDB(t, 90*time.Second)
			warmQueue(t, ctx, pool, queue) // the lanes exist: no producer creates them
			var before int
			if err := pool.QueryRow(ctx, `SELECT count(*) FROM awa.jobs WHERE queue = $1`, queue).Scan(&before); err != nil {
				t.Fatal(err)
			}

			runCtx, stop := context.WithTimeout(ctx, 3*time.Second)
			defer stop()
			failCtx, cancelAll, e := withErrOnce(ctx)
			defer cancelAll()
			var (
				mu        sync.Mutex
				committed []idJob
				txs       [][]idJob // each committed transaction's jobs, in call order
				singles   [][2]idJob
				retries   int
				wg        sync.WaitGroup
			)
			for p := 0; p < producers; p++ {
				goSession(t, ctx, pool, &wg, func(conn *pgx.Conn) {
					rng := rand.New(rand.NewPCG(uint64(p), uint64(time.Now().UnixNano())))
					for n := 0; runCtx.Err() == nil && failCtx.Err() == nil; n++ {
						jobs, pairs, rollBack, err := produceIDTx(failCtx, conn, level, rng, queue, fmt.Sprintf("%d.%d", p, n))
						var pgErr *pgconn.PgError
						switch {
						case errors.As(err, &pgErr) && pgErr.Code == "40001":
							mu.Lock()
							retries++
							mu.Unlock()
							continue
						case err != nil:
							if failCtx.Err() == nil {
								e.set("producer %d, transaction %d at %s: %v", p, n, levelName(level), err)
							}
							return
						case rollBack:
							continue
						}
						mu.Lock()
						committed = append(committed, jobs...)
						txs = append(txs, jobs)
						singles = append(singles, pairs...)
						mu.Unlock()
					}
				})
			}
			wg.Wait()
			if err := e.get(); err != nil {
				t.Fatal(err)
			}

			byID := map[int64]string{}
			for _, j := range committed {
				if k, ok := byID[j.id]; ok {
					t.Fatalf("id %d given to two committed jobs: %s and %s", j.id, k, j.key)
				}
				byID[j.id] = j.key
			}
			rows, err := pool.Query(ctx, `SELECT id, args ->> 'key' FROM awa.jobs WHERE queue = $1 AND args ? 'key'`, queue)
			if err != nil {
				t.Fatal(err)
			}
			stored := map[int64]string{}
			for rows.Next() {
				var id int64
				var key string
				if err := rows.Scan(&id, &key); err != nil {
					t.Fatal(err)
				}
				if _, ok := stored[id]; ok {
					t.Fatalf("awa.jobs shows id %d twice", id)
				}
				stored[id] = key
			}
			if err := rows.Err(); err != nil {
				t.Fatal(err)
			}
			var total int
			if err := pool.QueryRow(ctx, `SELECT count(*) FROM awa.jobs WHERE queue = $1`, queue).Scan(&total); err != nil {
				t.Fatal(err)
			}
			if total != before+len(committed) || len(stored) != len(committed) {
				t.Fatalf("awa.jobs holds %d jobs of the producers (%d in all), want the %d committed", len(stored),
					total-before, len(committed))
			}
			for id, key := range byID {
				if stored[id] != key {
					t.Fatalf("job %s got id %d, but awa.jobs shows %q under it", key, id, stored[id])
				}
			}
			for _, tx := range txs {
				for i := 1; i < len(tx); i++ {
					if tx[i].id <= tx[i-1].id {
						t.Fatalf("in one transaction %s got id %d after %s's %d", tx[i].key, tx[i].id, tx[i-1].key, tx[i-1].id)
					}
				}
			}
			for _, s := range singles {
				if s[1].id != s[0].id+1 && s[0].id%1024 != 0 {
					t.Fatalf("single inserts %s and %s of one transaction got ids %d and %d: want consecutive ids of a block",
						s[0].key, s[1].key, s[0].id, s[1].id)
				}
			}
			t.Logf("%s: %d jobs committed in %d transactions (%d pairs of single inserts), %d retried on 40001",
				levelName(level), len(committed), len(txs), len(singles), retries)
		})
	}
}

// produceIDTx runs one producer transaction at level: 1 to 4 steps, each a
// single insert, a call of one, a call of 2 to 41 or of 2 to 2,500 jobs, or a
// single insert in a savepoint rolled back; a tenth of the transactions roll back whole.
// It returns the jobs of the steps that stand, in call order, the pairs of
// single inserts with nothing between them (within a block their ids are
// consecutive), and whether it rolled back.
func produceIDTx(ctx context.Context, conn *pgx.Conn, level pgx.TxIsoLevel, rng *rand.Rand, queue, name string) (
	jobs []idJob, singles [][2]idJob, rollBack bool, err error) {
	tx, err := conn.BeginTx(ctx, pgx.TxOptions{IsoLevel: level})
	if err != nil {
		return nil, nil, false, err
	}
	defer func() { _ = tx.Rollback(context.Background()) }()
	single := func(key string) (idJob, error) {
		var id int64
		err := tx.QueryRow(ctx, `SELECT id FROM awa.insert_job('ids.k', jsonb_build_object('key', $1::text),
		                                                      jsonb_build_object('queue', $2::text))`, key, queue).Scan(&id)
		return idJob{key, id}, err
	}
	lastSingle := false
	for s, steps := 0, 1+rng.IntN(4); s < steps; s++ {
		key := fmt.Sprintf("%s.%d", name, s)
		switch r := rng.IntN(10); {
		case r < 5:
			j, err := single(key)
			if err != nil {
				return nil, nil, false, err
			}
			if lastSingle {
				singles = append(singles, [2]idJob{jobs[len(jobs)-1], j})
			}
			jobs, lastSingle = append(jobs, j), true
		case r < 6: // a single insert rolled back to its savepoint
			if _, err := tx.Exec(ctx, `SAVEPOINT gone`); err != nil {
				return nil, nil, false, err
			}
			if _, err := single(key + ".gone"); err != nil {
				return nil, nil, false, err
			}
			if _, err := tx.Exec(ctx, `ROLLBACK TO SAVEPOINT gone`); err != nil {
				return nil, nil, false, err
			}
		default: // a call of one job, of a few, or of up to 2,500 (three blocks)
			n := 1
			switch {
			case r == 9:
				n = 2 + rng.IntN(2499)
			case r >= 7:
				n = 2 + rng.IntN(40)
			}
			rows, err := tx.Query(ctx, `
				SELECT i.id
				FROM awa.insert_jobs(array_fill('ids.k'::text, ARRAY[$2::int]),
				                     ARRAY(SELECT jsonb_build_object('key', $1::text || '.' || g) FROM generate_series(1, $2::int) g),
				                     array_fill(jsonb_build_object('queue', $3::text), ARRAY[$2::int])) AS i`, key, n, queue)
			if err != nil {
				return nil, nil, false, err
			}
			ids, err := pgx.CollectRows(rows, pgx.RowTo[int64])
			if err != nil {
				return nil, nil, false, err
			}
			for g, id := range ids {
				jobs = append(jobs, idJob{fmt.Sprintf("%s.%d", key, g+1), id})
			}
			if n == 1 && lastSingle { // a call of one is a single insert
				singles = append(singles, [2]idJob{jobs[len(jobs)-2], jobs[len(jobs)-1]})
			}
			lastSingle = n == 1
		}
	}
	if rng.IntN(10) == 0 {
		return nil, nil, true, tx.Rollback(ctx)
	}
	return jobs, singles, false, tx.Commit(ctx)
}

// A transaction that inserts one job and commits leaves the rest of its
// block: the session's next transaction draws a new block, above it. Both
// start at 1 mod 1,024.
func TestAOneJobTransactionsNextTransactionTakesANewBlock(t *testing.T) {
	ctx, pool := newDB(t, 30*time.Second)
	conn := connect(t, ctx, pool)
	var ids []int64
	for i := 0; i < 3; i++ {
		tx := mustBegin(t, ctx, conn)
		id, err := insertOne(ctx, tx, "next", 2)
		if err != nil {
			t.Fatal(err)
		}
		if err := tx.Commit(ctx); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	id, err := insertOne(ctx, conn, "next", 2) // a transaction of its own (autocommit)
	if err != nil {
		t.Fatal(err)
	}
	ids = append(ids, id)
	for i, id := range ids {
		if id%1024 != 1 || (i > 0 && id < ids[i-1]+1024) {
			t.Fatalf("one-job transactions got ids %v; want each a new block's first id (1 mod 1024), each above the last block", ids)
		}
	}
}
