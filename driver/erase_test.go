package driver_test

import (
	"errors"
	"testing"
	"time"

	"github.com/awa-queue/awa/driver"
)

// TestEraseJob: EraseJob cancels an available job and erases its args and
// metadata in every row that holds them, reports each plane it rewrote, and
// maps an unknown job to ErrJobNotFound.
func TestEraseJob(t *testing.T) {
	ctx, pool := parallelDB(t, time.Minute)
	d := driver.New()
	j, err := d.Insert(ctx, pool, driver.InsertParams{Kind: "erase.k", Args: []byte(`{"email": "someone@example.com"}`),
		Opts: driver.InsertOpts{Queue: "erase"}})
	if err != nil {
		t.Fatal(err)
	}
	got, err := d.EraseJob(ctx, pool, j.ID, false)
	if err != nil {
		t.Fatalf("EraseJob: %v", err)
	}
	want := []driver.Erased{{Plane: "ready", Rows: 1}, {Plane: "done", Rows: 1}}
	if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] {
		t.Fatalf("EraseJob = %+v, want %+v", got, want)
	}
	var state, args string
	var erasedAt bool
	if err := pool.QueryRow(ctx, `SELECT state::text, args::text, metadata ? 'erased_at' FROM awa.job($1)`, j.ID).
		Scan(&state, &args, &erasedAt); err != nil {
		t.Fatal(err)
	}
	if state != "cancelled" || args != "{}" || !erasedAt {
		t.Fatalf("after EraseJob: state %s, args %s, erased_at in metadata %v; want cancelled, {}, true", state, args, erasedAt)
	}
	var left int
	if err := pool.QueryRow(ctx, `SELECT (SELECT count(*) FROM awa.ready_entries WHERE args::text LIKE '%someone@%')
	                                   + (SELECT count(*) FROM awa.done_entries WHERE args::text LIKE '%someone@%')`).Scan(&left); err != nil || left != 0 {
		t.Fatalf("rows still holding the email: %d, %v; want 0", left, err)
	}
	if _, err := d.EraseJob(ctx, pool, -1, false); !errors.Is(err, driver.ErrJobNotFound) {
		t.Fatalf("EraseJob(-1) = %v, want ErrJobNotFound", err)
	}
}

// TestRetryJob: RetryJob runs a failed job again from attempt 0, and maps a
// job with nothing to retry to ErrInvalidJobState and an unknown one to
// ErrJobNotFound.
func TestRetryJob(t *testing.T) {
	ctx, pool := parallelDB(t, time.Minute)
	d := driver.New()
	j, err := d.Insert(ctx, pool, driver.InsertParams{Kind: "retry.k", Args: []byte(`{}`),
		Opts: driver.InsertOpts{Queue: "retry_one", MaxAttempts: 1}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := d.RetryJob(ctx, pool, j.ID, time.Time{}); !errors.Is(err, driver.ErrInvalidJobState) {
		t.Fatalf("RetryJob of an available job = %v, want ErrInvalidJobState", err)
	}
	cs, err := d.Claim(ctx, pool, "retry_one", 1, [16]byte{}, time.Hour)
	if err != nil || len(cs) != 1 {
		t.Fatalf("claim: %d, %v", len(cs), err)
	}
	if _, err := d.Fail(ctx, pool, []driver.ReasonItem{{Receipt: cs[0].Receipt, Reason: "boom"}}); err != nil {
		t.Fatal(err)
	}
	got, err := d.RetryJob(ctx, pool, j.ID, time.Time{})
	if err != nil || got.ID != j.ID || got.State != driver.StateAvailable {
		t.Fatalf("RetryJob of the failed job = %+v, %v; want it available", got, err)
	}
	if _, err := d.RetryJob(ctx, pool, -1, time.Time{}); !errors.Is(err, driver.ErrJobNotFound) {
		t.Fatalf("RetryJob(-1) = %v, want ErrJobNotFound", err)
	}
}

// TestBulkCancelAndRetryJobs: BulkCancelJobs cancels a queue's unfinished
// jobs up to its limit; BulkRetryJobs runs the cancelled ones again; no
// filter at all is ErrInvalidArgument.
func TestBulkCancelAndRetryJobs(t *testing.T) {
	ctx, pool := parallelDB(t, time.Minute)
	d := driver.New()
	for i := 0; i < 3; i++ {
		if _, err := d.Insert(ctx, pool, driver.InsertParams{Kind: "bulk.k", Args: []byte(`{}`),
			Opts: driver.InsertOpts{Queue: "bulk_q"}}); err != nil {
			t.Fatal(err)
		}
	}
	got, err := d.BulkCancelJobs(ctx, pool, driver.BulkFilter{Queue: "bulk_q", Limit: 2}, "incident 42")
	if err != nil || len(got) != 2 || !got[0].Applied || got[0].State != driver.StateCancelled || got[0].JobID <= got[1].JobID {
		t.Fatalf("BulkCancelJobs(limit 2) = %+v, %v; want the two newest cancelled", got, err)
	}
	again, err := d.BulkRetryJobs(ctx, pool, driver.BulkFilter{Queue: "bulk_q", States: []driver.JobState{driver.StateCancelled}},
		time.Time{})
	if err != nil || len(again) != 2 || !again[0].Applied || again[0].State != driver.StateAvailable {
		t.Fatalf("BulkRetryJobs(cancelled) = %+v, %v; want both available", again, err)
	}
	if _, err := d.BulkCancelJobs(ctx, pool, driver.BulkFilter{}, ""); !errors.Is(err, driver.ErrInvalidArgument) {
		t.Fatalf("BulkCancelJobs without a filter = %v, want ErrInvalidArgument", err)
	}
}
