package driver_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/awa-queue/awa/driver"
)

// insertArgs: the tests' args types look alike on purpose: a kind is a
// type (driver.JobArgs), and each test names its own.
type insertArgs struct {
	N    int    `json:"n"`
	Note string `json:"note,omitempty"`
}

func (insertArgs) Kind() string { return "insert_test" }

// badKindArgs has an empty kind; arrayArgs marshals to a JSON array.
type badKindArgs struct{}

func (badKindArgs) Kind() string { return "" }

type arrayArgs []int

func (arrayArgs) Kind() string { return "array_args" }

// countJobs counts awa.jobs rows matching where (a trusted SQL fragment).
func countJobs(t *testing.T, db querier, where string, args ...any) int {
	t.Helper()
	rows, err := db.Query(context.Background(), "SELECT count(*) FROM awa.jobs WHERE "+where, args...)
	if err != nil {
		t.Fatalf("count jobs: %v", err)
	}
	defer rows.Close()
	var n int
	for rows.Next() {
		if err := rows.Scan(&n); err != nil {
			t.Fatalf("count jobs: %v", err)
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatalf("count jobs: %v", err)
	}
	return n
}

// TestInsertTxRollbackLeavesNoJob: a job inserted in a transaction that rolls
// back never exists (not in awa.jobs, never run), and the lane position it
// reserved does not hold up the job inserted after it.
func TestInsertTxRollbackLeavesNoJob(t *testing.T) {
	ctx, pool := parallelDB(t, time.Minute)
	log, _ := testLogger(t, "client")

	ran := make(chan int, 10)
	workers := workersFor(func(ctx context.Context, j *driver.Job[insertArgs]) error {
		ran <- j.Args.N
		return nil
	})
	client := startClient(t, pool, workConfig("txq", 2, workers, log, nil))

	tx, err := pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	rolled, err := client.InsertTx(ctx, tx, insertArgs{N: 1}, &driver.InsertOpts{Queue: "txq"})
	if err != nil {
		t.Fatalf("InsertTx: %v", err)
	}
	if rolled.ID == 0 || rolled.State != driver.StateAvailable || rolled.Queue != "txq" || rolled.Kind != "insert_test" {
		t.Fatalf("InsertTx returned %+v, want an available insert_test job with an id in queue txq", rolled)
	}
	if err := tx.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	if n := countJobs(t, pool, "id = $1", rolled.ID); n != 0 {
		t.Fatalf("awa.jobs holds %d rows for rolled-back job %d, want 0", n, rolled.ID)
	}

	// The next job of the same lane (queue txq, priority 2) must run even
	// though the position before it was reserved and rolled back.
	next, err := client.Insert(ctx, insertArgs{N: 2}, &driver.InsertOpts{Queue: "txq"})
	if err != nil {
		t.Fatalf("Insert: %v", err)
	}
	select {
	case n := <-ran:
		if n != 2 {
			t.Fatalf("handler ran job with n=%d, want n=2 (the rolled-back n=1 must never run)", n)
		}
	case <-time.After(20 * time.Second):
		t.Fatalf("job %d inserted after a rolled-back insert on the same lane was not run within 20s", next.ID)
	}
	waitJobState(t, pool, next.ID, "completed", 10*time.Second)
	if n := countJobs(t, pool, "id = $1", rolled.ID); n != 0 {
		t.Fatalf("awa.jobs holds %d rows for rolled-back job %d after the lane moved on, want 0", n, rolled.ID)
	}
	if n := countJobs(t, pool, "true"); n != 1 {
		t.Fatalf("awa.jobs holds %d rows, want 1 (only the committed job)", n)
	}
	select {
	case n := <-ran:
		t.Fatalf("handler ran an unexpected job with n=%d", n)
	default:
	}
}

// TestInsertTxCommitMakesJobVisible: a job inserted in a transaction is
// invisible to other sessions and never claimed until the transaction
// commits; after the commit it is visible and gets worked.
func TestInsertTxCommitMakesJobVisible(t *testing.T) {
	ctx, pool := parallelDB(t, time.Minute)
	log, _ := testLogger(t, "client")

	workers, ran := countingWorkers[insertArgs]()
	client := startClient(t, pool, &driver.Config{
		Queues:            map[string]driver.QueueConfig{"txq": {MaxWorkers: 2}},
		Workers:           workers,
		Logger:            log,
		FetchPollInterval: 20 * time.Millisecond,
		Maintenance:       fastMaintenance(),
	})

	tx, err := pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(context.Background())
	job, err := client.InsertTx(ctx, tx, insertArgs{N: 7}, &driver.InsertOpts{Queue: "txq", Tags: []string{"a", "b"}})
	if err != nil {
		t.Fatalf("InsertTx: %v", err)
	}
	if n := countJobs(t, tx, "id = $1", job.ID); n != 1 {
		t.Fatalf("inside its transaction, awa.jobs holds %d rows for job %d, want 1", n, job.ID)
	}
	// While the transaction is open the job is neither visible elsewhere
	// nor claimed, however often the client polls (20ms).
	for deadline := time.Now().Add(300 * time.Millisecond); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if n := countJobs(t, pool, "id = $1", job.ID); n != 0 {
			t.Fatalf("uncommitted job %d is visible outside its transaction (%d rows)", job.ID, n)
		}
		if r := ran.Load(); r != 0 {
			t.Fatalf("uncommitted job %d was run %d times", job.ID, r)
		}
	}
	if err := tx.Commit(ctx); err != nil {
		t.Fatalf("commit: %v", err)
	}
	if rows := jobRows(t, pool, job.ID); len(rows) != 1 || rows[0].Kind != "insert_test" || rows[0].Queue != "txq" {
		t.Fatalf("after commit awa.jobs shows %v for job %d, want one insert_test row in txq", rows, job.ID)
	}
	waitJobState(t, pool, job.ID, "completed", 20*time.Second)
	if r := ran.Load(); r != 1 {
		t.Fatalf("committed job ran %d times, want 1", r)
	}
}

// TestInsertAndInsertManyReturnIDs: Insert and InsertMany return the ids of
// the rows they wrote, in input order, with the job's options applied.
func TestInsertAndInsertManyReturnIDs(t *testing.T) {
	ctx, pool := parallelDB(t, time.Minute)
	client, err := driver.NewClient(pool, nil) // insert-only
	if err != nil {
		t.Fatal(err)
	}

	runAt := time.Now().Add(time.Hour).Truncate(time.Microsecond)
	one, err := client.Insert(ctx, insertArgs{N: 1, Note: "x"}, &driver.InsertOpts{
		Queue: "ids", Priority: 1, MaxAttempts: 3, RunAt: runAt, Tags: []string{"t1"},
		Metadata: json.RawMessage(`{"m":1}`),
	})
	if err != nil {
		t.Fatalf("Insert: %v", err)
	}
	if one.ID <= 0 || one.State != driver.StateScheduled || one.Queue != "ids" || one.Priority != 1 ||
		one.Kind != "insert_test" || !one.RunAt.Equal(runAt) {
		t.Fatalf("Insert returned %+v, want a scheduled insert_test job in ids, priority 1, run at %s", one, runAt)
	}
	rows := jobRows(t, pool, one.ID)
	if len(rows) != 1 || rows[0].State != "scheduled" || rows[0].MaxAttempts != 3 {
		t.Fatalf("awa.jobs for job %d = %v, want one scheduled row with max_attempts 3", one.ID, rows)
	}
	var got insertArgs
	if err := json.Unmarshal(rows[0].Args, &got); err != nil || got != (insertArgs{N: 1, Note: "x"}) {
		t.Fatalf("stored args %s (%v), want {n:1 note:x}", rows[0].Args, err)
	}

	const n = 25
	params := make([]driver.InsertManyParams, n)
	for i := range params {
		params[i] = driver.InsertManyParams{Args: insertArgs{N: 100 + i}, Opts: &driver.InsertOpts{Queue: fmt.Sprintf("many%d", i%3)}}
	}
	params[3].Opts = nil // default queue
	many, err := client.InsertMany(ctx, params)
	if err != nil {
		t.Fatalf("InsertMany: %v", err)
	}
	if len(many) != n {
		t.Fatalf("InsertMany returned %d jobs, want %d", len(many), n)
	}
	seen := map[int64]bool{one.ID: true}
	for i, j := range many {
		if j.ID <= 0 || seen[j.ID] {
			t.Fatalf("InsertMany job %d has id %d (zero or duplicate)", i, j.ID)
		}
		seen[j.ID] = true
		wantQueue := fmt.Sprintf("many%d", i%3)
		if i == 3 {
			wantQueue = "default"
		}
		if j.Queue != wantQueue || j.State != driver.StateAvailable {
			t.Fatalf("InsertMany job %d = %+v, want available in %s", i, j, wantQueue)
		}
		rows := jobRows(t, pool, j.ID)
		if len(rows) != 1 {
			t.Fatalf("awa.jobs has %d rows for id %d, want 1", len(rows), j.ID)
		}
		var a insertArgs
		if err := json.Unmarshal(rows[0].Args, &a); err != nil || a.N != 100+i || rows[0].Queue != wantQueue {
			t.Fatalf("id %d (input %d) holds args %s in %s, want n=%d in %s: ids are not in input order",
				j.ID, i, rows[0].Args, rows[0].Queue, 100+i, wantQueue)
		}
	}
	if c := countJobs(t, pool, "true"); c != n+1 {
		t.Fatalf("awa.jobs holds %d rows, want %d", c, n+1)
	}
}

// TestInsertInvalidOptionsMapToSentinels: bad options and args fail with the
// driver's sentinel errors (and the underlying *pgconn.PgError), write
// nothing, and an invalid job fails its whole InsertMany batch.
func TestInsertInvalidOptionsMapToSentinels(t *testing.T) {
	ctx, pool := parallelDB(t, time.Minute)
	client, err := driver.NewClient(pool, nil)
	if err != nil {
		t.Fatal(err)
	}
	manyTags := make([]string, 21)
	for i := range manyTags {
		manyTags[i] = fmt.Sprintf("t%d", i)
	}
	cases := []struct {
		name     string
		args     driver.JobArgs
		opts     *driver.InsertOpts
		sentinel error
		sqlstate string
	}{
		{"priority too high", insertArgs{}, &driver.InsertOpts{Priority: 5}, driver.ErrOptionOutOfRange, "AW006"},
		{"priority negative", insertArgs{}, &driver.InsertOpts{Priority: -1}, driver.ErrOptionOutOfRange, "AW006"},
		{"max_attempts too high", insertArgs{}, &driver.InsertOpts{MaxAttempts: 1001}, driver.ErrOptionOutOfRange, "AW006"},
		{"max_attempts negative", insertArgs{}, &driver.InsertOpts{MaxAttempts: -3}, driver.ErrOptionOutOfRange, "AW006"},
		{"queue with a space", insertArgs{}, &driver.InsertOpts{Queue: "bad queue"}, driver.ErrInvalidQueue, "AW002"},
		{"queue too long", insertArgs{}, &driver.InsertOpts{Queue: strings.Repeat("q", 51)}, driver.ErrInvalidQueue, "AW002"},
		{"empty tag", insertArgs{}, &driver.InsertOpts{Tags: []string{"ok", ""}}, driver.ErrInvalidTags, "AW007"},
		{"21 tags", insertArgs{}, &driver.InsertOpts{Tags: manyTags}, driver.ErrInvalidTags, "AW007"},
		{"metadata not an object", insertArgs{}, &driver.InsertOpts{Metadata: json.RawMessage(`[1]`)}, driver.ErrInvalidOption, "AW005"},
		{"empty kind", badKindArgs{}, nil, driver.ErrInvalidKind, "AW001"},
		{"args not an object", arrayArgs{1, 2}, nil, driver.ErrInvalidArgs, "AW003"},
	}
	for _, c := range cases {
		_, err := client.Insert(ctx, c.args, c.opts)
		if !errors.Is(err, c.sentinel) {
			t.Errorf("%s: Insert error = %v, want errors.Is %v", c.name, err, c.sentinel)
			continue
		}
		var pgErr *pgconn.PgError
		if !errors.As(err, &pgErr) || pgErr.Code != c.sqlstate {
			t.Errorf("%s: error %v does not unwrap to a *pgconn.PgError with SQLSTATE %s", c.name, err, c.sqlstate)
		}
		// The same through a transaction.
		tx, err := pool.Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := client.InsertTx(ctx, tx, c.args, c.opts); !errors.Is(err, c.sentinel) {
			t.Errorf("%s: InsertTx error = %v, want errors.Is %v", c.name, err, c.sentinel)
		}
		_ = tx.Rollback(ctx)
	}

	// One bad job in the middle of a batch fails the batch; nothing is written.
	params := make([]driver.InsertManyParams, 10)
	for i := range params {
		params[i] = driver.InsertManyParams{Args: insertArgs{N: i}}
	}
	params[6].Opts = &driver.InsertOpts{MaxAttempts: 0, Priority: 9}
	if _, err := client.InsertMany(ctx, params); !errors.Is(err, driver.ErrOptionOutOfRange) {
		t.Fatalf("InsertMany with one out-of-range priority: error = %v, want ErrOptionOutOfRange", err)
	}
	if n := countJobs(t, pool, "true"); n != 0 {
		t.Fatalf("awa.jobs holds %d rows after only failed inserts, want 0", n)
	}
}

// TestConfigureQueueEnqueueShards: EnqueueShards sets the lanes per priority
// that producers spread over: with 1, jobs inserted from concurrent
// connections all land in one lane per priority; a value outside 1..64 is
// ErrOptionOutOfRange and changes nothing.
func TestConfigureQueueEnqueueShards(t *testing.T) {
	ctx, pool := parallelDB(t, time.Minute)
	d := driver.New()
	one, bad := 1, 65
	if err := d.ConfigureQueue(ctx, pool, "one", driver.QueueOptions{EnqueueShards: &one}); err != nil {
		t.Fatalf("ConfigureQueue(EnqueueShards 1): %v", err)
	}
	err := d.ConfigureQueue(ctx, pool, "one", driver.QueueOptions{EnqueueShards: &bad})
	if !errors.Is(err, driver.ErrOptionOutOfRange) {
		t.Fatalf("ConfigureQueue(EnqueueShards 65) = %v, want ErrOptionOutOfRange", err)
	}
	client, err := driver.NewClient(pool, nil) // insert-only
	if err != nil {
		t.Fatal(err)
	}
	errs := make(chan error, 8)
	for i := range 8 {
		go func() {
			_, err := client.Insert(ctx, insertArgs{N: i}, &driver.InsertOpts{Queue: "one"})
			errs <- err
		}()
	}
	for range 8 {
		if err := <-errs; err != nil {
			t.Fatalf("Insert: %v", err)
		}
	}
	var shards, lanes int
	if err := pool.QueryRow(ctx, `SELECT enqueue_shards FROM awa.queue_meta WHERE queue = 'one'`).Scan(&shards); err != nil {
		t.Fatal(err)
	}
	if err := pool.QueryRow(ctx, `SELECT count(DISTINCT lane_id) FROM awa.ready_entries WHERE queue = 'one'`).Scan(&lanes); err != nil {
		t.Fatal(err)
	}
	if shards != 1 || lanes != 1 {
		t.Fatalf("enqueue_shards %d, jobs in %d lanes; want 1 and 1", shards, lanes)
	}
}
