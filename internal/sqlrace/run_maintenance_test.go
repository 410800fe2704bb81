package sqlrace

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// maintenanceReport is awa.run_maintenance's report.
type maintenanceReport struct {
	Leader           bool          `json:"leader"`
	Promoted         int           `json:"promoted"`
	RescuedStale     int           `json:"rescued_stale"`
	RescuedDeadline  int           `json:"rescued_deadline"`
	InstancesRemoved int           `json:"instances_removed"`
	Rings            []ringOutcome `json:"rings"`
}

// runMaintenance calls awa.run_maintenance(holder, ...) in autocommit with
// the given named arguments (SQL text after the holder), as pg_cron would.
func runMaintenance(t *testing.T, ctx context.Context, conn *pgx.Conn, holder, args string) maintenanceReport {
	t.Helper()
	var raw []byte
	sql := `CALL awa.run_maintenance(p_holder => $1::uuid` + args + `)`
	if err := conn.QueryRow(ctx, sql, holder).Scan(&raw); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	var r maintenanceReport
	if err := json.Unmarshal(raw, &r); err != nil {
		t.Fatalf("report %s: %v", raw, err)
	}
	return r
}

func (r maintenanceReport) has(ring, action, outcome string) bool {
	for _, o := range r.Rings {
		if o.Ring == ring && o.Action == action && o.Outcome == outcome {
			return true
		}
	}
	return false
}

const (
	holderA = "00000000-0000-0000-0000-00000000000a"
	holderB = "00000000-0000-0000-0000-00000000000b"
	// Short intervals so one test sees rotations and rescues.
	quickTick = `, p_stale_after => interval '1 second', p_queue_ring_interval => interval '100 milliseconds',
		p_claim_ring_interval => interval '100 milliseconds', p_cursor_ring_interval => interval '100 milliseconds',
		p_keep_sealed => 0`
)

// TestRunMaintenanceDoesAWholeTickWhateverTheSessionsIsolation: in a session
// whose default isolation is REPEATABLE READ (where every maintenance
// function alone refuses with AW040), one CALL promotes a due scheduled job,
// rescues an attempt whose worker never heartbeats and one past its deadline,
// and rotates the rings, each step committed in its own READ COMMITTED
// transaction. Afterwards the promoted job is claimable and the rescued
// attempts are closed.
func TestRunMaintenanceDoesAWholeTickWhateverTheSessionsIsolation(t *testing.T) {
	ctx, pool := newDB(t, 60*time.Second)
	conn := connect(t, ctx, pool)
	if _, err := conn.Exec(ctx, `SET default_transaction_isolation = 'repeatable read'`); err != nil {
		t.Fatal(err)
	}

	var scheduled int64
	if err := conn.QueryRow(ctx, `SELECT id FROM awa.insert_job('k', '{}',
		jsonb_build_object('queue', 'later', 'run_at', now() + interval '300 milliseconds'))`).Scan(&scheduled); err != nil {
		t.Fatal(err)
	}
	silent, err := insertOne(ctx, conn, "work", 2)
	if err != nil {
		t.Fatal(err)
	}
	// Claimed in READ COMMITTED, as every claimer must.
	rc := func(f func(tx pgx.Tx) error) {
		t.Helper()
		tx, err := conn.BeginTx(ctx, pgx.TxOptions{IsoLevel: pgx.ReadCommitted})
		if err != nil {
			t.Fatal(err)
		}
		if err := f(tx); err != nil {
			t.Fatal(err)
		}
		if err := tx.Commit(ctx); err != nil {
			t.Fatal(err)
		}
	}
	rc(func(tx pgx.Tx) error {
		got, err := claim(ctx, tx, "work", 1, "00000000-0000-0000-0000-0000000000ff")
		if err == nil && (len(got) != 1 || got[0].ID != silent) {
			t.Fatalf("claim of the silent worker's job: %v", got)
		}
		return err
	})
	late, err := insertOne(ctx, conn, "late", 2)
	if err != nil {
		t.Fatal(err)
	}
	rc(func(tx pgx.Tx) error {
		var n int
		return tx.QueryRow(ctx, `SELECT count(*) FROM awa.claim_ready_runtime('late', 1, NULL, NULL, interval '100 milliseconds')`).Scan(&n)
	})
	time.Sleep(1200 * time.Millisecond)

	r := runMaintenance(t, ctx, conn, holderA, quickTick)
	if !r.Leader || r.Promoted != 1 || r.RescuedStale+r.RescuedDeadline != 2 {
		t.Fatalf("report %+v; want leader, 1 promoted, 2 rescued (stale or past deadline)", r)
	}
	if !r.has("queue", "rotate", "rotated") || !r.has("claim", "rotate", "rotated") {
		t.Fatalf("report rings %v; want the queue and claim rings rotated", r.Rings)
	}
	var states map[string]string
	if err := conn.QueryRow(ctx, `SELECT jsonb_object_agg(id::text, state::text) FROM awa.jobs WHERE id = ANY($1)`,
		[]int64{scheduled, silent, late}).Scan(&states); err != nil {
		t.Fatal(err)
	}
	for _, id := range []int64{silent, late} {
		if s := states[jsonID(id)]; s == "running" || s == "" {
			t.Fatalf("job %d is %q after the tick; want its attempt closed (states %v)", id, s, states)
		}
	}
	rc(func(tx pgx.Tx) error {
		got, err := claim(ctx, tx, "later", 1, nil)
		if err == nil && (len(got) != 1 || got[0].ID != scheduled) {
			t.Fatalf("claim of the promoted job: %v; want job %d", got, scheduled)
		}
		return err
	})
}

func jsonID(id int64) string {
	b, _ := json.Marshal(id)
	return string(b)
}

// TestRunMaintenanceActsOnlyForTheLeaseHolder: the procedure elects on the
// leader lease the Go clients use. While holder A's lease lives, holder B's
// call reports leader false and promotes nothing; once A's lease has expired
// (ttl 1 s), B leads.
func TestRunMaintenanceActsOnlyForTheLeaseHolder(t *testing.T) {
	ctx, pool := newDB(t, 60*time.Second)
	a, b := connect(t, ctx, pool), connect(t, ctx, pool)
	const ttl = `, p_lease_ttl => interval '1 second'`

	if r := runMaintenance(t, ctx, a, holderA, ttl); !r.Leader {
		t.Fatalf("A's first call: %+v; want leader", r)
	}
	if _, err := a.Exec(ctx, `SELECT * FROM awa.insert_job('k', '{}',
		jsonb_build_object('queue', 'later', 'run_at', now() + interval '50 milliseconds'))`); err != nil {
		t.Fatal(err)
	}
	time.Sleep(100 * time.Millisecond)
	if r := runMaintenance(t, ctx, b, holderB, ttl); r.Leader || r.Promoted != 0 || len(r.Rings) != 0 {
		t.Fatalf("B's call while A leads: %+v; want leader false and nothing done", r)
	}
	if s := jobStates(t, ctx, pool, "later"); s["scheduled"] != 1 {
		t.Fatalf("states %v after B's call; want the job still scheduled", s)
	}
	time.Sleep(1100 * time.Millisecond)
	if r := runMaintenance(t, ctx, b, holderB, ttl); !r.Leader || r.Promoted != 1 {
		t.Fatalf("B's call after A's lease expired: %+v; want leader and 1 promoted", r)
	}
}

// TestRunMaintenanceReclaimsTheRingsTickAfterTick: jobs flow through a queue
// while a scheduler calls the procedure every ~100 ms with 100 ms ring
// intervals and no sealed slot kept. The queue ring must wrap (every slot
// reclaimed and reused) and the ready rows stay bounded by a few slots'
// worth, not grow with the jobs that went through.
func TestRunMaintenanceReclaimsTheRingsTickAfterTick(t *testing.T) {
	const rounds, perRound = 60, 50
	ctx, pool := newDB(t, 120*time.Second)
	conn := connect(t, ctx, pool)
	for i := 0; i < rounds; i++ {
		mustInsertBatch(t, ctx, conn, "flow", 2, perRound)
		got, err := claim(ctx, conn, "flow", perRound, nil)
		if err != nil || len(got) != perRound {
			t.Fatalf("round %d: claim %d, %v", i, len(got), err)
		}
		if _, err := complete(ctx, conn, got); err != nil {
			t.Fatal(err)
		}
		if r := runMaintenance(t, ctx, conn, holderA, quickTick); !r.Leader {
			t.Fatalf("round %d: %+v; want leader", i, r)
		}
		time.Sleep(110 * time.Millisecond)
	}
	var gen int64
	var rows int
	if err := conn.QueryRow(ctx, `SELECT (SELECT max(generation) FROM awa.ring_rotations WHERE ring = 'queue'),
		(SELECT count(*)::int FROM awa.ready_entries)`).Scan(&gen, &rows); err != nil {
		t.Fatal(err)
	}
	var slots int64
	if err := conn.QueryRow(ctx, `SELECT slot_count FROM awa.ring_config WHERE ring = 'queue'`).Scan(&slots); err != nil {
		t.Fatal(err)
	}
	t.Logf("%d rounds: queue ring generation %d (%d slots), %d ready rows left", rounds, gen, slots, rows)
	if gen < slots+1 {
		t.Fatalf("queue ring generation %d after %d ticks; want a full wrap (> %d slots): rotation needs pruned slots", gen, rounds, slots)
	}
	if rows > 4*perRound {
		t.Fatalf("%d ready rows after %d jobs went through; want at most %d (a few slots' worth)", rows, rounds*perRound, 4*perRound)
	}
}
