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
	"github.com/jackc/pgx/v5/pgxpool"
)

// uniqueMasks are the two kinds of key of the unique race: keys k0..k2 hold
// in the default states (every non-terminal one), keys k3..k5 also while the
// job is completed or cancelled (as long as history keeps it).
var uniqueMasks = map[bool]string{
	false: `{"by_args": true}`,
	true:  `{"by_args": true, "states": ["scheduled", "available", "running", "retryable", "waiting_external", "completed", "cancelled"]}`,
}

const uniqueKeys = 6

// uniqueKeyOf is a job's key number in the unique race: its arg k.
const uniqueKeyOf = `(args ->> 'k')::int`

// uniqueHeldStates are the states that hold key k's job.
func uniqueHeldStates(k int) map[string]bool {
	held := map[string]bool{"scheduled": true, "available": true, "running": true, "retryable": true, "waiting_external": true}
	if k >= uniqueKeys/2 {
		held["completed"], held["cancelled"] = true, true
	}
	return held
}

// uniqueViolations reads the queue's jobs in one statement (one snapshot)
// and returns a line per key that has more than one job in the states that
// hold it. keyOf is the SQL expression of a job's key number (a column of
// awa.jobs); held gives the states that hold key k.
func uniqueViolations(ctx context.Context, q rowQuerier, queue, keyOf string, held func(k int) map[string]bool) ([]string, error) {
	rows, err := q.Query(ctx, `SELECT `+keyOf+`, id, state::text, dlq FROM awa.jobs WHERE queue = $1`, queue)
	if err != nil {
		return nil, err
	}
	holders := map[int][]string{}
	var k int
	var id int64
	var state string
	var dlq bool
	_, err = pgx.ForEachRow(rows, []any{&k, &id, &state, &dlq}, func() error {
		if held(k)[state] {
			holders[k] = append(holders[k], fmt.Sprintf("%d:%s(dlq %v)", id, state, dlq))
		}
		return nil
	})
	var out []string
	for key, jobs := range holders {
		if len(jobs) > 1 {
			out = append(out, fmt.Sprintf("key k%d held by %v", key, jobs))
		}
	}
	return out, err
}

// goUniqueSampler starts a session that checks every 50 ms, until stopAt,
// that no key of queue has two jobs in its states (uniqueViolations).
func goUniqueSampler(t *testing.T, ctx, runCtx context.Context, pool *pgxpool.Pool, wg *sync.WaitGroup, fail *errOnce,
	stopAt time.Time, queue, keyOf string, held func(k int) map[string]bool, bump func(string)) {
	goSession(t, ctx, pool, wg, func(conn *pgx.Conn) {
		for time.Now().Before(stopAt) && runCtx.Err() == nil {
			bad, err := uniqueViolations(runCtx, conn, queue, keyOf, held)
			if err != nil && runCtx.Err() == nil {
				fail.set("sample: %v", err)
				return
			}
			if len(bad) > 0 {
				fail.set("sampled two jobs of one key in its states: %v", bad)
				return
			}
			bump("sample")
			time.Sleep(50 * time.Millisecond)
		}
	})
}

// requireOneHolderPerKey fails the test when a key of queue has two jobs in
// its states now.
func requireOneHolderPerKey(t *testing.T, ctx context.Context, q rowQuerier, queue, keyOf string, held func(k int) map[string]bool) {
	t.Helper()
	bad, err := uniqueViolations(ctx, q, queue, keyOf, held)
	if err != nil {
		t.Fatal(err)
	}
	if len(bad) > 0 {
		t.Fatalf("at the end, two jobs of one key in its states: %v", bad)
	}
}

// goUniqueWorkers starts two workers that claim up to 4 jobs of queue at a
// time and end them with an action drawn from actions (finalizeAs;
// "abandon" leaves the attempt open, for a rescue), counting each action.
func goUniqueWorkers(t *testing.T, ctx, runCtx context.Context, pool *pgxpool.Pool, wg *sync.WaitGroup, fail *errOnce,
	stopAt time.Time, queue string, actions []string, bump func(string)) {
	for w := 0; w < 2; w++ {
		goSession(t, ctx, pool, wg, func(conn *pgx.Conn) {
			rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), uint64(w+10)))
			for time.Now().Before(stopAt) && runCtx.Err() == nil {
				cs, err := claim(runCtx, conn, queue, 4, nil)
				if err != nil {
					fail.set("claim: %v", err)
					return
				}
				if len(cs) == 0 {
					time.Sleep(5 * time.Millisecond)
					continue
				}
				time.Sleep(time.Duration(rng.IntN(10)) * time.Millisecond)
				action := actions[rng.IntN(len(actions))]
				if action != "abandon" {
					if _, err := finalizeAs(runCtx, conn, action, cs); err != nil {
						fail.set("%s: %v", action, err)
						return
					}
				}
				bump(action)
			}
		})
	}
}

func isRetryable(err error) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && (pgErr.Code == "40001" || pgErr.Code == "40P01")
}

// TestUniqueKeysHoldOneJobAtEveryIsolationLevelUnderWorkersAndMaintenance runs
// four producers, two at READ COMMITTED (two of them may race for a released
// key), one at REPEATABLE READ and one at SERIALIZABLE, that
// insert batches of unique jobs over a few keys (a batch may repeat a key),
// two workers that claim them and complete, cancel, fail or retry them, an
// operator that retries failed and cancelled jobs (refused with AW021 while
// another job holds the key), a maintenance session that promotes retried
// jobs and rotates and prunes the rings (history then drops completed jobs:
// retention 0), and a sampler. Never may two jobs of one key be in the
// states that hold it: the sampler checks every 50 ms, and the end checks
// again. Every insert gets a job or a duplicate (retrying its transaction on
// 40001), and a duplicate names a job of its own key.
func TestUniqueKeysHoldOneJobAtEveryIsolationLevelUnderWorkersAndMaintenance(t *testing.T) {
	ctx, pool := newDB(t, 3*time.Minute)
	const queue = "uniq_race"
	runCtx, cancel, fail := withErrOnce(ctx)
	defer cancel()
	stopAt := time.Now().Add(8 * time.Second)
	var wg sync.WaitGroup
	var mu sync.Mutex
	keyOf := map[int64]int{} // new job -> its key
	var dups []struct {
		id  int64
		key int
	}
	stats := map[string]int{}
	bump := func(k string) { mu.Lock(); stats[k]++; mu.Unlock() }

	setup := connect(t, ctx, pool)
	if _, err := setup.Exec(ctx, `SELECT awa.configure_archive('{"completed_seconds": 0, "cancelled_seconds": 0, "failed_seconds": 0}')`); err != nil {
		t.Fatal(err)
	}

	for p, level := range []pgx.TxIsoLevel{pgx.ReadCommitted, pgx.ReadCommitted, pgx.RepeatableRead, pgx.Serializable} {
		goSession(t, ctx, pool, &wg, func(conn *pgx.Conn) {
			rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), uint64(p+1)))
			for time.Now().Before(stopAt) && runCtx.Err() == nil {
				n := 1 + rng.IntN(3)
				keys := make([]int, n)
				kinds, args, opts := make([]string, n), make([]string, n), make([]string, n)
				for i := range keys {
					keys[i] = rng.IntN(uniqueKeys)
					kinds[i], args[i] = "u", fmt.Sprintf(`{"k": %d}`, keys[i])
					opts[i] = fmt.Sprintf(`{"queue": %q, "unique": %s}`, queue, uniqueMasks[keys[i] >= uniqueKeys/2])
				}
				type out struct {
					id  int64
					dup bool
				}
				var got []out
				err := pgx.BeginTxFunc(runCtx, conn, pgx.TxOptions{IsoLevel: level}, func(tx pgx.Tx) error {
					rows, err := tx.Query(runCtx, `SELECT id, duplicate FROM awa.insert_unique_jobs($1::text[], $2::jsonb[], $3::jsonb[])`,
						kinds, args, opts)
					if err != nil {
						return err
					}
					got, err = pgx.CollectRows(rows, func(r pgx.CollectableRow) (out, error) {
						var o out
						return o, r.Scan(&o.id, &o.dup)
					})
					return err
				})
				if isRetryable(err) {
					bump(fmt.Sprintf("retry %s", level))
					continue
				}
				if err != nil {
					fail.set("insert at %s: %v", level, err)
					return
				}
				if len(got) != n {
					fail.set("insert at %s: %d rows for %d jobs", level, len(got), n)
					return
				}
				mu.Lock()
				for i, o := range got {
					if o.dup {
						dups = append(dups, struct {
							id  int64
							key int
						}{o.id, keys[i]})
						stats["duplicate"]++
					} else {
						keyOf[o.id] = keys[i]
						stats["new"]++
					}
				}
				mu.Unlock()
			}
		})
	}

	goUniqueWorkers(t, ctx, runCtx, pool, &wg, fail, stopAt, queue, []string{"complete", "complete", "cancel", "fail", "retry"}, bump)

	goSession(t, ctx, pool, &wg, func(conn *pgx.Conn) {
		rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 99))
		for time.Now().Before(stopAt) && runCtx.Err() == nil {
			var ids []int64
			rows, err := conn.Query(runCtx, `SELECT id FROM awa.jobs WHERE queue = $1 AND state IN ('failed', 'cancelled')`, queue)
			if err == nil {
				ids, err = pgx.CollectRows(rows, pgx.RowTo[int64])
			}
			if err != nil {
				fail.set("list terminal jobs: %v", err)
				return
			}
			if len(ids) > 0 {
				_, err := conn.Exec(runCtx, `SELECT * FROM awa.retry_job($1)`, ids[rng.IntN(len(ids))])
				var pgErr *pgconn.PgError
				switch {
				case err == nil:
					bump("operator retry")
				case errors.As(err, &pgErr) && (pgErr.Code == "AW021" || pgErr.Code == "AW020"):
					bump("operator retry refused")
				default:
					fail.set("retry_job: %v", err)
					return
				}
			}
			time.Sleep(20 * time.Millisecond)
		}
	})

	goSession(t, ctx, pool, &wg, func(conn *pgx.Conn) {
		for time.Now().Before(stopAt) && runCtx.Err() == nil {
			if _, err := conn.Exec(runCtx, `SELECT * FROM awa.promote_due_jobs()`); err != nil {
				fail.set("promote: %v", err)
				return
			}
			for _, ring := range []string{"queue", "claim", "cursor"} {
				if _, err := ringOp(runCtx, conn, "rotate", ring); err != nil {
					fail.set("rotate %s: %v", ring, err)
					return
				}
				o, err := ringOp(runCtx, conn, "prune", ring)
				if err != nil {
					fail.set("prune %s: %v", ring, err)
					return
				}
				if ring == "queue" && o.Outcome == "pruned" {
					bump("queue prune")
				}
			}
			time.Sleep(15 * time.Millisecond)
		}
	})

	goUniqueSampler(t, ctx, runCtx, pool, &wg, fail, stopAt, queue, uniqueKeyOf, uniqueHeldStates, bump)

	wg.Wait()
	if err := fail.get(); err != nil {
		t.Fatal(err)
	}
	requireOneHolderPerKey(t, ctx, setup, queue, uniqueKeyOf, uniqueHeldStates)
	for _, d := range dups {
		if k, ok := keyOf[d.id]; !ok || k != d.key {
			t.Fatalf("a duplicate of key k%d named job %d, a new job of key k%d (known: %v)", d.key, d.id, k, ok)
		}
	}
	t.Logf("unique race: %v", stats)
	if stats["new"] == 0 || stats["duplicate"] == 0 || stats["complete"] == 0 || stats["sample"] < 10 {
		t.Fatalf("the race did too little to tell: %v", stats)
	}
}
