package driver_test

import (
	"context"
	"testing"
	"time"

	"github.com/awa-queue/awa/driver"
	"github.com/awa-queue/awa/internal/pgtest"
)

// TestTableStatsListsEveryAwaTable: TableStats reports every table of schema
// awa (ring children, backlog, control), with sizes, and nothing else.
func TestTableStatsListsEveryAwaTable(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	pool := pgtest.NewDB(t)
	d := driver.New()
	if _, err := d.Insert(ctx, pool, driver.InsertParams{Kind: "k", Args: []byte(`{}`)}); err != nil {
		t.Fatal(err)
	}
	stats, err := d.TableStats(ctx, pool)
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]driver.TableStat{}
	for i, s := range stats {
		if i > 0 && stats[i-1].Table >= s.Table {
			t.Errorf("not sorted by name: %q before %q", stats[i-1].Table, s.Table)
		}
		byName[s.Table] = s
	}
	for _, name := range []string{"ready_entries_0", "ready_entries_15", "claim_batches_7", "leases_0",
		"cursor_marks_1", "deferred_jobs", "dlq_entries", "queue_claim_heads", "ring_rotations"} {
		s, ok := byName[name]
		if !ok {
			t.Errorf("no statistics for awa.%s", name)
			continue
		}
		if s.SizeBytes <= 0 {
			t.Errorf("awa.%s: size %d, want > 0", name, s.SizeBytes)
		}
		if s.Inserted < 0 || s.Updated < s.HOTUpdated || s.DeadTuples < 0 {
			t.Errorf("awa.%s: implausible figures %+v", name, s)
		}
	}
	if _, ok := byName["pg_class"]; ok {
		t.Errorf("statistics include tables outside schema awa")
	}
}
