package sqlrace

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// advUniqueMasks: key k uses mask k%3: the non-terminal states only; with
// completed and cancelled; with every terminal state (a DLQ job counts as
// failed).
var advUniqueMasks = []string{
	`{"by_args": ["k"]}`,
	`{"by_args": ["k"], "states": ["scheduled", "available", "running", "retryable", "waiting_external", "completed", "cancelled"]}`,
	`{"by_args": ["k"], "states": ["completed", "cancelled", "failed", "scheduled", "available", "running", "retryable", "waiting_external"]}`,
}

const advUniqueKeys = 9

func advHeld(k int) map[string]bool {
	held := map[string]bool{"scheduled": true, "available": true, "running": true, "retryable": true, "waiting_external": true}
	if k%3 >= 1 {
		held["completed"], held["cancelled"] = true, true
	}
	if k%3 == 2 {
		held["failed"] = true
	}
	return held
}

// advKeyOf is a job's key number in the adversary race, read from its tag
// (k=N): an erased job's args are gone.
const advKeyOf = `substr(tags[1], 3)::int`

func pgCode(err error) string {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		return pgErr.Code
	}
	return ""
}

// TestUniqueKeysHoldThroughTheDLQArchiveRescueSnoozeEraseAndEveryInsertPath
// attacks what the first unique race leaves out: a queue with the DLQ on and
// the archive keeping every terminal job (so completed, cancelled and failed
// masks count archived and DLQ jobs), producers on every insert path
// (awa.insert_unique_job, awa.insert_jobs with repeated keys in random order,
// the COPY stage at REPEATABLE READ, awa.insert_unique_jobs at SERIALIZABLE,
// and a producer that appends a plain job first and holds its transaction
// open while the rings turn), workers that complete, cancel, fail, retry,
// snooze or abandon (then rescued as stale), an operator that retries
// (ring, archive and DLQ), purges the DLQ and erases, and maintenance that
// promotes, rotates and prunes into the archive, drops archive cohorts and
// cleans unique keys. Never may two jobs of one key be in its states.
func TestUniqueKeysHoldThroughTheDLQArchiveRescueSnoozeEraseAndEveryInsertPath(t *testing.T) {
	ctx, pool := newDB(t, 3*time.Minute)
	const queue = "uniq_adv"
	runCtx, cancel, fail := withErrOnce(ctx)
	defer cancel()
	stopAt := time.Now().Add(10 * time.Second)
	var wg sync.WaitGroup
	var mu sync.Mutex
	stats := map[string]int{}
	bump := func(k string) { mu.Lock(); stats[k]++; mu.Unlock() }

	setup := connect(t, ctx, pool)
	for _, q := range []string{
		`SELECT awa.configure_queue('uniq_adv', '{"dlq": true}')`,
		`SELECT awa.configure_archive('{"completed_seconds": 3600, "cancelled_seconds": 3600, "failed_seconds": 3600}')`,
	} {
		if _, err := setup.Exec(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	request := func(rng *rand.Rand, n int) (keys []int, kinds, args, opts []string) {
		for i := 0; i < n; i++ {
			k := rng.IntN(advUniqueKeys)
			keys = append(keys, k)
			kinds = append(kinds, "u")
			args = append(args, fmt.Sprintf(`{"k": %d, "noise": %d}`, k, rng.IntN(1000)))
			opts = append(opts, fmt.Sprintf(`{"queue": %q, "max_attempts": 2, "tags": ["k=%d"], "unique": %s}`, queue, k, advUniqueMasks[k%3]))
		}
		return
	}
	produce := func(name string, level pgx.TxIsoLevel, body func(tx pgx.Tx, rng *rand.Rand) error) {
		goSession(t, ctx, pool, &wg, func(conn *pgx.Conn) {
			rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), uint64(len(name))))
			for time.Now().Before(stopAt) && runCtx.Err() == nil {
				err := pgx.BeginTxFunc(runCtx, conn, pgx.TxOptions{IsoLevel: level}, func(tx pgx.Tx) error { return body(tx, rng) })
				switch {
				case err == nil:
					bump(name)
				case isRetryable(err):
					bump(name + " " + pgCode(err))
				case runCtx.Err() != nil:
					return
				default:
					fail.set("%s: %v", name, err)
					return
				}
			}
		})
	}
	produce("insert_unique_job", pgx.ReadCommitted, func(tx pgx.Tx, rng *rand.Rand) error {
		_, kinds, args, opts := request(rng, 1)
		_, err := tx.Exec(runCtx, `SELECT * FROM awa.insert_unique_job($1, $2::jsonb, $3::jsonb)`, kinds[0], args[0], opts[0])
		return err
	})
	produce("insert_jobs", pgx.ReadCommitted, func(tx pgx.Tx, rng *rand.Rand) error {
		_, kinds, args, opts := request(rng, 2+rng.IntN(4))
		_, err := tx.Exec(runCtx, `SELECT * FROM awa.insert_jobs($1::text[], $2::jsonb[], $3::jsonb[])`, kinds, args, opts)
		return err
	})
	produce("copy stage", pgx.RepeatableRead, func(tx pgx.Tx, rng *rand.Rand) error {
		_, kinds, args, opts := request(rng, 1+rng.IntN(4))
		if _, err := tx.Exec(runCtx, `SELECT awa.open_job_stage()`); err != nil {
			return err
		}
		if _, err := tx.CopyFrom(runCtx, pgx.Identifier{"pg_temp", "awa_job_stage"}, []string{"kind", "args", "opts"},
			pgx.CopyFromSlice(len(kinds), func(i int) ([]any, error) { return []any{kinds[i], args[i], opts[i]}, nil })); err != nil {
			return err
		}
		_, err := tx.Exec(runCtx, `SELECT * FROM awa.insert_staged_unique_jobs()`)
		return err
	})
	produce("insert_unique_jobs", pgx.Serializable, func(tx pgx.Tx, rng *rand.Rand) error {
		_, kinds, args, opts := request(rng, 1+rng.IntN(3))
		_, err := tx.Exec(runCtx, `SELECT * FROM awa.insert_unique_jobs($1::text[], $2::jsonb[], $3::jsonb[])`, kinds, args, opts)
		return err
	})
	produce("plain then unique, held open", pgx.ReadCommitted, func(tx pgx.Tx, rng *rand.Rand) error {
		if _, err := tx.Exec(runCtx, `SELECT * FROM awa.insert_job('p', '{"k": -1}', '{"queue": "uniq_adv_plain"}')`); err != nil {
			return err
		}
		time.Sleep(time.Duration(rng.IntN(30)) * time.Millisecond)
		_, kinds, args, opts := request(rng, 1)
		if _, err := tx.Exec(runCtx, `SELECT * FROM awa.insert_job($1, $2::jsonb, $3::jsonb)`, kinds[0], args[0], opts[0]); err != nil {
			return err
		}
		time.Sleep(time.Duration(rng.IntN(30)) * time.Millisecond)
		return nil
	})

	goUniqueWorkers(t, ctx, runCtx, pool, &wg, fail, stopAt, queue,
		[]string{"complete", "complete", "cancel", "fail", "retry", "snooze", "abandon"}, bump)

	goSession(t, ctx, pool, &wg, func(conn *pgx.Conn) {
		rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 77))
		for time.Now().Before(stopAt) && runCtx.Err() == nil {
			var id int64
			var dlq bool
			err := conn.QueryRow(runCtx, `SELECT id, dlq FROM awa.jobs WHERE queue = $1 AND state IN ('failed', 'cancelled')
				ORDER BY random() LIMIT 1`, queue).Scan(&id, &dlq)
			if errors.Is(err, pgx.ErrNoRows) {
				time.Sleep(10 * time.Millisecond)
				continue
			}
			if err != nil {
				fail.set("pick a terminal job: %v", err)
				return
			}
			op := []string{"retry_job", "retry_job", "retry_dlq_job", "purge", "erase"}[rng.IntN(5)]
			var q string
			switch op {
			case "retry_job":
				q = `SELECT * FROM awa.retry_job($1)`
			case "retry_dlq_job":
				q = `SELECT * FROM awa.retry_dlq_job($1)`
			case "purge":
				q = `SELECT * FROM awa.purge_dlq(p_job_ids => ARRAY[$1::bigint])`
			case "erase":
				q = `SELECT * FROM awa.erase_job($1)`
			}
			_, err = conn.Exec(runCtx, q, id)
			switch code := pgCode(err); {
			case err == nil:
				bump("operator " + op)
			case code == "AW020" || code == "AW021":
				bump("operator " + op + " refused")
			case runCtx.Err() != nil:
				return
			default:
				fail.set("%s of job %d (dlq %v): %v", op, id, dlq, err)
				return
			}
			time.Sleep(5 * time.Millisecond)
		}
	})

	goSession(t, ctx, pool, &wg, func(conn *pgx.Conn) {
		rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 88))
		for time.Now().Before(stopAt) && runCtx.Err() == nil {
			steps := []string{
				`SELECT * FROM awa.promote_due_jobs(p_now => now() + interval '1 hour')`,
				`SELECT * FROM awa.rescue_stale_claims(interval '1 second', 1000, now() + interval '2 seconds')`,
				`SELECT * FROM awa.cleanup_unique_keys(100)`,
			}
			if rng.IntN(4) == 0 {
				steps = append(steps, `SELECT * FROM awa.maintain_archive(50, 16, now() + interval '3 hours')`)
			}
			for _, s := range steps {
				if _, err := conn.Exec(runCtx, s); err != nil && runCtx.Err() == nil {
					fail.set("%s: %v", s, err)
					return
				}
			}
			for _, ring := range []string{"queue", "claim", "cursor", "lease"} {
				if _, err := ringOp(runCtx, conn, "rotate", ring); err != nil && runCtx.Err() == nil {
					fail.set("rotate %s: %v", ring, err)
					return
				}
				o, err := ringOp(runCtx, conn, "prune", ring)
				if err != nil && runCtx.Err() == nil {
					fail.set("prune %s: %v", ring, err)
					return
				}
				if ring == "queue" && o.Outcome == "pruned" {
					bump("queue prune")
				}
			}
			bump("maintenance")
			time.Sleep(10 * time.Millisecond)
		}
	})

	goUniqueSampler(t, ctx, runCtx, pool, &wg, fail, stopAt, queue, advKeyOf, advHeld, bump)

	wg.Wait()
	if err := fail.get(); err != nil {
		t.Fatalf("%v (stats %v)", err, stats)
	}
	requireOneHolderPerKey(t, ctx, setup, queue, advKeyOf, advHeld)
	t.Logf("unique adversary: %v", stats)
	for _, need := range []string{"insert_unique_job", "insert_jobs", "copy stage", "insert_unique_jobs",
		"plain then unique, held open", "complete", "operator retry_job", "queue prune", "sample"} {
		if stats[need] == 0 {
			t.Fatalf("the race never did %q: %v", need, stats)
		}
	}
}
