package sqlrace

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

// The isolation contract (docs/storage.md, "Isolation levels"): inserts work
// at every level; every function that reads queue state to decide a write
// refuses a transaction that is not READ COMMITTED with AW040 and writes
// nothing. Each test below replays, with real sessions, an interleaving in
// which a snapshot taken before another session's commit used to make the
// call lose a job or apply twice, and checks both the refusal (REPEATABLE
// READ, SERIALIZABLE) and that at READ COMMITTED the same interleaving loses
// nothing and applies once.

var isoLevels = []pgx.TxIsoLevel{pgx.ReadCommitted, pgx.RepeatableRead, pgx.Serializable}

// levelName is a level as current_setting('transaction_isolation') spells it.
func levelName(l pgx.TxIsoLevel) string { return strings.ToLower(string(l)) }

// beginAt opens a transaction at level on conn and takes its snapshot (a
// read of an awa table), as an application transaction that already did some
// work would have.
func beginAt(t *testing.T, ctx context.Context, conn *pgx.Conn, level pgx.TxIsoLevel) pgx.Tx {
	t.Helper()
	tx, err := conn.BeginTx(ctx, pgx.TxOptions{IsoLevel: level})
	if err != nil {
		t.Fatalf("begin %s: %v", level, err)
	}
	if _, err := tx.Exec(ctx, `SELECT count(*) FROM awa.queue_claim_heads`); err != nil {
		t.Fatalf("snapshot: %v", err)
	}
	t.Cleanup(func() { _ = tx.Rollback(context.Background()) })
	return tx
}

func sqlState(err error) string {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		return pgErr.Code
	}
	return ""
}

// wantRefused fails unless err is AW040 naming fn and the level.
func wantRefused(t *testing.T, err error, fn string, level pgx.TxIsoLevel) {
	t.Helper()
	var pgErr *pgconn.PgError
	if !errors.As(err, &pgErr) || pgErr.Code != "AW040" {
		t.Fatalf("%s at %s: got %v, want AW040", fn, level, err)
	}
	if !strings.Contains(pgErr.Message, fn) || !strings.Contains(pgErr.Message, levelName(level)) {
		t.Fatalf("%s at %s: message %q does not name the function and the level", fn, level, pgErr.Message)
	}
}

// warmQueue creates queue's lanes (a first job, claimed and completed), so
// the tests race claims, not lane creation.
func warmQueue(t *testing.T, ctx context.Context, pool interface {
	rowQuerier
	QueryRow(context.Context, string, ...any) pgx.Row
}, queue string) {
	t.Helper()
	if _, err := insertOne(ctx, pool, queue, 2); err != nil {
		t.Fatal(err)
	}
	cs, err := claim(ctx, pool, queue, 1, nil)
	if err != nil || len(cs) != 1 {
		t.Fatalf("warm-up claim: %v, %v", cs, err)
	}
	if _, err := complete(ctx, pool, cs); err != nil {
		t.Fatal(err)
	}
}

var finalizerActions = []string{"complete", "retry", "snooze", "cancel", "fail"}

// Observation 1: a claimer's snapshot predates a producer's commit. It used
// to claim nothing and move the lane's cursor past the job, which no later
// claim returned. Now the claim is refused outside READ COMMITTED, and the
// job is claimed exactly once by the next claim; at READ COMMITTED the same
// claim takes it.
func TestClaimWithASnapshotOlderThanAnInsertLosesNoJob(t *testing.T) {
	for _, level := range isoLevels {
		t.Run(levelName(level), func(t *testing.T) {
			ctx, pool := newDB(t, 30*time.Second)
			warmQueue(t, ctx, pool, "q")
			claimer, producer := connect(t, ctx, pool), connect(t, ctx, pool)

			tx := beginAt(t, ctx, claimer, level)
			id, err := insertOne(ctx, producer, "q", 2)
			if err != nil {
				t.Fatal(err)
			}
			got, err := claim(ctx, tx, "q", 10, nil)
			if level == pgx.ReadCommitted {
				if err != nil || len(got) != 1 || got[0].ID != id {
					t.Fatalf("claim at read committed: %s, %v; want job %d", describeClaims(got), err, id)
				}
				return
			}
			wantRefused(t, err, "awa.claim_ready_runtime", level)
			if err := tx.Rollback(ctx); err != nil {
				t.Fatal(err)
			}
			got, err = claim(ctx, pool, "q", 10, nil)
			if err != nil || len(got) != 1 || got[0].ID != id {
				t.Fatalf("claim after the refusal: %s, %v; want job %d", describeClaims(got), err, id)
			}
		})
	}
}

// Observation 2: a worker's snapshot predates an operator's cancel or a
// rescue of its attempt. Its finalizer used to apply too (completed and
// cancelled, or completed and retried). Now every finalizer is refused
// outside READ COMMITTED; at READ COMMITTED it reports stale. Either way the
// job has exactly one outcome: the closer's.
func TestFinalizerAfterACancelOrRescueItsSnapshotMissedAppliesOnce(t *testing.T) {
	closers := []struct {
		name, sql, state string
	}{
		{"cancel_job", `SELECT count(*) FROM awa.cancel_job($1)`, "cancelled"},
		{"rescue_stale_claims", `SELECT count(*) FROM awa.rescue_stale_claims('1 minute', 1000) WHERE $1::bigint IS NOT NULL`, "retryable"},
		{"rescue_expired_deadlines", `SELECT count(*) FROM awa.rescue_expired_deadlines(1000) WHERE $1::bigint IS NOT NULL`, "retryable"},
	}
	ctx, pool := newDB(t, 2*time.Minute)
	worker, operator := connect(t, ctx, pool), connect(t, ctx, pool)
	n := 0
	for _, cl := range closers {
		for _, action := range finalizerActions {
			for _, level := range isoLevels {
				n++
				queue := fmt.Sprintf("f%d", n)
				t.Run(fmt.Sprintf("%s/%s/%s", cl.name, action, levelName(level)), func(t *testing.T) {
					if _, err := pool.Exec(ctx, `SELECT awa.configure_queue($1, '{"deadline_seconds": 60}')`, queue); err != nil {
						t.Fatal(err)
					}
					id, err := insertOne(ctx, pool, queue, 2)
					if err != nil {
						t.Fatal(err)
					}
					// Claimed an hour ago with no process: stale, and past its deadline.
					cs, err := claimAt(ctx, pool, queue, time.Now().Add(-time.Hour))
					if err != nil || len(cs) != 1 {
						t.Fatalf("claim: %v, %v", cs, err)
					}

					tx := beginAt(t, ctx, worker, level)
					var closed int
					if err := operator.QueryRow(ctx, cl.sql, id).Scan(&closed); err != nil || closed != 1 {
						t.Fatalf("%s: closed %d, %v", cl.name, closed, err)
					}
					fs, err := finalizeAs(ctx, tx, action, cs)
					if level != pgx.ReadCommitted {
						wantRefused(t, err, "awa."+action+"_jobs", level)
						if err := tx.Rollback(ctx); err != nil {
							t.Fatal(err)
						}
						fs, err = finalizeAs(ctx, pool, action, cs) // the worker retries at read committed
					}
					if err != nil || len(fs) != 1 || fs[0].Outcome != "stale" {
						t.Fatalf("%s after %s: %v, %v; want stale", action, cl.name, fs, err)
					}
					_ = tx.Rollback(ctx)
					var states []string
					rows, err := pool.Query(ctx, `SELECT state::text FROM awa.jobs WHERE id = $1`, id)
					if states, err = pgx.CollectRows(rows, pgx.RowTo[string]); err != nil {
						t.Fatal(err)
					}
					if len(states) != 1 || states[0] != cl.state {
						t.Fatalf("job states %v, want [%s]", states, cl.state)
					}
					if c := queueCounts(t, ctx, pool, queue); c.Running != 0 || c.Completed+c.Failed+c.Cancelled+c.Retryable != 1 {
						t.Fatalf("queue counts %+v: want one outcome, nothing running", c)
					}
				})
			}
		}
	}
}

// claimAt claims one job of queue with the claim's clock at now.
func claimAt(ctx context.Context, q rowQuerier, queue string, now time.Time) ([]claimed, error) {
	return collectClaims(q.Query(ctx, `
		SELECT c.id, c.run_lease, c.claim_slot, c.receipt_id, c.priority, c.attempt
		FROM awa.claim_ready_runtime($1, 1, NULL, $2) AS c`, queue, now))
}

// Observation 3: a producer that wrote into the queue slot before it was
// sealed commits after the pruner took its snapshot. Prune used to prove the
// slot empty with that snapshot and truncate the job. Now prune is refused
// outside READ COMMITTED; at READ COMMITTED it sees the job and carries it to
// the current slot before truncating the sealed one, and the job is claimed.
func TestPruneWithASnapshotOlderThanAProducersCommitKeepsTheJob(t *testing.T) {
	for _, level := range isoLevels {
		t.Run(levelName(level), func(t *testing.T) {
			ctx, pool := newDB(t, 30*time.Second)
			warmQueue(t, ctx, pool, "q") // the slot holds a finished job: rotation seals it
			producer, pruner := connect(t, ctx, pool), connect(t, ctx, pool)

			ptx := mustBegin(t, ctx, producer)
			id, err := insertOne(ctx, ptx, "q", 2)
			if err != nil {
				t.Fatal(err)
			}
			if o, err := ringOp(ctx, connect(t, ctx, pool), "rotate", "queue"); err != nil || o.Outcome != "rotated" {
				t.Fatalf("rotate: %v, %v", o, err)
			}
			tx := beginAt(t, ctx, pruner, level)
			if err := ptx.Commit(ctx); err != nil {
				t.Fatal(err)
			}
			var outcome, detail string
			err = tx.QueryRow(ctx, `SELECT outcome, detail FROM awa.prune_ring('queue', 1000, 0)`).Scan(&outcome, &detail)
			if level == pgx.ReadCommitted {
				// It sees the job: it carries it to the current slot before
				// truncating the one it was in.
				if err != nil || outcome != "pruned" || !strings.Contains(detail, "after moving 1 available jobs") {
					t.Fatalf("prune at read committed: %q (%s), %v; want pruned after carrying the job", outcome, detail, err)
				}
			} else {
				wantRefused(t, err, "awa.prune_ring", level)
			}
			if err := tx.Commit(ctx); err != nil && level == pgx.ReadCommitted {
				t.Fatal(err)
			}
			got, err := claim(ctx, pool, "q", 10, nil)
			if err != nil || len(got) != 1 || got[0].ID != id {
				t.Fatalf("claim after the prune: %s, %v; want job %d", describeClaims(got), err, id)
			}
		})
	}
}

// The other guarded calls, each with a concurrent commit its snapshot
// misses: at REPEATABLE READ and SERIALIZABLE refused with AW040 (writing
// nothing); at READ COMMITTED each acts on the committed state.
func TestMaintenanceAndCancelWithAnOlderSnapshotAreRefused(t *testing.T) {
	type step struct {
		name  string
		setup func(t *testing.T, ctx context.Context, pool *pgxpool.Pool, other *pgx.Conn) int64 // runs before the snapshot; returns a job id
		race  func(t *testing.T, ctx context.Context, other *pgx.Conn, id int64)                 // commits after the snapshot
		call  string                                                                             // $1: the job id
		want  int                                                                                // rows the call returns at read committed
	}
	iid := "00000000-0000-0000-0000-0000000000aa"
	exec := func(t *testing.T, ctx context.Context, q interface {
		Exec(context.Context, string, ...any) (pgconn.CommandTag, error)
	}, sql string, args ...any) {
		t.Helper()
		if _, err := q.Exec(ctx, sql, args...); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
	steps := []step{
		{"cancel_job", // the job is claimed after the snapshot: cancel must close the claim, not tombstone an available job
			func(t *testing.T, ctx context.Context, pool *pgxpool.Pool, _ *pgx.Conn) int64 {
				id, err := insertOne(ctx, pool, "m", 2)
				if err != nil {
					t.Fatal(err)
				}
				return id
			},
			func(t *testing.T, ctx context.Context, other *pgx.Conn, _ int64) {
				if cs, err := claim(ctx, other, "m", 1, nil); err != nil || len(cs) != 1 {
					t.Fatalf("claim: %v %v", cs, err)
				}
			},
			`SELECT * FROM awa.cancel_job($1)`, 1},
		{"rescue_stale_claims", // the process heartbeats after the snapshot: its claim is not stale
			func(t *testing.T, ctx context.Context, pool *pgxpool.Pool, _ *pgx.Conn) int64 {
				exec(t, ctx, pool, `SELECT awa.heartbeat_instance($1, now() - interval '1 hour')`, iid)
				id, err := insertOne(ctx, pool, "m", 2)
				if err != nil {
					t.Fatal(err)
				}
				exec(t, ctx, pool, `SELECT awa.claim_ready_runtime('m', 1, $1, now() - interval '1 hour')`, iid)
				return id
			},
			func(t *testing.T, ctx context.Context, other *pgx.Conn, _ int64) {
				exec(t, ctx, other, `SELECT awa.heartbeat_instance($1)`, iid)
			},
			`SELECT * FROM awa.rescue_stale_claims('1 minute', 1000) WHERE $1::bigint IS NOT NULL`, 0},
		{"rescue_expired_deadlines", // the worker completes after the snapshot
			func(t *testing.T, ctx context.Context, pool *pgxpool.Pool, _ *pgx.Conn) int64 {
				exec(t, ctx, pool, `SELECT awa.configure_queue('m', '{"deadline_seconds": 1}')`)
				id, err := insertOne(ctx, pool, "m", 2)
				if err != nil {
					t.Fatal(err)
				}
				exec(t, ctx, pool, `CREATE TABLE held AS SELECT * FROM awa.claim_ready_runtime('m', 1, NULL, now() - interval '1 hour')`)
				return id
			},
			func(t *testing.T, ctx context.Context, other *pgx.Conn, _ int64) {
				exec(t, ctx, other, `SELECT awa.complete_jobs(array(SELECT id FROM held), array(SELECT run_lease FROM held),
					array(SELECT claim_slot FROM held), array(SELECT receipt_id FROM held))`)
			},
			`SELECT * FROM awa.rescue_expired_deadlines(1000) WHERE $1::bigint IS NOT NULL`, 0},
		{"promote_due_jobs", // a job scheduled after the snapshot is due
			func(t *testing.T, ctx context.Context, pool *pgxpool.Pool, _ *pgx.Conn) int64 { return 0 },
			func(t *testing.T, ctx context.Context, other *pgx.Conn, _ int64) {
				exec(t, ctx, other, `SELECT awa.insert_job('k', '{}', jsonb_build_object('queue', 'm', 'run_at', now() + interval '1 second'))`)
			},
			`SELECT * FROM awa.promote_due_jobs(1000, now() + interval '1 hour') WHERE $1::bigint IS NOT NULL`, 1},
		{"rotate_ring", // the current slot gets its first row after the snapshot
			func(t *testing.T, ctx context.Context, pool *pgxpool.Pool, _ *pgx.Conn) int64 { return 0 },
			func(t *testing.T, ctx context.Context, other *pgx.Conn, _ int64) {
				if _, err := insertOne(ctx, other, "m", 2); err != nil {
					t.Fatal(err)
				}
			},
			`SELECT * FROM awa.rotate_ring('queue', now(), '0 seconds') WHERE outcome = 'rotated' AND $1::bigint IS NOT NULL`, 1},
	}
	for _, s := range steps {
		for _, level := range isoLevels {
			t.Run(s.name+"/"+levelName(level), func(t *testing.T) {
				ctx, pool := newDB(t, 30*time.Second)
				conn, other := connect(t, ctx, pool), connect(t, ctx, pool)
				id := s.setup(t, ctx, pool, other)
				tx := beginAt(t, ctx, conn, level)
				s.race(t, ctx, other, id)
				rows, err := tx.Query(ctx, s.call, id)
				n := 0
				if err == nil {
					for rows.Next() {
						n++
					}
					err = rows.Err()
				}
				if level != pgx.ReadCommitted {
					wantRefused(t, err, "awa."+s.name, level)
					return
				}
				if err != nil || n != s.want {
					t.Fatalf("%s at read committed: %d rows, %v; want %d", s.name, n, err, s.want)
				}
			})
		}
	}
}

// The unguarded writers and readers stay correct with a snapshot older than
// another session's commit: a write that races it gets 40001 (never a second
// leader, a heartbeat moved backwards or a lost queue option), and
// queue_pending errs only towards true (a claimer polls once more).
func TestUnguardedCallsWithAnOlderSnapshotStayCorrect(t *testing.T) {
	const h1, h2, inst = "00000000-0000-0000-0000-0000000000a1", "00000000-0000-0000-0000-0000000000a2",
		"00000000-0000-0000-0000-0000000000b1"
	serializationFailureOr := func(t *testing.T, what string, err error, ok bool) {
		t.Helper()
		if err != nil && sqlState(err) != "40001" {
			t.Fatalf("%s: %v; want success or 40001", what, err)
		}
		if err == nil && !ok {
			t.Fatalf("%s succeeded with a wrong result", what)
		}
	}
	for _, level := range isoLevels {
		t.Run(levelName(level), func(t *testing.T) {
			ctx, pool := newDB(t, 30*time.Second)
			conn := connect(t, ctx, pool)

			// Leader lease: another holder takes it after the snapshot.
			tx := beginAt(t, ctx, conn, level)
			var leader bool
			if err := pool.QueryRow(ctx, `SELECT is_leader FROM awa.acquire_leader_lease('l', $1, '1 minute')`, h2).Scan(&leader); err != nil || !leader {
				t.Fatalf("first acquire: %v %v", leader, err)
			}
			err := tx.QueryRow(ctx, `SELECT is_leader FROM awa.acquire_leader_lease('l', $1, '1 minute')`, h1).Scan(&leader)
			serializationFailureOr(t, "second acquire", err, !leader)
			_ = tx.Commit(ctx)
			var holder string
			if err := pool.QueryRow(ctx, `SELECT holder::text FROM awa.leader_leases WHERE name = 'l'`).Scan(&holder); err != nil || holder != h2 {
				t.Fatalf("lease holder %s, %v; want %s", holder, err, h2)
			}

			// Heartbeat: a newer beat commits after the snapshot; an older one follows.
			if _, err := pool.Exec(ctx, `SELECT awa.heartbeat_instance($1, now() - interval '1 hour')`, inst); err != nil {
				t.Fatal(err)
			}
			tx = beginAt(t, ctx, conn, level)
			var newest time.Time
			if err := pool.QueryRow(ctx, `SELECT heartbeat_at FROM awa.heartbeat_instance($1)`, inst).Scan(&newest); err != nil {
				t.Fatal(err)
			}
			var got time.Time
			err = tx.QueryRow(ctx, `SELECT heartbeat_at FROM awa.heartbeat_instance($1, now() - interval '30 minutes')`, inst).Scan(&got)
			serializationFailureOr(t, "older heartbeat", err, got.Equal(newest))
			_ = tx.Commit(ctx)
			if err := pool.QueryRow(ctx, `SELECT heartbeat_at FROM awa.runtime_instances WHERE instance_id = $1`, inst).Scan(&got); err != nil || !got.Equal(newest) {
				t.Fatalf("heartbeat %v, %v; want %v (never backwards)", got, err, newest)
			}

			// configure_queue: another option set after the snapshot is kept.
			tx = beginAt(t, ctx, conn, level)
			if _, err := pool.Exec(ctx, `SELECT awa.configure_queue('c', '{"dlq": true}')`); err != nil {
				t.Fatal(err)
			}
			var dlq bool
			err = tx.QueryRow(ctx, `SELECT dlq_enabled FROM awa.configure_queue('c', '{"deadline_seconds": 60}')`).Scan(&dlq)
			serializationFailureOr(t, "configure_queue", err, dlq)
			_ = tx.Commit(ctx)
			if err := pool.QueryRow(ctx, `SELECT dlq_enabled FROM awa.queue_meta WHERE queue = 'c'`).Scan(&dlq); err != nil || !dlq {
				t.Fatalf("dlq option lost: %v, %v", dlq, err)
			}

			// queue_pending: true for a job committed after the snapshot, and
			// still true (conservative) once a claimer took it.
			warmQueue(t, ctx, pool, "p")
			tx = beginAt(t, ctx, conn, level)
			if _, err := insertOne(ctx, pool, "p", 2); err != nil {
				t.Fatal(err)
			}
			var pending bool
			if err := tx.QueryRow(ctx, `SELECT pending FROM awa.queue_pending('p')`).Scan(&pending); err != nil || !pending {
				t.Fatalf("queue_pending with a job committed after the snapshot: %v, %v; want true", pending, err)
			}
			if cs, err := claim(ctx, pool, "p", 10, nil); err != nil || len(cs) != 1 {
				t.Fatalf("claim: %v %v", cs, err)
			}
			if err := tx.QueryRow(ctx, `SELECT pending FROM awa.queue_pending('p')`).Scan(&pending); err != nil || pending != (level != pgx.ReadCommitted) {
				t.Fatalf("queue_pending after the claim at %s: %v, %v", levelName(level), pending, err)
			}
			_ = tx.Rollback(ctx)
		})
	}
}
