package sqlrace

import (
	"strings"
	"testing"
	"time"
)

// TestClaimAndQueuePendingRaiseAW002ForAQueueNameNoJobCanHave: a claim or a
// pending check of a queue name that no insert accepts (the empty name, spaces, 51
// characters) can never find a job. Before, both answered "nothing" with no
// error (a worker polling a typo such as "mail " forever), while insert,
// configure_queue and listen_queues raise AW002 for the same names: a silent
// no-op. Now they raise AW002 too and write nothing.
func TestClaimAndQueuePendingRaiseAW002ForAQueueNameNoJobCanHave(t *testing.T) {
	ctx, pool := newDB(t, 30*time.Second)
	for _, name := range []string{"", "mail ", "bad name!", strings.Repeat("a", 51)} {
		if _, err := claim(ctx, pool, name, 1, nil); sqlState(err) != "AW002" {
			t.Errorf("claim_ready_runtime(%q): %v, want AW002", name, err)
		}
		var pending, ready bool
		err := pool.QueryRow(ctx, `SELECT pending, ready FROM awa.queue_pending($1)`, name).Scan(&pending, &ready)
		if sqlState(err) != "AW002" {
			t.Errorf("queue_pending(%q): %v (pending %v), want AW002", name, err, pending)
		}
	}
	var batches, marks int64
	if err := pool.QueryRow(ctx, `SELECT (SELECT count(*) FROM awa.claim_batches), (SELECT count(*) FROM awa.cursor_marks)`).
		Scan(&batches, &marks); err != nil || batches != 0 || marks != 0 {
		t.Fatalf("claim batches %d, marks %d, %v: want nothing written", batches, marks, err)
	}
	// A valid name that holds nothing yet is not an error: the queue may get jobs later.
	if cs, err := claim(ctx, pool, "not_yet_created", 1, nil); err != nil || len(cs) != 0 {
		t.Fatalf("claim of a valid empty queue: %v, %v; want no row, no error", cs, err)
	}
}
