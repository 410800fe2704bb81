package sqlrace

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/awa-queue/awa/internal/pgtest"
)

// The read surfaces (docs/storage.md, "Read surfaces"): awa.jobs,
// awa.terminal_jobs, awa.job(id) and awa.queue_counts read the rings in a
// subtransaction that they roll back before they return, so a transaction
// that read them holds no ring lock afterwards; outside READ COMMITTED they
// raise 40001 rather than show a ring slot truncated after the snapshot.

// readSurface is one read surface as a query of ($1 job id, $2 queue) whose
// text rows, joined by spaces, are the picture it shows of that job, and the
// rings it reads.
type readSurface struct {
	name, sql string
	rings     []string
}

var readSurfaces = []readSurface{
	{"awa.jobs", `SELECT id || ':' || state FROM awa.jobs WHERE id = $1 AND queue = $2 ORDER BY 1`,
		[]string{"queue", "claim", "cursor"}},
	{"awa.job", `SELECT id || ':' || state FROM awa.job($1) WHERE queue = $2 ORDER BY 1`,
		[]string{"queue", "claim", "cursor"}},
	{"awa.terminal_jobs", `SELECT id || ':' || state FROM awa.terminal_jobs WHERE id = $1 AND queue = $2 ORDER BY 1`,
		[]string{"queue"}},
	{"awa.queue_counts", `SELECT 'available ' || available || ' completed ' || completed
		FROM awa.queue_counts($2) WHERE $1::bigint IS NOT NULL`, []string{"queue", "claim", "cursor"}},
}

// picture runs s's query for job id of queue in q.
func (s readSurface) picture(ctx context.Context, q rowQuerier, id int64, queue string) (string, error) {
	rows, err := q.Query(ctx, s.sql, id, queue)
	if err != nil {
		return "", err
	}
	out, err := pgx.CollectRows(rows, pgx.RowTo[string])
	return strings.Join(out, " "), err
}

// pruneScenario prepares a job whose picture a snapshot older than the next
// prune of ring would get wrong, and returns it with the true picture each
// surface must show (or 40001 outside READ COMMITTED).
type pruneScenario struct {
	ring, queue string
	prepare     func(t *testing.T, ctx context.Context, pool *pgxpool.Pool, maint *pgx.Conn) int64
	want        map[string]string
}

var pruneScenarios = []pruneScenario{
	// Cursor ring: a claimed and completed job whose lane's only mark is in
	// the slot cursor-ring prune truncates (it raises the floor first). An
	// old snapshot sees the old floor and no mark: the job completed and
	// available, queue_counts counting it available.
	{"cursor", "r", func(t *testing.T, ctx context.Context, pool *pgxpool.Pool, maint *pgx.Conn) int64 {
		return completedBehindASealedMarksSlot(t, ctx, pool, maint, "r")
	}, map[string]string{"awa.jobs": ":completed", "awa.job": ":completed", "awa.terminal_jobs": ":completed",
		"awa.queue_counts": "available 0 completed 1"}},
	// Queue ring: an available job that prune carries out of the slot it
	// truncates. An old snapshot sees it in neither slot.
	{"queue", "s", func(t *testing.T, ctx context.Context, pool *pgxpool.Pool, maint *pgx.Conn) int64 {
		id, err := insertOne(ctx, pool, "s", 2)
		if err != nil {
			t.Fatal(err)
		}
		if o, err := ringOp(ctx, maint, "rotate", "queue"); err != nil || o.Outcome != "rotated" {
			t.Fatalf("rotate queue: %v %v", o, err)
		}
		return id
	}, map[string]string{"awa.jobs": ":available", "awa.job": ":available", "awa.terminal_jobs": "",
		"awa.queue_counts": "available 1 completed 0"}},
}

// wantPicture is a scenario's expected picture of job id on surface name.
func (sc pruneScenario) wantPicture(name string, id int64) string {
	w := sc.want[name]
	if strings.HasPrefix(w, ":") {
		return fmt.Sprint(id) + w
	}
	return w
}

// TestReadSurfacesWithASnapshotOlderThanAPruneShowEachJobOnceInItsState
// (from the adversary's branch, 416678c): TRUNCATE is not MVCC-safe, so a
// transaction whose snapshot predates a prune sees the pruned slot empty and
// not the rows the prune wrote (raised floors, carried jobs): a completed job
// also available, a carried job nowhere. Neither picture ever existed. Each
// surface, read in a savepoint of one transaction whose snapshot predates the
// prune, must show the true picture, or (outside READ COMMITTED, where the
// contract allows it) fail with 40001 naming itself; a retried transaction
// at the same level then shows the true picture. At READ COMMITTED every
// statement takes a new snapshot after its locks: always the true picture.
// On main, awa.jobs shows the false pictures at REPEATABLE READ and
// SERIALIZABLE (queue_counts refused them with AW040).
func TestReadSurfacesWithASnapshotOlderThanAPruneShowEachJobOnceInItsState(t *testing.T) {
	for _, level := range isoLevels {
		t.Run(levelName(level), func(t *testing.T) {
			ctx := pgtest.Context(t, 60*time.Second)
			pool := pgtest.NewDB(t)
			maint := connect(t, ctx, pool)
			reader := connect(t, ctx, pool)
			for _, sc := range pruneScenarios {
				id := sc.prepare(t, ctx, pool, maint)
				tx := beginAt(t, ctx, reader, level)
				if o, err := ringOp(ctx, maint, "prune", sc.ring); err != nil || o.Outcome != "pruned" {
					t.Fatalf("prune %s: %v %v", sc.ring, o, err)
				}
				for _, s := range readSurfaces {
					want := sc.wantPicture(s.name, id)
					sp, err := tx.Begin(ctx)
					if err != nil {
						t.Fatal(err)
					}
					got, err := s.picture(ctx, sp, id, sc.queue)
					switch {
					case err != nil && level != pgx.ReadCommitted && sqlState(err) == "40001" && strings.Contains(err.Error(), s.name):
						_ = sp.Rollback(ctx)
						retry := beginAt(t, ctx, connect(t, ctx, pool), level)
						if got, err := s.picture(ctx, retry, id, sc.queue); err != nil || got != want {
							t.Errorf("%s retried after 40001 (%s-ring prune): %q, %v; want %q", s.name, sc.ring, got, err, want)
						}
						_ = retry.Rollback(ctx)
					case err != nil:
						t.Fatalf("%s after a %s-ring prune, snapshot from before it: %v (want the true picture%s)", s.name, sc.ring, err,
							map[bool]string{true: "", false: " or 40001 naming the surface"}[level == pgx.ReadCommitted])
					case got != want:
						t.Errorf("%s after a %s-ring prune, snapshot from before it: %q, want %q", s.name, sc.ring, got, want)
						_ = sp.Rollback(ctx)
					default:
						_ = sp.Rollback(ctx)
					}
				}
				_ = tx.Rollback(ctx)
			}
		})
	}
}

// TestReadSurfacesOnlyFailForAPruneOfARingTheyRead: the 40001 check looks
// at the ring children the surface read, not every ring: at REPEATABLE READ,
// after a cursor-ring prune, awa.terminal_jobs (the queue ring only) still
// answers, and every surface answers after rotations (no TRUNCATE).
func TestReadSurfacesOnlyFailForAPruneOfARingTheyRead(t *testing.T) {
	ctx, pool := newDB(t, 60*time.Second)
	maint := connect(t, ctx, pool)
	reader := connect(t, ctx, pool)
	done := completedBehindASealedMarksSlot(t, ctx, pool, maint, "r")
	tx := beginAt(t, ctx, reader, pgx.RepeatableRead)
	for _, ring := range []string{"queue", "claim", "cursor"} {
		if o, err := ringOp(ctx, maint, "rotate", ring); err != nil {
			t.Fatalf("rotate %s: %v %v", ring, o, err)
		}
	}
	for _, s := range readSurfaces {
		if got, err := s.picture(ctx, tx, done, "r"); err != nil || got == "" {
			t.Fatalf("%s at repeatable read after rotations only: %q, %v", s.name, got, err)
		}
	}
	if o, err := ringOp(ctx, maint, "prune", "cursor"); err != nil || o.Outcome != "pruned" {
		t.Fatalf("prune cursor: %v %v", o, err)
	}
	if got, err := readSurfaces[2].picture(ctx, tx, done, "r"); err != nil || got != fmt.Sprintf("%d:completed", done) {
		t.Errorf("awa.terminal_jobs at repeatable read after a cursor-ring prune: %q, %v; want %d:completed", got, err, done)
	}
}

// TestReadSurfacesThatWaitedBehindAPruneShowWhatItWrote: at READ COMMITTED a
// surface needs no check because its read locks the ring children before it
// takes its snapshot. Shown, not argued: a prune (cursor ring, then queue
// ring, which carries an available job) holds its exclusive locks until it
// commits; each surface's read, started meanwhile in its own session, waits
// for them, and then shows what the prune wrote, never the old floor with no
// marks or a carried job in no slot. (awa.terminal_jobs reads no cursor
// ring: it does not wait for a cursor-ring prune.)
func TestReadSurfacesThatWaitedBehindAPruneShowWhatItWrote(t *testing.T) {
	ctx, pool := newDB(t, 60*time.Second)
	maint := connect(t, ctx, pool)
	readers := make([]*pgx.Conn, len(readSurfaces))
	for i := range readers {
		readers[i] = connect(t, ctx, pool)
	}
	for _, sc := range pruneScenarios {
		id := sc.prepare(t, ctx, pool, maint)
		tx := mustBegin(t, ctx, maint)
		var outcome string
		if err := tx.QueryRow(ctx, `SELECT outcome FROM awa.prune_ring($1)`, sc.ring).Scan(&outcome); err != nil || outcome != "pruned" {
			t.Fatalf("prune %s: %s %v", sc.ring, outcome, err)
		}
		type result struct {
			got string
			err error
		}
		results := make([]chan result, len(readSurfaces))
		for i, s := range readSurfaces {
			results[i] = make(chan result, 1)
			go func() {
				got, err := s.picture(ctx, readers[i], id, sc.queue)
				results[i] <- result{got, err}
			}()
			if slices.Contains(s.rings, sc.ring) {
				waitForLockWait(t, ctx, pool, readers[i].PgConn().PID())
			}
		}
		if err := tx.Commit(ctx); err != nil {
			t.Fatal(err)
		}
		for i, s := range readSurfaces {
			r := <-results[i]
			if want := sc.wantPicture(s.name, id); r.err != nil || r.got != want {
				t.Errorf("%s that waited behind a %s-ring prune: %q, %v; want %q", s.name, sc.ring, r.got, r.err, want)
			}
		}
	}
}

// TestAnIdleTransactionAfterEachReadSurfaceHoldsNoRingLock: a transaction
// that read a surface and then sits idle (a dashboard, at any level) holds no
// lock on any awa relation but the view it named (SERIALIZABLE keeps its
// SIRead predicate locks, which conflict with no lock), so the next prune of
// every ring prunes. On main, awa.jobs, awa.terminal_jobs and queue_counts (at READ
// COMMITTED) kept ACCESS SHARE on every ring child they read, and each prune
// of such a ring reported skipped_blocked until the transaction ended.
func TestAnIdleTransactionAfterEachReadSurfaceHoldsNoRingLock(t *testing.T) {
	for _, level := range isoLevels {
		for _, s := range readSurfaces {
			t.Run(levelName(level)+"/"+s.name, func(t *testing.T) {
				ctx, pool := newDB(t, 60*time.Second)
				maint := connect(t, ctx, pool)
				reader := connect(t, ctx, pool)
				done := completedBehindASealedMarksSlot(t, ctx, pool, maint, "r")
				for _, ring := range []string{"queue", "claim"} {
					if o, err := ringOp(ctx, maint, "rotate", ring); err != nil || o.Outcome != "rotated" {
						t.Fatalf("rotate %s: %v %v", ring, o, err)
					}
				}
				tx, err := reader.BeginTx(ctx, pgx.TxOptions{IsoLevel: level})
				if err != nil {
					t.Fatal(err)
				}
				defer func() { _ = tx.Rollback(context.Background()) }()
				if got, err := s.picture(ctx, tx, done, "r"); err != nil || got == "" {
					t.Fatalf("%s: %q, %v", s.name, got, err)
				}
				var held []string
				rows, _ := pool.Query(ctx, `SELECT l.relation::regclass::text || ' ' || l.mode FROM pg_locks l
					JOIN pg_class c ON c.oid = l.relation
					WHERE l.pid = $1 AND c.relnamespace = 'awa'::regnamespace AND c.relkind <> 'v' AND l.mode <> 'SIReadLock'
					ORDER BY 1`,
					reader.PgConn().PID())
				if held, err = pgx.CollectRows(rows, pgx.RowTo[string]); err != nil || len(held) > 0 {
					t.Errorf("idle after reading %s, the transaction holds %v (%v); want no lock on a table of schema awa", s.name, held, err)
				}
				for _, ring := range []string{"cursor", "claim", "queue"} {
					if o, err := ringOp(ctx, maint, "prune", ring); err != nil || o.Outcome != "pruned" {
						t.Errorf("prune %s while a transaction idles after reading %s: %v %v; want pruned", ring, s.name, o, err)
					}
				}
			})
		}
	}
}

// ringRowCount is how many rows the queue, claim and cursor rings hold.
func ringRowCount(t *testing.T, ctx context.Context, q rowQuerier) int64 {
	t.Helper()
	rows, err := q.Query(ctx, `SELECT (SELECT count(*) FROM awa.ready_entries) + (SELECT count(*) FROM awa.done_completions)
		+ (SELECT count(*) FROM awa.claim_batches) + (SELECT count(*) FROM awa.claim_closures) + (SELECT count(*) FROM awa.cursor_marks)`)
	n, err := pgx.CollectExactlyOneRow(rows, pgx.RowTo[int64])
	if err != nil {
		t.Fatalf("ring rows: %v", err)
	}
	return n
}

// TestAnIdleTransactionThatReadAwaJobsDoesNotStopReclamation (from the
// adversary's branch, 416678c): issue 7, observation 9: "a session that
// holds a snapshot after reading awa.jobs also blocks prune, so the schema
// grows while it stays open". The same jobs go through twice, rotating and
// pruning every ring after every round: without the idle reader and with it
// (READ COMMITTED, `SELECT count(*) FROM awa.jobs`, then idle). The rings
// must end within 2x (plus a slot's worth) of the run without it. On main,
// nothing was reclaimed while it stayed open (4,320 ring rows after 4,000
// jobs, against 0 without it).
func TestAnIdleTransactionThatReadAwaJobsDoesNotStopReclamation(t *testing.T) {
	const rounds, perRound = 80, 50
	ctx := pgtest.Context(t, 3*time.Minute)
	through := func(idleReader bool) int64 {
		pool := pgtest.NewDB(t)
		conn := connect(t, ctx, pool)
		maint := connect(t, ctx, pool)
		if idleReader {
			tx, err := connect(t, ctx, pool).Begin(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer func() { _ = tx.Rollback(context.Background()) }()
			if _, err := tx.Exec(ctx, `SELECT count(*) FROM awa.jobs`); err != nil {
				t.Fatal(err)
			}
		}
		outcomes := map[string]int{}
		for i := 0; i < rounds; i++ {
			if _, err := insertBatch(ctx, conn, "flow", 2, perRound); err != nil {
				t.Fatal(err)
			}
			cs, err := claim(ctx, conn, "flow", perRound, nil)
			if err != nil || len(cs) != perRound {
				t.Fatalf("round %d: claimed %d, %v", i, len(cs), err)
			}
			if _, err := complete(ctx, conn, cs); err != nil {
				t.Fatal(err)
			}
			for _, ring := range []string{"queue", "claim", "cursor"} {
				if o, err := ringOp(ctx, maint, "rotate", ring); err != nil {
					t.Fatal(err)
				} else {
					outcomes[ring+" rotate "+o.Outcome]++
				}
				var outcome string
				if err := maint.QueryRow(ctx, `SELECT outcome FROM awa.prune_ring($1, 10)`, ring).Scan(&outcome); err != nil {
					t.Fatal(err)
				}
				outcomes[ring+" prune "+outcome]++
			}
		}
		n := ringRowCount(t, ctx, conn)
		t.Logf("idle reader %v: %d ring rows after %d jobs; outcomes %v", idleReader, n, rounds*perRound, outcomes)
		return n
	}
	clean := through(false)
	held := through(true)
	if limit := 2*clean + 2*perRound; held > limit {
		t.Errorf("an idle transaction that read awa.jobs: the rings hold %d rows after %d jobs, against %d without it (limit %d): reclamation stopped while it stayed open",
			held, rounds*perRound, clean, limit)
	}
}

// TestReadersAtEachLevelAcrossBusyRingsNeverSeeAFalsePicture: randomized,
// with real sessions. Jobs flow through queue "flow" (insert, claim,
// complete), a maintenance session rotates and prunes every ring every
// 100 ms (20 to 50 times the default cadence), and the 20 jobs of queue "orphan", which nobody works, are carried
// from slot to slot. A reader at each level takes its snapshot, waits up to
// 20 ms (prunes commit meanwhile), then reads awa.jobs, awa.job of an orphan
// or queue_counts('orphan') in that transaction. Each read either raises
// 40001 (outside READ COMMITTED only) or shows no job twice and every orphan
// once, available. 3 s per level; the run must have pruned and read.
func TestReadersAtEachLevelAcrossBusyRingsNeverSeeAFalsePicture(t *testing.T) {
	ctx, pool := newDB(t, 90*time.Second)
	orphans := mustInsertBatch(t, ctx, pool, "orphan", 2, 20)
	for _, level := range isoLevels {
		t.Run(levelName(level), func(t *testing.T) {
			runCtx, stop := context.WithTimeout(ctx, 3*time.Second)
			defer stop()
			failCtx, failCancel, fail := withErrOnce(runCtx)
			defer failCancel()
			conn, maint, reader := connect(t, ctx, pool), connect(t, ctx, pool), connect(t, ctx, pool)
			var pruned atomic.Int64
			var wg sync.WaitGroup
			wg.Add(2)
			go func() { // the flow
				defer wg.Done()
				for failCtx.Err() == nil {
					_, err := insertBatch(failCtx, conn, "flow", 2, 20)
					var cs []claimed
					if err == nil {
						cs, err = claim(failCtx, conn, "flow", 20, nil)
					}
					if err == nil {
						_, err = complete(failCtx, conn, cs)
					}
					if err != nil && failCtx.Err() == nil {
						fail.set("flow: %v", err)
					}
					time.Sleep(5 * time.Millisecond)
				}
			}()
			go func() { // maintenance
				defer wg.Done()
				for failCtx.Err() == nil {
					for _, ring := range []string{"queue", "claim", "cursor"} {
						_, err := ringOp(failCtx, maint, "rotate", ring)
						var o ringOutcome
						if err == nil {
							o, err = ringOp(failCtx, maint, "prune", ring)
						}
						if err != nil && failCtx.Err() == nil {
							fail.set("maintenance %s: %v", ring, err)
						}
						if o.Outcome == "pruned" || o.Outcome == "carried" {
							pruned.Add(1)
						}
					}
					time.Sleep(100 * time.Millisecond)
				}
			}()
			read, retried := 0, 0
			for failCtx.Err() == nil {
				err := readOrphansOnce(failCtx, reader, level, orphans)
				switch {
				case err == nil:
					read++
				case level != pgx.ReadCommitted && sqlState(err) == "40001":
					retried++
				case failCtx.Err() == nil:
					fail.set("reader at %s: %v", level, err)
				}
			}
			wg.Wait()
			if err := fail.get(); err != nil {
				t.Fatal(err)
			}
			t.Logf("%s: %d reads showed a true picture, %d raised 40001; %d prunes", level, read, retried, pruned.Load())
			if read == 0 || pruned.Load() == 0 {
				t.Fatalf("the run proved nothing: %d reads, %d prunes", read, pruned.Load())
			}
		})
	}
}

// readOrphansOnce reads one surface, chosen at random, in a transaction at
// level whose snapshot is up to 20 ms older than the read (one read: the
// next would lock again, after whatever pruned meanwhile), and returns an
// error for a failed read or a false picture: a job twice in awa.jobs, an
// orphan missing from it or not available in it or in awa.job,
// queue_counts('orphan') not counting every orphan available.
func readOrphansOnce(ctx context.Context, conn *pgx.Conn, level pgx.TxIsoLevel, orphans []int64) error {
	tx, err := conn.BeginTx(ctx, pgx.TxOptions{IsoLevel: level})
	if err != nil {
		return err
	}
	defer func() { _ = tx.Rollback(context.Background()) }()
	if _, err := tx.Exec(ctx, `SELECT count(*) FROM awa.queue_claim_heads`); err != nil {
		return err
	}
	time.Sleep(time.Duration(rand.IntN(20)) * time.Millisecond)
	switch rand.IntN(3) {
	case 0:
		rows, _ := tx.Query(ctx, `SELECT id, state::text FROM awa.jobs`)
		seen := map[int64][]string{}
		var id int64
		var state string
		if _, err := pgx.ForEachRow(rows, []any{&id, &state}, func() error { seen[id] = append(seen[id], state); return nil }); err != nil {
			return err
		}
		for id, states := range seen {
			if len(states) > 1 {
				return fmt.Errorf("awa.jobs shows job %d as %v", id, states)
			}
		}
		for _, o := range orphans {
			if s := seen[o]; len(s) != 1 || s[0] != "available" {
				return fmt.Errorf("awa.jobs shows orphan %d as %v, want available once", o, s)
			}
		}
	case 1:
		o := orphans[rand.IntN(len(orphans))]
		got, err := readSurfaces[1].picture(ctx, tx, o, "orphan")
		if err != nil {
			return err
		}
		if got != fmt.Sprintf("%d:available", o) {
			return fmt.Errorf("awa.job(%d) shows %q, want it available once", o, got)
		}
	default:
		var available int64
		if err := tx.QueryRow(ctx, `SELECT available FROM awa.queue_counts('orphan')`).Scan(&available); err != nil {
			return err
		}
		if available != int64(len(orphans)) {
			return fmt.Errorf("queue_counts('orphan').available = %d, want %d", available, len(orphans))
		}
	}
	return nil
}
