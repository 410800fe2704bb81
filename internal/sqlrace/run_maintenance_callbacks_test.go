package sqlrace

import (
	"encoding/json"
	"testing"
	"time"
)

// TestRunMaintenanceRescuesTimedOutCallbacks: one CALL of awa.run_maintenance
// retries a parked job and an attempt waiting in sequence whose callbacks
// timed out, and reports them under rescued_callback; a callback still within
// its timeout is left waiting.
func TestRunMaintenanceRescuesTimedOutCallbacks(t *testing.T) {
	ctx, pool := newDB(t, 60*time.Second)
	conn := connect(t, ctx, pool)
	mustInsertBatch(t, ctx, conn, "cbm", 2, 3)
	cs, err := claim(ctx, conn, "cbm", 3, nil)
	if err != nil || len(cs) != 3 {
		t.Fatalf("claim: %v, %v", cs, err)
	}
	timeouts := []string{"1 second", "1 second", "1 hour"}
	for i, c := range cs {
		if _, err := conn.Exec(ctx, `SELECT * FROM awa.register_callback($1, $2, $3, $4, $5::interval)`,
			c.ID, c.RunLease, c.ClaimSlot, c.ReceiptID, timeouts[i]); err != nil {
			t.Fatal(err)
		}
	}
	parked := cs[0]
	if _, err := conn.Exec(ctx, `SELECT * FROM awa.park_jobs(ARRAY[$1::bigint], ARRAY[$2::bigint], ARRAY[$3::int], ARRAY[$4::bigint])`,
		parked.ID, parked.RunLease, parked.ClaimSlot, parked.ReceiptID); err != nil {
		t.Fatal(err)
	}
	time.Sleep(1100 * time.Millisecond)

	var raw []byte
	if err := conn.QueryRow(ctx, `CALL awa.run_maintenance(p_holder => $1::uuid)`, holderA).Scan(&raw); err != nil {
		t.Fatal(err)
	}
	var report map[string]any
	if err := json.Unmarshal(raw, &report); err != nil {
		t.Fatalf("report %s: %v", raw, err)
	}
	if report["leader"] != true || report["rescued_callback"] != float64(2) {
		t.Fatalf("report %s; want leader and rescued_callback 2", raw)
	}
	var states map[string]string
	if err := conn.QueryRow(ctx, `SELECT jsonb_object_agg(id::text, state::text) FROM awa.jobs WHERE queue = 'cbm'`).Scan(&states); err != nil {
		t.Fatal(err)
	}
	for i, want := range []string{"retryable", "retryable", "waiting_external"} {
		if got := states[jsonID(cs[i].ID)]; got != want {
			t.Fatalf("job %d (timeout %s) is %q after the tick; want %s (states %v)", cs[i].ID, timeouts[i], got, want, states)
		}
	}
}
