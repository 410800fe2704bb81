package sqlrace

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// PruneLoadSecondsEnv sets the length of TestRingPrunesKeepUpUnderSustainedLoad
// (default 20 seconds).
const PruneLoadSecondsEnv = "AWA_PRUNE_LOAD_SECONDS"

// ringLog records, for one ring, every prune and rotate outcome of a
// maintenance loop, and the longest time between two prunes that reclaimed
// (or found nothing to reclaim).
type ringLog struct {
	mu       sync.Mutex
	prune    map[string]int
	rotate   map[string]int
	lastGood time.Time
	worstGap time.Duration
	maxRows  int64
}

func (l *ringLog) record(action, outcome string, at time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if action == "rotate" {
		l.rotate[outcome]++
		return
	}
	l.prune[outcome]++
	if outcome == "pruned" || outcome == "already_empty" {
		l.worstGap = max(l.worstGap, at.Sub(l.lastGood))
		l.lastGood = at
	}
}

func (l *ringLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return fmt.Sprintf("prune %v, rotate %v, longest without a prune %v, most rows %d",
		sortedCounts(l.prune), sortedCounts(l.rotate), l.worstGap.Round(time.Millisecond), l.maxRows)
}

func sortedCounts(m map[string]int) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s:%d", k, m[k])
	}
	return strings.Join(parts, " ")
}

// ringRowTables: per ring, the parent whose rows grow with the load.
var ringRowTables = map[string]string{
	"queue": "ready_entries", "claim": "claim_batches", "cursor": "cursor_marks",
}

// TestRingPrunesKeepUpUnderSustainedLoad: prune takes a slot's exclusive
// locks only when no transaction holds a share lock on any of the slot's
// tables, and under load such an instant may never come: every claim holds a
// share lock on every ready and tombstone child and every cursor_marks child
// for its whole transaction, producers read every ready child and the cursor,
// finalizers the claim ring. With NOWAIT attempts alone (ed45118), this run
// pruned the cursor ring 0 times in 20 s (198 skipped_blocked; rotation
// skipped_busy, marks piling up) and the queue ring 4 times. The load, each
// session on its own connection, with the Go maintainer's default 50 ms
// budget:
//   - 6 producers back to back (one insert_job, or one insert_jobs of 2..12);
//   - 6 claimers back to back, each completing what it claimed on its own
//     connection, spinning (1 ms) when the queues are empty;
//   - one maintenance loop per ring (queue, claim, lease, cursor), every
//     100 ms, their first ticks 25 ms apart: rotate then prune (again while it
//     carries, up to 25 ms); the cursor ring prunes first, as the Go service
//     does. The queue ring's proof reads the cursor, so its share lock on the
//     cursor's children stands while it tries for its own locks.
//
// The queue, claim and cursor rings must each prune a slot per 3 s of the run
// at least (with the fix, measured on 2 loaded cores: 14 to 39 cursor-ring
// prunes per 20 s), and never go more than half the run without a prune that
// reclaimed a slot (or found none to reclaim). Outcome counts, ring sizes and claim transaction
// times are logged.
func TestRingPrunesKeepUpUnderSustainedLoad(t *testing.T) {
	run := time.Duration(envInt(t, PruneLoadSecondsEnv, 20, 9)) * time.Second
	const budgetMs = 50
	ctx, pool := newDB(t, run+2*time.Minute)
	queues := []string{"ld_a", "ld_b"}

	failCtx, failCancel, fail := withErrOnce(ctx)
	defer failCancel()
	loadCtx, stopLoad := context.WithCancel(failCtx)
	defer stopLoad()
	var wg sync.WaitGroup
	var committed, finished atomic.Int64
	// loop runs step back to back on its own connection until the run ends.
	loop := func(who string, step func(ctx context.Context, conn *pgx.Conn) error) {
		conn := connect(t, ctx, pool)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for loadCtx.Err() == nil {
				if err := step(loadCtx, conn); err != nil && loadCtx.Err() == nil {
					fail.set("%s: %v", who, err)
				}
			}
		}()
	}
	for p := range 6 {
		rng := rand.New(rand.NewPCG(uint64(p), 11))
		loop(fmt.Sprintf("producer %d", p), func(ctx context.Context, conn *pgx.Conn) error {
			ids, err := mixedProduce(ctx, conn, rng, queues)
			committed.Add(int64(len(ids)))
			return err
		})
	}
	// Claim transactions' durations: what the hot path pays (logged only).
	var latMu sync.Mutex
	var claimLat []time.Duration
	for c := range 6 {
		rng := rand.New(rand.NewPCG(uint64(c), 12))
		loop(fmt.Sprintf("claimer %d", c), func(ctx context.Context, conn *pgx.Conn) error {
			began := time.Now()
			got, err := mixedClaim(ctx, conn, rng, queues[rng.IntN(2)])
			latMu.Lock()
			claimLat = append(claimLat, time.Since(began))
			latMu.Unlock()
			if err != nil || len(got) == 0 {
				time.Sleep(time.Millisecond)
				return err
			}
			res, err := complete(ctx, conn, got)
			finished.Add(int64(len(res)))
			return err
		})
	}

	logs := map[string]*ringLog{}
	start := time.Now()
	for i, ring := range []string{"queue", "claim", "lease", "cursor"} {
		phase := time.Duration(i) * 25 * time.Millisecond
		l := &ringLog{prune: map[string]int{}, rotate: map[string]int{}, lastGood: start}
		logs[ring] = l
		op := func(ctx context.Context, conn *pgx.Conn, action string) (string, error) {
			var outcome string
			var err error
			if action == "rotate" {
				err = conn.QueryRow(ctx, `SELECT outcome FROM awa.rotate_ring($1)`, ring).Scan(&outcome)
			} else {
				var detail *string
				err = conn.QueryRow(ctx, `SELECT outcome, detail FROM awa.prune_ring($1, $2)`, ring, budgetMs).Scan(&outcome, &detail)
				if err == nil && outcome == "skipped_blocked" && detail != nil {
					outcome += "(" + strings.Fields(*detail)[0] + ")"
				}
			}
			if err == nil {
				l.record(action, outcome, time.Now())
			}
			return outcome, err
		}
		loop(ring+" ring maintenance", func(ctx context.Context, conn *pgx.Conn) error {
			time.Sleep(phase) // the first tick only: the Go services' phases
			phase = 0
			tick := time.Now()
			defer func() { time.Sleep(time.Until(tick.Add(100 * time.Millisecond))) }()
			if ring == "cursor" {
				if _, err := op(ctx, conn, "prune"); err != nil {
					return err
				}
				_, err := op(ctx, conn, "rotate")
				return err
			}
			if _, err := op(ctx, conn, "rotate"); err != nil {
				return err
			}
			for until := time.Now().Add(25 * time.Millisecond); ; {
				o, err := op(ctx, conn, "prune")
				if err != nil || o != "carried" || time.Now().After(until) {
					return err
				}
			}
		})
	}
	// Ring sizes, once a second (the count takes share locks too, as any
	// monitoring query would).
	loop("ring size monitor", func(ctx context.Context, conn *pgx.Conn) error {
		time.Sleep(time.Second)
		for ring, table := range ringRowTables {
			var n int64
			if err := conn.QueryRow(ctx, fmt.Sprintf(`SELECT count(*) FROM awa.%s`, table)).Scan(&n); err != nil {
				return err
			}
			l := logs[ring]
			l.mu.Lock()
			l.maxRows = max(l.maxRows, n)
			l.mu.Unlock()
		}
		return nil
	})

	select {
	case <-time.After(run):
	case <-failCtx.Done():
	}
	stopLoad()
	wg.Wait()
	if err := fail.get(); err != nil {
		t.Fatal(err)
	}
	end := time.Now()
	slices.Sort(claimLat)
	pct := func(p float64) time.Duration {
		return claimLat[int(p*float64(len(claimLat)-1))].Round(10 * time.Microsecond)
	}
	t.Logf("%d jobs committed, %d finalized in %v; claim transactions: %d, p50 %v, p99 %v, p99.9 %v, max %v",
		committed.Load(), finished.Load(), run, len(claimLat), pct(0.5), pct(0.99), pct(0.999), pct(1))
	for _, ring := range []string{"queue", "claim", "lease", "cursor"} {
		l := logs[ring]
		l.mu.Lock()
		l.worstGap = max(l.worstGap, end.Sub(l.lastGood)) // the gap the run ended in
		l.mu.Unlock()
		t.Logf("%s ring: %v", ring, l)
	}
	if committed.Load() < 1000 || finished.Load() < 1000 {
		t.Fatalf("the load ran %d jobs in and %d out; want at least 1,000 each for the run to mean anything",
			committed.Load(), finished.Load())
	}
	for _, ring := range []string{"queue", "claim", "cursor"} {
		l := logs[ring]
		if want := int(run / (3 * time.Second)); l.prune["pruned"] < want {
			t.Errorf("%s ring: %d slots pruned in %v, want at least %d (%v)", ring, l.prune["pruned"], run, want, l)
		}
		if l.worstGap > run/2 {
			t.Errorf("%s ring: %v without a prune that reclaimed its slot (%v); want at most %v", ring,
				l.worstGap.Round(time.Millisecond), l, run/2)
		}
	}
}
