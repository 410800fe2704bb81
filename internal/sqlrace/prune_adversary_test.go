package sqlrace

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Session 7's adversary: a queue slot with nothing to carry has its
// completion history (done_completions) locked and truncated before the
// ready tables, out of awa._ring_tables order. Whatever reaches the slot's
// tables in that order (a ready child, then done_completions) must not wait
// for that lock while prune retries the ready tables.

// waitForHistoryLock waits until backend pid holds ACCESS EXCLUSIVE on
// awa.done_completions_<slot 0>: prune's first step for a slot with nothing
// to carry.
func waitForHistoryLock(t *testing.T, ctx context.Context, q interface {
	QueryRow(context.Context, string, ...any) pgx.Row
}, pid uint32) {
	t.Helper()
	waitForBackend(t, ctx, q, pid, `SELECT EXISTS (SELECT 1 FROM pg_locks
			WHERE pid = $1 AND granted AND mode = 'AccessExclusiveLock'
			  AND relation = 'awa.done_completions_0'::regclass)`,
		2*time.Millisecond, "locked awa.done_completions_0")
}

// countInBackground counts the rows of surface (a view or a function call)
// on a connection of its own whose deadlock_timeout is 10 ms, in a
// goroutine; it returns the result's channel and the reader's backend pid.
func countInBackground(t *testing.T, ctx context.Context, pool *pgxpool.Pool, surface string) (<-chan result[int64], uint32) {
	t.Helper()
	rc := connect(t, ctx, pool)
	pid := backendPID(t, ctx, rc)
	if _, err := rc.Exec(ctx, `SET deadlock_timeout = '10ms'`); err != nil {
		t.Fatal(err)
	}
	return inBackground(func() (int64, error) {
		var n int64
		err := rc.QueryRow(ctx, `SELECT count(*) FROM `+surface).Scan(&n)
		return n, err
	}), pid
}

// TestAJobsReadIsNeverTheDeadlockVictimOfAHistoryPrune: slot 0 holds one
// finished job; a reader holds awa.ready_entries_0, so a prune of the slot
// (a 3 s budget) retries its ready tables, and in its last attempts waits
// for them in the lock queue. A read of awa.jobs at READ COMMITTED, in a
// session whose deadlock_timeout is 10 ms (below the budget: docs/storage.md
// says a cycle through prune then ends as prune's skipped_blocked), locks the
// ready children and then done_completions_0. It must return (after prune
// gives up), never fail with 40P01. On main it failed: prune held
// done_completions_0 from its first step while it waited for ready_entries_0,
// which the reader held, and the reader's own deadlock check found the cycle.
func TestAJobsReadIsNeverTheDeadlockVictimOfAHistoryPrune(t *testing.T) {
	ctx, pool := newDB(t, 60*time.Second)
	conn := connect(t, ctx, pool)
	sealFinishedJob(t, ctx, conn, nil)
	holder := readerHolding(t, ctx, pool, "ready_entries_0")

	pc := connect(t, ctx, pool)
	ppid := backendPID(t, ctx, pc)
	done := pruneInBackground(ctx, pc, "queue", 3000, 0, 1000)
	// Prune's late attempts queue for the ready child (after 1.8 s).
	waitForLockWait(t, ctx, pool, ppid)

	read, _ := countInBackground(t, ctx, pool, "awa.jobs")
	r := <-read // the read waits for prune to end at most
	if r.err != nil {
		t.Fatalf("awa.jobs read behind the prune: %s; want it to wait and return", describeErr(r.err))
	}
	if r.v != 1 {
		t.Fatalf("awa.jobs read %d jobs, want the finished one", r.v)
	}
	p := <-done
	if p.err != nil || p.o.Outcome != "skipped_blocked" {
		t.Fatalf("prune while ready_entries_0 is held: %v, %v; want skipped_blocked", p.o, p.err)
	}
	if err := holder.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	requirePrunedSlot0(t, <-pruneInBackground(ctx, pc, "queue", 3000, 0, 1000), "prune once the reader ended")
}

// TestAFinalizerOfALateJobWaitsAtMostOneAttemptBehindAHistoryPrune: slot 0
// holds one finished job and a producer that has not committed yet when the
// ring rotates (a late producer); a reader holds awa.ready_entries_0, so the
// prune of slot 0 (3 s budget) retries. Once prune has locked the slot's
// completion history (it saw no position above a cursor), the producer
// commits, a worker claims its job (drawn from slot 0) and completes it. The
// completion is written into done_completions_0: docs/storage.md says no
// finalizer can need that table ("no job drawn from the slot can still
// complete") and bounds a finalizer's wait behind a prune to one waiting
// attempt (a tenth of the budget) plus the hold. On main the completion
// waited until prune's whole budget ended.
func TestAFinalizerOfALateJobWaitsAtMostOneAttemptBehindAHistoryPrune(t *testing.T) {
	ctx, pool := newDB(t, 60*time.Second)
	conn := connect(t, ctx, pool)
	if _, err := insertOne(ctx, conn, "q", 2); err != nil {
		t.Fatal(err)
	}
	got, err := claim(ctx, conn, "q", 1, nil)
	if err != nil || len(got) != 1 {
		t.Fatalf("claim: %v, %v", got, err)
	}
	if _, err := complete(ctx, conn, got); err != nil {
		t.Fatal(err)
	}
	late, lateID := openProducer(t, ctx, pool, "q", 2)
	rotateQueueRing(t, ctx, conn)
	holder := readerHolding(t, ctx, pool, "ready_entries_0")

	pc := connect(t, ctx, pool)
	ppid := backendPID(t, ctx, pc)
	done := pruneInBackground(ctx, pc, "queue", 3000, 0, 1000)
	waitForHistoryLock(t, ctx, pool, ppid)
	if err := late.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	got, err = claim(ctx, conn, "q", 1, nil)
	if err != nil || len(got) != 1 || got[0].ID != lateID {
		t.Fatalf("claim of the late job %d: %v, %v", lateID, got, err)
	}
	start := time.Now()
	fin, err := complete(ctx, conn, got)
	waited := time.Since(start)
	if err != nil || len(fin) != 1 || fin[0].Outcome != "applied" {
		t.Fatalf("complete of the late job: %v, %v", fin, err)
	}
	if waited > time.Second {
		t.Fatalf("complete of a job drawn from slot 0 waited %v behind its prune (3 s budget); want at most one "+
			"waiting attempt (300 ms) plus the hold", waited)
	}
	p := <-done
	if p.err != nil || p.o.Outcome == "pruned" {
		t.Fatalf("prune of slot 0 with a late job: %v, %v; want it kept", p.o, p.err)
	}
	if err := holder.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	var state string
	if err := conn.QueryRow(ctx, `SELECT state::text FROM awa.jobs WHERE id = $1`, lateID).Scan(&state); err != nil ||
		state != "completed" {
		t.Fatalf("late job %d: state %q, %v; want completed", lateID, state, err)
	}
}

// TestReadSurfacesAreNeverTheDeadlockVictimOfAPrune: slot 0 holds a
// finished job and an available one (so prune takes every lock of the slot
// in one attempt, in awa._ring_tables order: cursor marks, ready tables,
// done_entries, done_completions). An operator holds done_entries_1
// exclusively for a moment, so a read of awa.terminal_jobs, awa.jobs,
// awa.queue_counts or awa.storage_status (deadlock_timeout 10 ms, READ
// COMMITTED, one statement) stops on it with whatever it has locked so far. A prune of slot 0 (3 s
// budget) then queues for its locks; when the operator commits, the read goes
// on. It must return, never fail with 40P01. On main the surfaces locked the
// rings' tables in the planner's order, done_entries before ready_entries:
// the read held done_entries_0, which prune's waiting attempt wanted, while
// prune held ready_entries_0, which the read wanted next, and the read's
// deadlock check found the cycle (without the operator too, at random: 3
// terminal_jobs reads in 150 during prune's waiting attempts).
func TestReadSurfacesAreNeverTheDeadlockVictimOfAPrune(t *testing.T) {
	// retry_dlq_job of a job not in the DLQ reads awa._jobs_now to say
	// what the job is (AW021): the same read, in an error path.
	for _, surface := range []string{"awa.terminal_jobs", "awa.jobs", "awa.queue_counts()", "awa.storage_status()",
		"awa.retry_dlq_job(%d)"} {
		t.Run(surface, func(t *testing.T) {
			ctx, pool := newDB(t, 60*time.Second)
			conn := connect(t, ctx, pool)
			mustInsertBatch(t, ctx, conn, "q", 2, 2)
			rotateQueueRing(t, ctx, conn)
			got, err := claim(ctx, conn, "q", 1, nil)
			if err != nil || len(got) != 1 {
				t.Fatalf("claim: %v, %v", got, err)
			}
			if _, err := complete(ctx, conn, got); err != nil {
				t.Fatal(err)
			}
			operator := holdingTx(t, ctx, pool, `LOCK TABLE awa.done_entries_1 IN ACCESS EXCLUSIVE MODE`)

			from, want := surface, ""
			if strings.Contains(surface, "%d") {
				from, want = fmt.Sprintf(surface, got[0].ID), "AW021"
			}
			read, rpid := countInBackground(t, ctx, pool, from)
			waitForLockWait(t, ctx, pool, rpid)

			pc := connect(t, ctx, pool)
			ppid := backendPID(t, ctx, pc)
			done := pruneInBackground(ctx, pc, "queue", 3000, 0, 1000)
			if want != "" {
				// retry_dlq_job holds the queue ring's rotate/prune lock from its
				// start (as retry_job and erase_job do): the prune does not wait
				// for its locks at all, it is skipped_locked.
				if p := <-done; p.err != nil || p.o.Outcome != "skipped_locked" {
					t.Fatalf("prune beside %s: %v, %v; want skipped_locked", from, p.o, p.err)
				}
			} else {
				waitForLockWait(t, ctx, pool, ppid) // prune's late attempts queue (after 1.8 s)
			}
			if err := operator.Commit(ctx); err != nil {
				t.Fatal(err)
			}
			if r := <-read; r.err != nil && !(want != "" && sqlState(r.err) == want) {
				t.Fatalf("%s read beside the prune: %s; want it to return (or raise %s)", from, describeErr(r.err), want)
			}
			if want == "" {
				if p := <-done; p.err != nil {
					t.Fatalf("prune: %v", p.err)
				}
			}
		})
	}
}
