package pgstats_test

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/awa-queue/awa/internal/pgstats"
	"github.com/awa-queue/awa/internal/pgtest"
)

// TestReadListsEveryAwaTable: Read in schema awa reports every table of it
// (ring children, backlog, control), sorted, with sizes, and nothing else.
func TestReadListsEveryAwaTable(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	pool := pgtest.NewDB(t)
	if _, err := pool.Exec(ctx, "SELECT * FROM awa.insert_job('k', '{}', NULL)"); err != nil {
		t.Fatal(err)
	}
	stats, err := pgstats.Read(ctx, pool, pgstats.InSchema("awa"))
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]pgstats.TableStat{}
	for i, s := range stats {
		if i > 0 && stats[i-1].Table >= s.Table {
			t.Errorf("not sorted by name: %q before %q", stats[i-1].Table, s.Table)
		}
		byName[s.Table] = s
	}
	for _, name := range []string{"awa.ready_entries_0", "awa.ready_entries_15", "awa.claim_batches_7",
		"awa.leases_0", "awa.cursor_marks_1", "awa.deferred_jobs", "awa.dlq_entries", "awa.queue_claim_heads",
		"awa.ring_rotations"} {
		s, ok := byName[name]
		if !ok {
			t.Errorf("no statistics for %s", name)
			continue
		}
		if s.SizeBytes <= 0 {
			t.Errorf("%s: size %d, want > 0", name, s.SizeBytes)
		}
		if s.Ins < 0 || s.Upd < s.HotUpd || s.Dead < 0 {
			t.Errorf("%s: implausible figures %+v", name, s)
		}
	}
	for name := range byName {
		if len(name) < 4 || name[:4] != "awa." {
			t.Errorf("statistics include %s, outside schema awa", name)
		}
	}
}

// TestSettledWaitsForAnotherSessionsFigures: the rows another session
// inserted reach Settled once that session has exited, and Since counts
// them from a base read.
func TestSettledWaitsForAnotherSessionsFigures(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	dsn := pgtest.NewDBDSN(t)
	monitor, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer monitor.Close(context.Background())
	if _, err := monitor.Exec(ctx, "CREATE TABLE public.counted (n int)"); err != nil {
		t.Fatal(err)
	}
	own := func(schema, name string) bool { return schema == "public" && name == "counted" }
	base, err := pgstats.Read(ctx, monitor, own)
	if err != nil {
		t.Fatal(err)
	}

	writer, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := writer.Exec(ctx, "INSERT INTO public.counted SELECT generate_series(1, 25)"); err != nil {
		t.Fatal(err)
	}
	if _, err := writer.Exec(ctx, "DELETE FROM public.counted WHERE n <= 5"); err != nil {
		t.Fatal(err)
	}
	if err := writer.Close(ctx); err != nil { // a backend flushes its figures as it exits
		t.Fatal(err)
	}

	end, err := pgstats.Settled(ctx, monitor, own)
	if err != nil {
		t.Fatal(err)
	}
	if len(end) != 1 || end[0].Table != "public.counted" {
		t.Fatalf("Settled returned %+v, want public.counted alone", end)
	}
	if end[0].Ins != 25 || end[0].Del != 5 {
		t.Errorf("settled: %d inserted, %d deleted; want 25 and 5", end[0].Ins, end[0].Del)
	}
	d := pgstats.Since(base, end)
	if d[0].Ins != 25 || d[0].Del != 5 || d[0].Live != end[0].Live || d[0].SizeBytes != end[0].SizeBytes {
		t.Errorf("Since: %+v from %+v and %+v", d[0], base, end[0])
	}
}
