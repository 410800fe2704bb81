package sqlrace

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

// MixedRunSecondsEnv sets the length of TestMixedWorkloadNeverDeadlocks
// (default 60 seconds).
const MixedRunSecondsEnv = "AWA_MIXED_RUN_SECONDS"

// TestMixedWorkloadNeverDeadlocks: every kind of session at once, each on its
// own connection, for AWA_MIXED_RUN_SECONDS (default 60 s):
//   - 4 producers, each transaction either one awa.insert_job or one
//     awa.insert_jobs call of 2..12 jobs over two queues and all four
//     priorities (some scheduled 300 ms ahead); queue mx_b has one enqueue
//     shard, so its producers wait for each other's lane locks;
//   - 4 claimers (a quarter of their transactions claim twice before they
//     commit, as a SQL worker may);
//   - 2 finalizers: complete, retry, fail, cancel_jobs in batches; a few jobs
//     of mx_b (deadline 3 s) are finished 4 s late, after deadline rescue;
//   - an operator cancelling recent jobs by id (awa.cancel_job);
//   - maintenance every 100 ms: promotion, both rescues, rotate and prune of
//     the queue and claim rings (no sealed slot kept).
//
// Then producers stop and the rest drains the queues. No session may see a
// 40P01, pg_stat_database.deadlocks must not move, and every committed job
// must end exactly once (completed, failed or cancelled, as reported by the
// applied finalizer, cancel or rescue rows), none lost, none twice.
func TestMixedWorkloadNeverDeadlocks(t *testing.T) {
	run := 60 * time.Second
	if v := os.Getenv(MixedRunSecondsEnv); v != "" {
		s, err := strconv.Atoi(v)
		if err != nil || s < 1 {
			t.Fatalf("%s=%q: want a positive number of seconds", MixedRunSecondsEnv, v)
		}
		run = time.Duration(s) * time.Second
	}
	ctx, pool := newDB(t, 3*run+3*time.Minute)
	queues := []string{"mx_a", "mx_b"}
	if _, err := pool.Exec(ctx, `SELECT awa.configure_queue('mx_b', '{"enqueue_shards": 1, "deadline_seconds": 3}')`); err != nil {
		t.Fatal(err)
	}
	var deadlocksBefore int64
	if err := pool.QueryRow(ctx, `SELECT deadlocks FROM pg_stat_database WHERE datname = current_database()`).
		Scan(&deadlocksBefore); err != nil {
		t.Fatal(err)
	}

	m := &mixedLedger{inserted: map[int64]bool{}, ended: map[int64][]string{}}
	var seen40P01 atomic.Int64
	var draining atomic.Bool
	pruned := map[string]*atomic.Int64{"queue": {}, "claim": {}, "cursor": {}}
	failCtx, failCancel, fail := withErrOnce(ctx)
	defer failCancel()
	// check sorts an error: a deadlock is counted (and fails the test at the
	// end, with the count); anything else not expected fails at once.
	check := func(ctx context.Context, who string, err error, expected ...string) bool {
		if err == nil {
			return true
		}
		if ctx.Err() != nil { // stopping
			return false
		}
		var pgErr *pgconn.PgError
		if errors.As(err, &pgErr) {
			if pgErr.Code == "40P01" {
				seen40P01.Add(1)
				t.Logf("%s: %s", who, pgErr.Message)
				return false
			}
			for _, code := range expected {
				if pgErr.Code == code {
					return false
				}
			}
		}
		fail.set("%s: %v", who, err)
		return false
	}

	// Producers stop between transactions (a cancelled commit could commit
	// without telling us).
	var stopProducing atomic.Bool
	produceCtx := failCtx
	var producers, others sync.WaitGroup
	for p := 0; p < 4; p++ {
		goSession(t, ctx, pool, &producers, func(conn *pgx.Conn) {
			rng := rand.New(rand.NewPCG(uint64(p), 1))
			for produceCtx.Err() == nil && !stopProducing.Load() {
				ids, err := mixedProduce(produceCtx, conn, rng, queues)
				if check(produceCtx, fmt.Sprintf("producer %d", p), err) {
					m.insert(ids)
				}
				time.Sleep(time.Duration(10+rng.IntN(20)) * time.Millisecond)
			}
		})
	}

	// Unbuffered: a claimed job waits for one finalizer call at most, well
	// within mx_b's deadline, unless it is one of the late ones.
	work := make(chan []claimed)
	drainCtx, stopOthers := context.WithCancel(failCtx)
	defer stopOthers()
	for c := 0; c < 4; c++ {
		goSession(t, ctx, pool, &others, func(conn *pgx.Conn) {
			rng := rand.New(rand.NewPCG(uint64(c), 2))
			for drainCtx.Err() == nil {
				got, err := mixedClaim(drainCtx, conn, rng, queues[rng.IntN(2)])
				if !check(drainCtx, fmt.Sprintf("claimer %d", c), err) || len(got) == 0 {
					time.Sleep(2 * time.Millisecond)
					continue
				}
				select {
				case work <- got:
				case <-drainCtx.Done():
					return
				}
			}
		})
	}
	var late sync.WaitGroup
	for f := 0; f < 2; f++ {
		goSession(t, ctx, pool, &others, func(conn *pgx.Conn) {
			rng := rand.New(rand.NewPCG(uint64(f), 3))
			for {
				var batch []claimed
				select {
				case batch = <-work:
				case <-drainCtx.Done():
					return
				}
				m.finalize(drainCtx, pool, conn, &late, rng, batch, func(j claimed) (time.Duration, bool) {
					return 4 * time.Second, j.Queue == "mx_b" && rng.IntN(50) == 0
				}, check, fmt.Sprintf("finalizer %d", f))
			}
		})
	}
	cancelRng := rand.New(rand.NewPCG(4, 4))
	repeatOnConn(t, ctx, drainCtx, pool, &others, 20*time.Millisecond, func(conn *pgx.Conn) {
		m.cancelRecent(drainCtx, conn, cancelRng, check, "operator cancel_job")
	})
	{
		conn := connect(t, ctx, pool)
		others.Add(1)
		go func() {
			defer others.Done()
			tick := time.NewTicker(100 * time.Millisecond)
			defer tick.Stop()
			for {
				select {
				case <-drainCtx.Done():
					return
				case <-tick.C:
				}
				// Draining, retries wait for no backoff (rescues back off for
				// attempt^4 seconds): promote as if a day had passed.
				_, err := conn.Exec(drainCtx, `SELECT count(*) FROM awa.promote_due_jobs(1000,
					CASE WHEN $1 THEN now() + interval '1 day' END)`, draining.Load())
				check(drainCtx, "promote_due_jobs", err)
				m.rescue(drainCtx, conn, "1 hour", check)
				for _, ring := range []string{"queue", "claim", "cursor"} {
					_, err := conn.Exec(drainCtx, `SELECT count(*) FROM awa.rotate_ring($1)`, ring)
					check(drainCtx, "rotate_ring("+ring+")", err)
					var outcome string
					err = conn.QueryRow(drainCtx, `SELECT outcome FROM awa.prune_ring($1, 50, 0)`, ring).Scan(&outcome)
					if check(drainCtx, "prune_ring("+ring+")", err) && outcome == "pruned" {
						pruned[ring].Add(1)
					}
				}
			}
		}()
	}

	select {
	case <-time.After(run):
	case <-failCtx.Done():
	}
	stopProducing.Store(true)
	producers.Wait()
	draining.Store(true)
	// Drain: every committed job must end; retries come back through
	// promotion. The machine may be slow: fail only when the drain stops
	// making progress.
	m.awaitDrained(failCtx, ctx, pool, fail)
	stopOthers()
	others.Wait()
	late.Wait()
	if err := fail.get(); err != nil {
		t.Fatal(err)
	}

	inserted, twice := m.summary()
	t.Logf("%d jobs committed over %v, every one ended once; outcomes: %v", inserted, run, m.byOutcome())
	if len(twice) > 0 {
		t.Fatalf("%d jobs ended more than once, e.g. %v", len(twice), firstN(twice, 10))
	}
	t.Logf("slots pruned: queue ring %d, claim ring %d, cursor ring %d", pruned["queue"].Load(), pruned["claim"].Load(),
		pruned["cursor"].Load())
	if pruned["queue"].Load() == 0 || pruned["claim"].Load() == 0 || pruned["cursor"].Load() == 0 {
		t.Fatalf("maintenance never pruned a slot of every ring (queue %d, claim %d, cursor %d): it took no exclusive lock",
			pruned["queue"].Load(), pruned["claim"].Load(), pruned["cursor"].Load())
	}
	if n := seen40P01.Load(); n > 0 {
		t.Fatalf("sessions saw %d deadlocks (40P01)", n)
	}
	// Backends report their counters when they go idle or exit: close ours.
	pool.Reset()
	time.Sleep(1500 * time.Millisecond)
	var deadlocksAfter int64
	if err := pool.QueryRow(ctx, `SELECT deadlocks FROM pg_stat_database WHERE datname = current_database()`).
		Scan(&deadlocksAfter); err != nil {
		t.Fatal(err)
	}
	if deadlocksAfter != deadlocksBefore {
		t.Fatalf("pg_stat_database.deadlocks went from %d to %d", deadlocksBefore, deadlocksAfter)
	}
	for _, q := range queues {
		if c := queueCounts(t, ctx, pool, q); c.Running != 0 || c.Scheduled != 0 || c.Retryable != 0 {
			t.Fatalf("queue %s after the drain: %+v; want nothing running, scheduled or retryable", q, c)
		}
	}
}

// mixedProduce runs one producer transaction: one awa.insert_job, or one
// awa.insert_jobs call of 2..12 jobs over both queues and all priorities,
// a tenth of them scheduled 300 ms ahead. It returns the committed ids.
func mixedProduce(ctx context.Context, conn *pgx.Conn, rng *rand.Rand, queues []string) ([]int64, error) {
	tx, err := conn.Begin(ctx)
	if err != nil {
		return nil, err
	}
	defer func() { _ = tx.Rollback(context.Background()) }()
	var ids []int64
	if rng.IntN(2) == 0 {
		id, err := insertOne(ctx, tx, queues[rng.IntN(2)], 1+rng.IntN(4))
		if err != nil {
			return nil, err
		}
		ids = []int64{id}
	} else {
		n := 2 + rng.IntN(11)
		opts := make([]string, n)
		for i := range opts {
			o := fmt.Sprintf(`{"queue": %q, "priority": %d`, queues[rng.IntN(2)], 1+rng.IntN(4))
			if rng.IntN(10) == 0 {
				o += fmt.Sprintf(`, "run_at": %q`, time.Now().Add(300*time.Millisecond).UTC().Format(time.RFC3339Nano))
			}
			opts[i] = o + "}"
		}
		ids, err = collectIDs(tx.Query(ctx, `
			SELECT j.id FROM awa.insert_jobs(array_fill('k'::text, ARRAY[$1::int]), NULL, $2::jsonb[]) AS j`, n, opts))
		if err != nil {
			return nil, err
		}
	}
	return ids, tx.Commit(ctx)
}

// mixedClaim claims 1..20 jobs of queue; a quarter of the time it claims
// twice in one transaction before committing.
func mixedClaim(ctx context.Context, conn *pgx.Conn, rng *rand.Rand, queue string) ([]claimed, error) {
	tx, err := conn.Begin(ctx)
	if err != nil {
		return nil, err
	}
	defer func() { _ = tx.Rollback(context.Background()) }()
	var got []claimed
	for i := 0; i < 1+boolInt(rng.IntN(4) == 0); i++ {
		cs, err := claim(ctx, tx, queue, 1+rng.IntN(20), nil)
		if err != nil {
			return nil, err
		}
		for j := range cs {
			cs[j].Queue = queue
		}
		got = append(got, cs...)
	}
	return got, tx.Commit(ctx)
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// splitByAction deals claimed jobs to finalizer actions: mostly complete,
// some retry, fail and cancel.
func splitByAction(js []claimed, rng *rand.Rand) map[string][]claimed {
	out := map[string][]claimed{}
	for _, j := range js {
		a := "complete"
		switch r := rng.IntN(100); {
		case r < 10:
			a = "retry"
		case r < 15:
			a = "fail"
		case r < 20:
			a = "cancel"
		}
		out[a] = append(out[a], j)
	}
	return out
}

// mixedLedger records, per committed job, every terminal outcome reported
// for it by an applied finalizer, cancel or rescue row.
type mixedLedger struct {
	mu       sync.Mutex
	inserted map[int64]bool
	order    []int64
	ended    map[int64][]string
}

func (m *mixedLedger) insert(ids []int64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, id := range ids {
		m.inserted[id] = true
		m.order = append(m.order, id)
	}
}

func (m *mixedLedger) end(who string, res []finalized) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, r := range res {
		if r.Outcome != "applied" || r.State == nil {
			continue
		}
		switch *r.State {
		case "completed", "failed", "cancelled":
			m.ended[r.JobID] = append(m.ended[r.JobID], who+":"+*r.State)
		}
	}
}

// checkFunc reports err (nil: true) of the call who made; an error whose
// SQLSTATE is among expected, or one after ctx ended, is no failure but
// returns false too (no result to record).
type checkFunc func(ctx context.Context, who string, err error, expected ...string) bool

// finalize finalizes a claimed batch as the stress tests' workers do: a job
// for which lateAfter says (d, true) is completed on its own from pool d
// later (tracked by late); the rest, split by splitByAction, on conn. Every
// applied result is recorded; who names the worker in failures.
func (m *mixedLedger) finalize(ctx context.Context, pool *pgxpool.Pool, conn *pgx.Conn, late *sync.WaitGroup,
	rng *rand.Rand, batch []claimed, lateAfter func(claimed) (time.Duration, bool), check checkFunc, who string) {
	var now []claimed
	for _, j := range batch {
		if d, isLate := lateAfter(j); isLate {
			late.Add(1)
			time.AfterFunc(d, func() {
				defer late.Done()
				res, err := complete(ctx, pool, []claimed{j})
				if check(ctx, "late complete", err) {
					m.end("late complete", res)
				}
			})
			continue
		}
		now = append(now, j)
	}
	for action, js := range splitByAction(now, rng) {
		res, err := finalizeAs(ctx, conn, action, js)
		if check(ctx, fmt.Sprintf("%s (%s)", who, action), err) {
			m.end(action, res)
		}
	}
}

// cancelRecent is the operator: it cancels one of the recent jobs on conn
// (AW020, AW021: the job is gone or has ended) and records the result.
func (m *mixedLedger) cancelRecent(ctx context.Context, conn *pgx.Conn, rng *rand.Rand, check checkFunc, who string) {
	id, ok := m.recent(rng)
	if !ok {
		return
	}
	res, err := collectFinalized(conn.Query(ctx, `
		SELECT f.job_id, f.run_lease, f.outcome::text, f.state::text FROM awa.cancel_job($1) AS f`, id))
	if check(ctx, who, err, "AW020", "AW021") {
		m.end("cancel_job", res)
	}
}

// rescue runs both rescues on conn, stale claims after staleness (an
// interval literal), and records what they ended.
func (m *mixedLedger) rescue(ctx context.Context, conn *pgx.Conn, staleness string, check checkFunc) {
	res, err := collectFinalized(conn.Query(ctx, `
		SELECT f.job_id, f.run_lease, f.outcome::text, f.state::text FROM awa.rescue_stale_claims($1::interval, 1000) AS f`,
		staleness))
	if check(ctx, "rescue_stale_claims", err) {
		m.end("rescue_stale", res)
	}
	res, err = collectFinalized(conn.Query(ctx, `
		SELECT f.job_id, f.run_lease, f.outcome::text, f.state::text FROM awa.rescue_expired_deadlines(1000) AS f`))
	if check(ctx, "rescue_expired_deadlines", err) {
		m.end("rescue_deadline", res)
	}
}

// repeatOnConn runs step on a connection of its own (opened with ctx) every
// pause until runCtx ends, in a goroutine counted by wg.
func repeatOnConn(t *testing.T, ctx, runCtx context.Context, pool *pgxpool.Pool, wg *sync.WaitGroup, pause time.Duration,
	step func(conn *pgx.Conn)) {
	conn := connect(t, ctx, pool)
	wg.Add(1)
	go func() {
		defer wg.Done()
		for runCtx.Err() == nil {
			time.Sleep(pause)
			step(conn)
		}
	}()
}

// awaitDrained waits until every committed job has ended or runCtx ends. The
// machine may be slow: it fails (through fail) only when the number of open
// jobs stops falling for 20 s, naming some of them as awa.jobs (read with
// ctx) has them.
func (m *mixedLedger) awaitDrained(runCtx, ctx context.Context, pool *pgxpool.Pool, fail *errOnce) {
	for best, since := -1, time.Now(); runCtx.Err() == nil; time.Sleep(200 * time.Millisecond) {
		open := m.open()
		if len(open) == 0 {
			return
		}
		if best < 0 || len(open) < best {
			best, since = len(open), time.Now()
		} else if time.Since(since) > 20*time.Second {
			fail.set("%d committed jobs never ended (no progress for 20 s), e.g. %v; awa.jobs has them as %s", len(open),
				firstN(open, 10), describeJobs(ctx, pool, open[:min(10, len(open))]))
		}
	}
}

// recent picks one of the last 200 committed jobs.
func (m *mixedLedger) recent(rng *rand.Rand) (int64, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return pickRecent(m.order, rng, 200)
}

func (m *mixedLedger) open() []int64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []int64
	for id := range m.inserted {
		if len(m.ended[id]) == 0 {
			out = append(out, id)
		}
	}
	return out
}

func (m *mixedLedger) summary() (inserted int, twice []string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, id := range sortedKeys(m.ended) {
		if !m.inserted[id] {
			twice = append(twice, fmt.Sprintf("job %d ended but was never committed: %v", id, m.ended[id]))
		} else if len(m.ended[id]) > 1 {
			twice = append(twice, fmt.Sprintf("job %d: %v", id, m.ended[id]))
		}
	}
	return len(m.inserted), twice
}

func (m *mixedLedger) byOutcome() map[string]int {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := map[string]int{}
	for _, e := range m.ended {
		for _, s := range e {
			out[s]++
		}
	}
	return out
}

// describeJobs lists what awa.jobs says about ids (for failure messages).
func describeJobs(ctx context.Context, q rowQuerier, ids []int64) string {
	rows, err := q.Query(ctx, `SELECT i.id, coalesce(string_agg(j.state::text || '/lease ' || j.run_lease, ', '), 'no row')
		FROM unnest($1::bigint[]) AS i (id) LEFT JOIN awa.jobs j ON j.id = i.id GROUP BY i.id ORDER BY i.id`, ids)
	if err != nil {
		return err.Error()
	}
	out := ""
	var id int64
	var st string
	_, err = pgx.ForEachRow(rows, []any{&id, &st}, func() error { out += fmt.Sprintf("[job %d: %s] ", id, st); return nil })
	if err != nil {
		return err.Error()
	}
	return out
}
