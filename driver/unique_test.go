package driver_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/awa-queue/awa/driver"
	"github.com/awa-queue/awa/internal/pgtest"
)

// A unique job inserted again, through every insert path (one job, a batch,
// the COPY stage, and SQL's awa.insert_job), comes back as the job holding
// its key with Duplicate set; the key is derived in SQL, so Go's options and
// SQL's opts.unique give one key. Once the holder completes, the key is free.
func TestUniqueInsertReturnsTheHolderOnEveryPath(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := pgtest.NewDB(t)
	d := driver.New()
	byArg := &driver.UniqueOpts{ByArgKeys: []string{"user"}}
	opts := driver.InsertOpts{Queue: "uniq", Unique: byArg}

	// From SQL first: Go must find the same key.
	var sqlID int64
	if err := pool.QueryRow(ctx, `SELECT id FROM awa.insert_job('welcome', '{"user": 7, "n": 1}',
		'{"queue": "uniq", "unique": {"by_args": ["user"]}}')`).Scan(&sqlID); err != nil {
		t.Fatalf("insert from SQL: %v", err)
	}
	one, err := d.Insert(ctx, pool, driver.InsertParams{Kind: "welcome", Args: []byte(`{"user": 7, "n": 2}`), Opts: opts})
	if err != nil {
		t.Fatalf("Insert: %v", err)
	}
	if !one.Duplicate || one.ID != sqlID || one.State != driver.StateAvailable {
		t.Fatalf("Insert of a held key: got %+v, want duplicate of job %d (available)", one, sqlID)
	}

	batch := []driver.InsertParams{
		{Kind: "welcome", Args: []byte(`{"user": 7}`), Opts: opts},
		{Kind: "welcome", Args: []byte(`{"user": 8}`), Opts: opts},
		{Kind: "welcome", Args: []byte(`{"user": 8}`), Opts: opts},
		{Kind: "plain", Args: []byte(`{}`), Opts: driver.InsertOpts{Queue: "uniq"}},
	}
	many, err := d.InsertMany(ctx, pool, batch)
	if err != nil {
		t.Fatalf("InsertMany: %v", err)
	}
	if !many[0].Duplicate || many[0].ID != sqlID || many[1].Duplicate || !many[2].Duplicate ||
		many[2].ID != many[1].ID || many[3].Duplicate {
		t.Fatalf("InsertMany: got %+v, want [dup of %d, new, dup of the new, plain new]", many, sqlID)
	}

	tx, err := pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx) //nolint:errcheck // rolled back only when the test fails first
	copied, err := d.InsertManyCopy(ctx, tx, append(batch[:2:2], driver.InsertParams{
		Kind: "welcome", Args: []byte(`{"user": 9}`), Opts: opts}))
	if err != nil {
		t.Fatalf("InsertManyCopy: %v", err)
	}
	if !copied[0].Duplicate || !copied[1].Duplicate || copied[1].ID != many[1].ID || copied[2].Duplicate {
		t.Fatalf("InsertManyCopy: got %+v, want [dup, dup of %d, new]", copied, many[1].ID)
	}
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}

	var n int
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM awa.jobs WHERE queue = 'uniq'`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 4 {
		t.Fatalf("awa.jobs holds %d jobs of queue uniq, want 4 (users 7, 8, 9 and the plain job)", n)
	}

	// The holder of user 7 runs and completes: its key is free.
	for {
		claimed, err := d.Claim(ctx, pool, "uniq", 10, [16]byte{}, time.Minute)
		if err != nil {
			t.Fatalf("Claim: %v", err)
		}
		if len(claimed) == 0 {
			break
		}
		rs := make([]driver.Receipt, len(claimed))
		for i, c := range claimed {
			rs[i] = c.Receipt
		}
		if _, err := d.Complete(ctx, pool, rs); err != nil {
			t.Fatalf("Complete: %v", err)
		}
	}
	again, err := d.Insert(ctx, pool, driver.InsertParams{Kind: "welcome", Args: []byte(`{"user": 7}`), Opts: opts})
	if err != nil {
		t.Fatalf("Insert after completion: %v", err)
	}
	if again.Duplicate || again.ID == sqlID {
		t.Fatalf("Insert after the holder completed: got %+v, want a new job", again)
	}
}

// A key whose states include completed holds after the job completes; bad
// unique options fail with the substrate's sentinel, and a period that is not
// whole seconds fails in Go before any call.
func TestUniqueInsertStatesAndBadOptions(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := pgtest.NewDB(t)
	d := driver.New()
	keep := &driver.UniqueOpts{Key: "nightly-report", ByPeriod: 24 * time.Hour, ByState: []driver.JobState{
		driver.StateScheduled, driver.StateAvailable, driver.StateRunning, driver.StateRetryable,
		driver.StateWaitingExternal, driver.StateCompleted}}
	first, err := d.Insert(ctx, pool, driver.InsertParams{Kind: "report", Args: []byte(`{}`),
		Opts: driver.InsertOpts{Queue: "nightly", Unique: keep}})
	if err != nil {
		t.Fatalf("Insert: %v", err)
	}
	claimed, err := d.Claim(ctx, pool, "nightly", 1, [16]byte{}, time.Minute)
	if err != nil || len(claimed) != 1 {
		t.Fatalf("Claim: %v (%d jobs)", err, len(claimed))
	}
	if _, err := d.Complete(ctx, pool, []driver.Receipt{claimed[0].Receipt}); err != nil {
		t.Fatalf("Complete: %v", err)
	}
	// Another kind with the same explicit key, in the same day.
	dup, err := d.Insert(ctx, pool, driver.InsertParams{Kind: "report-v2", Args: []byte(`{}`),
		Opts: driver.InsertOpts{Queue: "nightly", Unique: keep}})
	if err != nil {
		t.Fatalf("Insert: %v", err)
	}
	if !dup.Duplicate || dup.ID != first.ID || dup.State != driver.StateCompleted {
		t.Fatalf("Insert of a key held by a completed job: got %+v, want duplicate of %d (completed)", dup, first.ID)
	}

	_, err = d.Insert(ctx, pool, driver.InsertParams{Kind: "report", Args: []byte(`{}`),
		Opts: driver.InsertOpts{Unique: &driver.UniqueOpts{ByState: []driver.JobState{driver.StateAvailable}}}})
	if !errors.Is(err, driver.ErrInvalidOption) {
		t.Fatalf("states without the non-terminal ones: got %v, want ErrInvalidOption", err)
	}
	_, err = d.InsertMany(ctx, pool, []driver.InsertParams{{Kind: "report", Args: []byte(`{}`),
		Opts: driver.InsertOpts{Unique: &driver.UniqueOpts{ByPeriod: 1500 * time.Millisecond}}}})
	if !errors.Is(err, driver.ErrInvalidArgument) {
		t.Fatalf("ByPeriod of 1.5s: got %v, want ErrInvalidArgument", err)
	}
}

// Two transactions insert one new key at READ COMMITTED: the second waits for
// the first's commit and gets its job as a duplicate; at REPEATABLE READ, a
// key committed after the snapshot fails with a serialization failure (retry)
// instead of giving a second job.
func TestUniqueInsertRacesAcrossTransactions(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := pgtest.NewDB(t)
	d := driver.New()
	p := driver.InsertParams{Kind: "race", Args: []byte(`{}`), Opts: driver.InsertOpts{Queue: "race", Unique: &driver.UniqueOpts{}}}

	tx1, err := pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx1.Rollback(ctx) //nolint:errcheck // no-op after commit
	first, err := d.Insert(ctx, tx1, p)
	if err != nil || first.Duplicate {
		t.Fatalf("first Insert: %+v, %v", first, err)
	}
	rr, err := pool.BeginTx(ctx, pgx.TxOptions{IsoLevel: pgx.RepeatableRead})
	if err != nil {
		t.Fatal(err)
	}
	defer rr.Rollback(ctx)                              //nolint:errcheck // rolled back at the end
	if _, err := rr.Exec(ctx, `SELECT 1`); err != nil { // the snapshot, before tx1 commits
		t.Fatal(err)
	}
	type res struct {
		job driver.InsertedJob
		err error
	}
	second := make(chan res, 1)
	go func() {
		j, err := d.Insert(ctx, pool, p)
		second <- res{j, err}
	}()
	select {
	case r := <-second:
		t.Fatalf("the second insert did not wait for the first's commit: %+v, %v", r.job, r.err)
	case <-time.After(300 * time.Millisecond):
	}
	if err := tx1.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	r := <-second
	if r.err != nil || !r.job.Duplicate || r.job.ID != first.ID {
		t.Fatalf("second Insert at READ COMMITTED: %+v, %v; want the duplicate of %d", r.job, r.err, first.ID)
	}
	_, err = d.Insert(ctx, rr, p)
	if err == nil || !isSerializationFailure(err) {
		t.Fatalf("Insert at REPEATABLE READ of a key committed after the snapshot: %v, want 40001", err)
	}
}

// CleanupUniqueKeys deletes the key row of a job that history no longer has
// and keeps the key row of a job it has.
func TestCleanupUniqueKeysDeletesOnlyKeysOfJobsGoneFromHistory(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := pgtest.NewDB(t)
	d := driver.New()
	live, err := d.Insert(ctx, pool, driver.InsertParams{Kind: "kept", Args: []byte(`{}`),
		Opts: driver.InsertOpts{Unique: &driver.UniqueOpts{}}})
	if err != nil {
		t.Fatal(err)
	}
	// A key row whose job history no longer has (an id no job ever had).
	if _, err := pool.Exec(ctx, `INSERT INTO awa.unique_keys (unique_key, job_id, states, taken_at)
		VALUES ('\x01', 9000000001, '{available}', now())`); err != nil {
		t.Fatal(err)
	}
	n, err := d.CleanupUniqueKeys(ctx, pool, 100)
	if err != nil || n != 1 {
		t.Fatalf("CleanupUniqueKeys: %d, %v; want 1 row deleted", n, err)
	}
	var held []int64
	rows, err := pool.Query(ctx, `SELECT job_id FROM awa.unique_keys`)
	if err == nil {
		held, err = pgx.CollectRows(rows, pgx.RowTo[int64])
	}
	if err != nil || len(held) != 1 || held[0] != live.ID {
		t.Fatalf("key rows left: %v (%v), want only job %d's", held, err, live.ID)
	}
}
