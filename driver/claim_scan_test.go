package driver_test

// Claim's scan (driver.scanClaimed): the claim's rows are read straight into
// ClaimedJob values, the kind and queue strings shared within one claim.
// These tests compare every field of every claimed job with awa.jobs, for
// NULL and non-NULL values side by side in one claim, and check that the
// byte slices of one job are its own.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/awa-queue/awa/driver"
)

// jobFields is what awa.jobs says about a job, for comparison with a claim.
type jobFields struct {
	kind, queue       string
	priority          int16
	args, meta, errs  []byte // jsonb text; errs nil when NULL
	attempt, maxAtt   int
	tags              []string
	createdAt, runAt  time.Time
	runLease          int64
	state             string
	metaNull, argsNul bool
}

func readJobFields(t *testing.T, ctx context.Context, pool *pgxpool.Pool, id int64) jobFields {
	t.Helper()
	var f jobFields
	var args, meta, errs *string
	err := pool.QueryRow(ctx, `
		SELECT kind, queue, priority, args::text, metadata::text, errors::text, attempt, max_attempts, tags,
		       created_at, run_at, run_lease, state::text
		FROM awa.jobs WHERE id = $1`, id).Scan(&f.kind, &f.queue, &f.priority, &args, &meta, &errs, &f.attempt,
		&f.maxAtt, &f.tags, &f.createdAt, &f.runAt, &f.runLease, &f.state)
	if err != nil {
		t.Fatalf("read job %d: %v", id, err)
	}
	if args != nil {
		f.args = []byte(*args)
	}
	if meta != nil {
		f.meta = []byte(*meta)
	}
	if errs != nil {
		f.errs = []byte(*errs)
	}
	return f
}

// sameJSON reports whether a and b are the same JSON value (both nil: NULL).
func sameJSON(a, b []byte) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	return fmt.Sprint(x) == fmt.Sprint(y)
}

// requireClaimMatches fails unless claimed job j carries what awa.jobs says.
func requireClaimMatches(t *testing.T, ctx context.Context, pool *pgxpool.Pool, j driver.ClaimedJob) {
	t.Helper()
	f := readJobFields(t, ctx, pool, j.JobID)
	switch {
	case f.state != "running" || f.runLease != j.RunLease:
		t.Fatalf("job %d: awa.jobs says %s run_lease %d, the claim run_lease %d", j.JobID, f.state, f.runLease, j.RunLease)
	case j.Kind != f.kind || j.Queue != f.queue || j.Priority != f.priority:
		t.Fatalf("job %d: claimed kind %q queue %q priority %d, awa.jobs %q %q %d", j.JobID, j.Kind, j.Queue, j.Priority,
			f.kind, f.queue, f.priority)
	case !sameJSON(j.Args, f.args) || !sameJSON(j.Metadata, f.meta) || !sameJSON(j.Errors, f.errs):
		t.Fatalf("job %d: claimed args %s metadata %s errors %s, awa.jobs %s %s %s", j.JobID, j.Args, j.Metadata,
			j.Errors, f.args, f.meta, f.errs)
	case j.Attempt != f.attempt || j.MaxAttempts != f.maxAtt:
		t.Fatalf("job %d: claimed attempt %d/%d, awa.jobs %d/%d", j.JobID, j.Attempt, j.MaxAttempts, f.attempt, f.maxAtt)
	case !slices.Equal(j.Tags, f.tags) || (j.Tags == nil) != (f.tags == nil):
		t.Fatalf("job %d: claimed tags %#v, awa.jobs %#v", j.JobID, j.Tags, f.tags)
	case !j.CreatedAt.Equal(f.createdAt) || !j.RunAt.Equal(f.runAt):
		t.Fatalf("job %d: claimed created %s run_at %s, awa.jobs %s %s", j.JobID, j.CreatedAt, j.RunAt, f.createdAt, f.runAt)
	case j.ClaimedAt.IsZero() || j.ClaimedAt.Before(f.createdAt):
		t.Fatalf("job %d: claimed_at %s (created %s)", j.JobID, j.ClaimedAt, f.createdAt)
	}
}

// TestClaimScanCarriesEveryFieldOfEveryJob: one claim of exactly its max
// returns jobs of two kinds, with and without tags, metadata and errors (a
// retried job beside fresh ones), a metadata whose flow_weight is a string
// and one with escaped keys; each job's fields are awa.jobs's. The claim's
// strings are shared but each job's byte slices are its own: writing into
// one job's Args, Metadata or Tags changes no other job. A claim of 1 from
// several ready jobs returns one; a claim with an attempt deadline carries
// it, one without none (the queue has no deadline).
func TestClaimScanCarriesEveryFieldOfEveryJob(t *testing.T) {
	ctx, pool := parallelDB(t, time.Minute)
	d := driver.New()
	const queue = "scan"
	ins := func(kind, args string, o driver.InsertOpts) int64 {
		t.Helper()
		o.Queue = queue
		j, err := d.Insert(ctx, pool, driver.InsertParams{Kind: kind, Args: []byte(args), Opts: o})
		if err != nil {
			t.Fatalf("insert %s %s: %v", kind, args, err)
		}
		return j.ID
	}

	// A retried job: claimed, retried with an error, made ready again.
	retried := ins("scan_b", `{"n": 0}`, driver.InsertOpts{MaxAttempts: 5})
	first, err := d.Claim(ctx, pool, queue, 1, [16]byte{}, 0)
	if err != nil || len(first) != 1 || first[0].JobID != retried || first[0].Errors != nil {
		t.Fatalf("first claim = %+v, %v; want job %d with no errors", first, err, retried)
	}
	if _, err := d.Retry(ctx, pool, []driver.RetryItem{{Receipt: first[0].Receipt, Error: "boom \"quoted\"",
		RetryAt: time.Now().Add(50 * time.Millisecond)}}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 20*time.Second, "the retried job to be promoted", func() (bool, string) {
		if _, err := d.PromoteDueJobs(ctx, pool, 100); err != nil {
			return false, err.Error()
		}
		rows := jobRows(t, pool, retried)
		return len(rows) == 1 && rows[0].State == "available", fmt.Sprint(rows)
	})

	same := `{"n": 1, "s": "same args"}`
	a := ins("scan_a", same, driver.InsertOpts{Tags: []string{"t1", "t2"},
		Metadata: json.RawMessage(`{"flow_weight": "7", "k\"ey": "flow_weight", "flow\\u005fweight2": 1}`)})
	c := ins("scan_a", same, driver.InsertOpts{Priority: 3, MaxAttempts: 7, Tags: []string{"t1", "t2"},
		Metadata: json.RawMessage(`{"flow_weight": 2}`)})
	b := ins("scan_b", `{"n": 2, "nested": {"x": [1, 2, null]}}`, driver.InsertOpts{})

	claimed, err := d.Claim(ctx, pool, queue, 4, [16]byte{}, 0)
	if err != nil {
		t.Fatal(err)
	}
	byID := map[int64]driver.ClaimedJob{}
	for _, j := range claimed {
		byID[j.JobID] = j
	}
	if len(claimed) != 4 || len(byID) != 4 {
		t.Fatalf("a claim of 4 with 4 ready returned %d jobs (%d distinct)", len(claimed), len(byID))
	}
	for _, id := range []int64{retried, a, b, c} {
		j, ok := byID[id]
		if !ok {
			t.Fatalf("job %d missing from the claim", id)
		}
		requireClaimMatches(t, ctx, pool, j)
		if !j.DeadlineAt.IsZero() {
			t.Fatalf("job %d: deadline %s from a claim without one on a queue without one", id, j.DeadlineAt)
		}
	}
	if r := byID[retried]; r.Attempt != 2 || !bytes.Contains(r.Errors, []byte(`boom \"quoted\"`)) {
		t.Fatalf("retried job claimed as attempt %d with errors %s", r.Attempt, r.Errors)
	}
	if len(byID[b].Tags) != 0 || byID[b].Metadata == nil {
		t.Fatalf("job without tags: tags %#v metadata %s", byID[b].Tags, byID[b].Metadata)
	}
	if w := byID[a].Weight(); w != 1 {
		t.Fatalf("metadata %s (flow_weight a string): weight %d, want 1", byID[a].Metadata, w)
	}
	if w := byID[c].Weight(); w != 2 {
		t.Fatalf("metadata %s: weight %d, want 2", byID[c].Metadata, w)
	}

	// One job's slices are its own: scribble over a's, then c's are intact.
	ja, jc := byID[a], byID[c]
	argsC, metaC := bytes.Clone(jc.Args), bytes.Clone(jc.Metadata)
	for i := range ja.Args {
		ja.Args[i] = 'X'
	}
	for i := range ja.Metadata {
		ja.Metadata[i] = 'Y'
	}
	ja.Tags[0] = "changed"
	if !bytes.Equal(jc.Args, argsC) || !bytes.Equal(jc.Metadata, metaC) || jc.Tags[0] != "t1" {
		t.Fatalf("writing into job %d's slices changed job %d's: args %s metadata %s tags %v", a, c, jc.Args, jc.Metadata, jc.Tags)
	}
	for _, id := range []int64{retried, b} {
		requireClaimMatches(t, ctx, pool, byID[id]) // untouched jobs still read as awa.jobs
	}

	// A claim of 1 with three ready returns one job; a claim with an attempt
	// deadline carries it on every job.
	for i := 0; i < 3; i++ {
		ins("scan_c", fmt.Sprintf(`{"i": %d}`, i), driver.InsertOpts{})
	}
	one, err := d.Claim(ctx, pool, queue, 1, [16]byte{}, time.Hour)
	if err != nil || len(one) != 1 {
		t.Fatalf("claim of 1 = %d jobs, %v", len(one), err)
	}
	requireClaimMatches(t, ctx, pool, one[0])
	if got := one[0].DeadlineAt.Sub(one[0].ClaimedAt); got != time.Hour {
		t.Fatalf("claim with a 1h attempt deadline: deadline - claimed_at = %s", got)
	}
	rest, err := d.Claim(ctx, pool, queue, 10, [16]byte{}, time.Hour)
	if err != nil || len(rest) != 2 {
		t.Fatalf("claim of 10 with 2 ready = %d jobs, %v", len(rest), err)
	}
	for _, j := range rest {
		requireClaimMatches(t, ctx, pool, j)
	}
}
