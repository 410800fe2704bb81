package benchkit

import (
	"context"
	"regexp"
	"strconv"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/awa-queue/awa/driver"
)

// ringNames are awa's rings, in the order the output lists them.
var ringNames = []string{"queue", "claim", "lease", "cursor"}

// RingTally counts the ring outcomes (one per rotate or prune attempt) that
// the awa worker client's maintenance reports while it runs
// (driver.EventRingMaintenance): ring → outcome → count; and, per ring, the
// prunes that carried rows forward and how many.
type RingTally struct {
	mu      sync.Mutex
	counts  map[string]map[string]int
	carries map[string]int
	rows    map[string]int64
	dropped int64
}

// carriedRows reads how many rows a prune outcome says it carried forward:
// prune_ring's detail is the only place that says it ("moved N available
// jobs", "after moving N available jobs", "after carrying N live leases |
// claim batches of running jobs"), so
// a change of its wording shows as no carry at all (the bench test's lease
// ring check fails).
var carriedRows = regexp.MustCompile(`(?:moved|moving|carrying) (\d+) `)

func (t *RingTally) add(o *driver.RingOutcome) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.counts == nil {
		t.counts, t.carries, t.rows = map[string]map[string]int{}, map[string]int{}, map[string]int64{}
	}
	if t.counts[o.Ring] == nil {
		t.counts[o.Ring] = map[string]int{}
	}
	t.counts[o.Ring][o.Outcome]++
	if o.Action != "prune" || (o.Outcome != "pruned" && o.Outcome != "carried") {
		return
	}
	var n int64
	for _, m := range carriedRows.FindAllStringSubmatch(o.Detail, -1) {
		k, _ := strconv.ParseInt(m[1], 10, 64)
		n += k
	}
	if n > 0 {
		t.carries[o.Ring]++
		t.rows[o.Ring] += n
	}
}

// Counts returns a copy of the counts, every ring present.
func (t *RingTally) Counts() map[string]map[string]int {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := map[string]map[string]int{}
	for _, r := range ringNames {
		out[r] = map[string]int{}
		for k, v := range t.counts[r] {
			out[r][k] = v
		}
	}
	return out
}

// Carries returns, per ring, the prunes that carried rows forward and the
// rows they carried (available jobs, live leases, claim batches).
func (t *RingTally) Carries() (carries map[string]int, rows map[string]int64) {
	t.mu.Lock()
	defer t.mu.Unlock()
	carries, rows = map[string]int{}, map[string]int64{}
	for _, r := range ringNames {
		carries[r], rows[r] = t.carries[r], t.rows[r]
	}
	return carries, rows
}

// Dropped is how many events the client dropped (its subscriber's channel was
// full): the counts miss that many outcomes.
func (t *RingTally) Dropped() int64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.dropped
}

// ringSizeEvery is how often a run samples its ring tables' size.
const ringSizeEvery = time.Second

// ringSizes samples, on a connection of its own, the on-disk size of each
// ring's tables and keeps the peak: what pg_total_relation_size says of
// every slot's child (indexes, TOAST and the free-space and visibility
// forks included; segments past the first GiB of a file are not), read
// from the files (pg_stat_file, a superuser's or pg_read_server_files')
// found through the catalog. No lock: pg_total_relation_size would take
// ACCESS SHARE on each child, and a prune would wait for the sample. A
// sample that fails is counted as missed.
type ringSizes struct {
	conn         *pgx.Conn
	stop, done   chan struct{}
	peak         map[string]int64
	taken, missd int
}

func startRingSizes(ctx context.Context, dsn string) (*ringSizes, error) {
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		return nil, err
	}
	rs := &ringSizes{conn: conn, stop: make(chan struct{}), done: make(chan struct{}), peak: map[string]int64{}}
	rs.sample(ctx)
	go tickUntil(ctx, ringSizeEvery, rs.stop, rs.done, func(int) { rs.sample(ctx) })
	return rs, nil
}

func (rs *ringSizes) sample(ctx context.Context) {
	// A file a TRUNCATE just replaced counts as empty (missing_ok).
	rows, err := rs.conn.Query(ctx, `/*bench*/ SELECT r.ring,
		       coalesce(sum((pg_stat_file(pg_relation_filepath(f.oid) || k.fork, true)).size), 0)::bigint
		FROM unnest($1::text[]) AS r (ring)
		CROSS JOIN LATERAL unnest(awa._ring_tables(r.ring)) AS p (parent)
		JOIN pg_inherits i ON i.inhparent = format('awa.%I', p.parent)::regclass
		CROSS JOIN LATERAL (SELECT i.inhrelid UNION ALL SELECT c.reltoastrelid FROM pg_class c
		                    WHERE c.oid = i.inhrelid AND c.reltoastrelid <> 0) AS h (rel)
		CROSS JOIN LATERAL (SELECT h.rel UNION ALL SELECT x.indexrelid FROM pg_index x WHERE x.indrelid = h.rel) AS f (oid)
		CROSS JOIN unnest(ARRAY['', '_fsm', '_vm']) AS k (fork)
		GROUP BY r.ring`, ringNames)
	if err != nil {
		rs.missd++
		return
	}
	got := map[string]int64{}
	var ring string
	var size int64
	if _, err := pgx.ForEachRow(rows, []any{&ring, &size}, func() error {
		got[ring] = size
		return nil
	}); err != nil {
		rs.missd++
		return
	}
	rs.taken++
	for r, v := range got {
		rs.peak[r] = max(rs.peak[r], v)
	}
}

// Stop ends the sampling and returns the peaks (ring → bytes) and how many
// samples were taken and missed.
func (rs *ringSizes) Stop() (peak map[string]int64, taken, missed int) {
	close(rs.stop)
	<-rs.done
	rs.conn.Close(context.Background())
	return rs.peak, rs.taken, rs.missd
}

// tickUntil calls f with the tick number (from 1) every d until stop is
// closed or ctx ends, then closes done.
func tickUntil(ctx context.Context, d time.Duration, stop <-chan struct{}, done chan<- struct{}, f func(tick int)) {
	defer close(done)
	t := time.NewTicker(d)
	defer t.Stop()
	for tick := 1; ; tick++ {
		select {
		case <-stop:
			return
		case <-ctx.Done():
			return
		case <-t.C:
		}
		f(tick)
	}
}
