package driver_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/awa-queue/awa/driver"
)

// run is what a handler saw in one call.
type run struct {
	ID       int64
	Attempt  int
	RunLease int64
	Errors   []jobError
}

// runLog collects handler calls by job id.
type runLog struct {
	mu   sync.Mutex
	runs map[int64][]run
}

func newRunLog() *runLog { return &runLog{runs: map[int64][]run{}} }

func (l *runLog) add(row *driver.JobRow) []run {
	r := run{ID: row.ID, Attempt: row.Attempt, RunLease: row.RunLease}
	if len(row.Errors) > 0 {
		if err := json.Unmarshal(row.Errors, &r.Errors); err != nil {
			r.Errors = []jobError{{Error: "UNDECODABLE: " + string(row.Errors)}}
		}
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.runs[row.ID] = append(l.runs[row.ID], r)
	return append([]run(nil), l.runs[row.ID]...)
}

func (l *runLog) get(id int64) []run {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]run(nil), l.runs[id]...)
}

// workClient starts a client working queue with workers, fast maintenance and
// polling, on pool.
func workClient(t *testing.T, pool *pgxpool.Pool, queue string, workers *driver.Workers) *driver.Client {
	t.Helper()
	log, _ := testLogger(t, "client")
	return startClient(t, pool, workConfig(queue, 4, workers, log, nil))
}

// sqlArgs: the tests' args types look alike on purpose: a kind is a
// type (driver.JobArgs), and each test names its own.
type sqlArgs struct {
	N    int      `json:"n"`
	Word string   `json:"word"`
	List []string `json:"list"`
}

func (sqlArgs) Kind() string { return "sql_kind" }

// TestJobsInsertedFromSQLAreWorked: jobs inserted by plain SQL (insert_job
// and insert_jobs) are run by the registered Worker with decoded args and
// the row's options.
func TestJobsInsertedFromSQLAreWorked(t *testing.T) {
	ctx, pool := parallelDB(t, time.Minute)

	type seen struct {
		args sqlArgs
		row  driver.JobRow
	}
	got := make(chan seen, 10)
	workers := workersFor(func(ctx context.Context, j *driver.Job[sqlArgs]) error {
		got <- seen{j.Args, *j.JobRow}
		return nil
	})
	workClient(t, pool, "q", workers)

	var id1 int64
	if err := pool.QueryRow(ctx, `SELECT id FROM awa.insert_job('sql_kind', '{"n":1}', '{"queue":"q"}')`).Scan(&id1); err != nil {
		t.Fatalf("insert_job: %v", err)
	}
	if _, err := pool.Exec(ctx, `SELECT * FROM awa.insert_job('sql_kind', '{"n":2,"word":"two","list":["a","b"]}',
		'{"queue":"q","priority":1,"tags":["x"],"metadata":{"src":"sql"},"max_attempts":4}')`); err != nil {
		t.Fatalf("insert_job: %v", err)
	}
	if _, err := pool.Exec(ctx, `SELECT * FROM awa.insert_jobs(ARRAY['sql_kind','sql_kind'],
		ARRAY['{"n":3}','{"n":4}']::jsonb[], ARRAY['{"queue":"q"}','{"queue":"q"}']::jsonb[])`); err != nil {
		t.Fatalf("insert_jobs: %v", err)
	}

	byN := map[int]seen{}
	for len(byN) < 4 {
		select {
		case s := <-got:
			if _, dup := byN[s.args.N]; dup {
				t.Fatalf("job n=%d ran twice", s.args.N)
			}
			byN[s.args.N] = s
		case <-ctx.Done():
			t.Fatalf("only %d of 4 SQL-inserted jobs were worked: %v", len(byN), byN)
		}
	}
	if s := byN[1]; s.row.ID != id1 || s.row.Kind != "sql_kind" || s.row.Queue != "q" || s.row.Attempt != 1 ||
		s.row.MaxAttempts != 25 || s.row.Priority != 2 || s.args.N != 1 || s.args.Word != "" || s.args.List != nil {
		t.Fatalf("job n=1 ran as %+v with args %+v, want id %d, kind sql_kind, queue q, attempt 1/25, priority 2", s.row, s.args, id1)
	}
	s := byN[2]
	var meta map[string]string
	_ = json.Unmarshal(s.row.Metadata, &meta)
	if s.args.Word != "two" || strings.Join(s.args.List, ",") != "a,b" || s.row.Priority != 1 ||
		s.row.MaxAttempts != 4 || strings.Join(s.row.Tags, ",") != "x" || meta["src"] != "sql" || len(meta) != 1 {
		t.Fatalf("job n=2 ran as %+v with args %+v, want word two, list [a b], priority 1, max 4, tags [x], metadata {src: sql}",
			s.row, s.args)
	}
	for n := 1; n <= 4; n++ {
		waitJobState(t, pool, byN[n].row.ID, "completed", 10*time.Second)
	}
}

type retryArgs struct{}

func (retryArgs) Kind() string { return "retry_kind" }

// TestHandlerErrorIsRetried: an error retries the job; attempt 2 sees attempt
// 1's error in Job.Errors and completes.
func TestHandlerErrorIsRetried(t *testing.T) {
	ctx, pool := parallelDB(t, time.Minute)
	runs := newRunLog()
	workers := workersFor(func(ctx context.Context, j *driver.Job[retryArgs]) error {
		if runs.add(j.JobRow); j.Attempt == 1 {
			return errors.New("boom on attempt 1")
		}
		return nil
	})
	client := workClient(t, pool, "retry", workers)
	job, err := client.Insert(ctx, retryArgs{}, &driver.InsertOpts{Queue: "retry", MaxAttempts: 3})
	if err != nil {
		t.Fatal(err)
	}
	// With a single attempt the same error exhausts the job: failed.
	single, err := client.Insert(ctx, retryArgs{}, &driver.InsertOpts{Queue: "retry", MaxAttempts: 1})
	if err != nil {
		t.Fatal(err)
	}
	exhausted := waitJobState(t, pool, single.ID, "failed", 20*time.Second)
	if exhausted.Attempt != 1 || exhausted.DLQ || len(exhausted.Errors) != 1 || exhausted.Errors[0].Error != "boom on attempt 1" {
		t.Fatalf("exhausted job row %v, want failed at attempt 1 of 1 (no DLQ) with its error", exhausted)
	}
	// The attempt-1 backoff is 2s (+10% jitter).
	final := waitJobState(t, pool, job.ID, "completed", 30*time.Second)
	rs := runs.get(job.ID)
	if len(rs) != 2 || rs[0].Attempt != 1 || rs[1].Attempt != 2 {
		t.Fatalf("runs = %+v, want attempts 1 then 2", rs)
	}
	if len(rs[0].Errors) != 0 {
		t.Fatalf("attempt 1 saw errors %+v, want none", rs[0].Errors)
	}
	if len(rs[1].Errors) != 1 || rs[1].Errors[0].Attempt != 1 || rs[1].Errors[0].Error != "boom on attempt 1" {
		t.Fatalf("attempt 2 saw errors %+v, want [{attempt 1, boom on attempt 1}]", rs[1].Errors)
	}
	if rs[1].RunLease <= rs[0].RunLease {
		t.Fatalf("run_lease went from %d to %d, want it to grow", rs[0].RunLease, rs[1].RunLease)
	}
	if final.Attempt != 2 || final.RunLease != rs[1].RunLease {
		t.Fatalf("completed row %v, want attempt 2 and run_lease %d", final, rs[1].RunLease)
	}
}

type snoozeArgs struct{}

func (snoozeArgs) Kind() string { return "snooze_kind" }

// TestJobSnoozeRunsAgainWithSameAttempt: JobSnooze puts the job back as
// scheduled without counting the attempt; it runs again after the delay with
// the same attempt number and no error recorded.
func TestJobSnoozeRunsAgainWithSameAttempt(t *testing.T) {
	ctx, pool := parallelDB(t, time.Minute)
	runs := newRunLog()
	workers := workersFor(func(ctx context.Context, j *driver.Job[snoozeArgs]) error {
		if rs := runs.add(j.JobRow); len(rs) == 1 {
			return driver.JobSnooze(time.Second)
		}
		return nil
	})
	client := workClient(t, pool, "snooze", workers)
	job, err := client.Insert(ctx, snoozeArgs{}, &driver.InsertOpts{Queue: "snooze", MaxAttempts: 2})
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, 20*time.Second, "the first run", func() (bool, string) { return len(runs.get(job.ID)) >= 1, "" })
	// Between the runs the job waits as scheduled (the 1s snooze).
	snoozed := waitJobState(t, pool, job.ID, "scheduled", 10*time.Second)
	if snoozed.Attempt != 0 || len(snoozed.Errors) != 0 {
		t.Fatalf("snoozed row %v, want attempt 0 (not counted) and no errors", snoozed)
	}
	final := waitJobState(t, pool, job.ID, "completed", 20*time.Second)
	rs := runs.get(job.ID)
	if len(rs) != 2 || rs[0].Attempt != 1 || rs[1].Attempt != 1 {
		t.Fatalf("runs = %+v, want two runs, both attempt 1", rs)
	}
	if rs[1].RunLease <= rs[0].RunLease {
		t.Fatalf("run_lease went from %d to %d, want it to grow", rs[0].RunLease, rs[1].RunLease)
	}
	if len(rs[1].Errors) != 0 || final.Attempt != 1 || len(final.Errors) != 0 {
		t.Fatalf("after a snooze: second run saw errors %+v, final row %v; want no errors and attempt 1", rs[1].Errors, final)
	}
}

type cancelArgs struct{}

func (cancelArgs) Kind() string { return "cancel_kind" }

// TestJobCancelEndsCancelled: JobCancel ends the job cancelled with its
// reason, whatever attempts remain, and it does not run again.
func TestJobCancelEndsCancelled(t *testing.T) {
	ctx, pool := parallelDB(t, time.Minute)
	runs := newRunLog()
	workers := workersFor(func(ctx context.Context, j *driver.Job[cancelArgs]) error {
		runs.add(j.JobRow)
		return driver.JobCancel(errors.New("customer deleted"))
	})
	client := workClient(t, pool, "cancel", workers)
	job, err := client.Insert(ctx, cancelArgs{}, &driver.InsertOpts{Queue: "cancel", MaxAttempts: 5})
	if err != nil {
		t.Fatal(err)
	}
	final := waitJobState(t, pool, job.ID, "cancelled", 20*time.Second)
	if len(final.Errors) != 1 || final.Errors[0].Error != "customer deleted" || final.Errors[0].Attempt != 1 {
		t.Fatalf("cancelled row errors %+v, want [{attempt 1, customer deleted}]", final.Errors)
	}
	if final.Attempt != 1 || final.DLQ {
		t.Fatalf("cancelled row %v, want attempt 1, not in the DLQ", final)
	}
	if rs := runs.get(job.ID); len(rs) != 1 {
		t.Fatalf("cancelled job ran %d times, want 1", len(rs))
	}
}

type failArgs struct{}

func (failArgs) Kind() string { return "fail_kind" }

// TestJobFailEndsFailedWithAttemptsLeft: JobFail fails the job for good on
// attempt 1 of 5.
func TestJobFailEndsFailedWithAttemptsLeft(t *testing.T) {
	ctx, pool := parallelDB(t, time.Minute)
	runs := newRunLog()
	workers := workersFor(func(ctx context.Context, j *driver.Job[failArgs]) error {
		runs.add(j.JobRow)
		return driver.JobFail(fmt.Errorf("bad input %d", 42))
	})
	client := workClient(t, pool, "fail", workers)
	job, err := client.Insert(ctx, failArgs{}, &driver.InsertOpts{Queue: "fail", MaxAttempts: 5})
	if err != nil {
		t.Fatal(err)
	}
	final := waitJobState(t, pool, job.ID, "failed", 20*time.Second)
	if final.Attempt != 1 || final.MaxAttempts != 5 || final.DLQ {
		t.Fatalf("failed row %v, want attempt 1 of 5, not in the DLQ", final)
	}
	if len(final.Errors) != 1 || final.Errors[0].Error != "bad input 42" {
		t.Fatalf("failed row errors %+v, want [bad input 42]", final.Errors)
	}
	if rs := runs.get(job.ID); len(rs) != 1 {
		t.Fatalf("failed job ran %d times, want 1", len(rs))
	}
}

type dlqArgs struct {
	Mode string `json:"mode"`
}

func (dlqArgs) Kind() string { return "dlq_kind" }

// TestExhaustedJobGoesToDLQAndRetryDLQJobRunsIt: on a DLQ queue an exhausted
// job (and a JobFail) lands in awa.dlq_entries; RetryDLQJob runs it again
// from attempt 1 with a higher run_lease, and it completes.
func TestExhaustedJobGoesToDLQAndRetryDLQJobRunsIt(t *testing.T) {
	ctx, pool := parallelDB(t, time.Minute)
	d := driver.New()
	on := true
	if err := d.ConfigureQueue(ctx, pool, "dlqq", driver.QueueOptions{DLQ: &on}); err != nil {
		t.Fatalf("ConfigureQueue: %v", err)
	}
	runs := newRunLog()
	workers := workersFor(func(ctx context.Context, j *driver.Job[dlqArgs]) error {
		rs := runs.add(j.JobRow)
		if len(rs) > 1 {
			return nil // after the DLQ retry
		}
		if j.Args.Mode == "fail" {
			return driver.JobFail(errors.New("terminal"))
		}
		return errors.New("transient but out of attempts")
	})
	client := workClient(t, pool, "dlqq", workers)
	exhausted, err := client.Insert(ctx, dlqArgs{Mode: "error"}, &driver.InsertOpts{Queue: "dlqq", MaxAttempts: 1})
	if err != nil {
		t.Fatal(err)
	}
	failed, err := client.Insert(ctx, dlqArgs{Mode: "fail"}, &driver.InsertOpts{Queue: "dlqq", MaxAttempts: 5})
	if err != nil {
		t.Fatal(err)
	}

	for _, c := range []struct {
		id      int64
		attempt int
		msg     string
	}{{exhausted.ID, 1, "transient but out of attempts"}, {failed.ID, 1, "terminal"}} {
		row := waitJobState(t, pool, c.id, "failed", 20*time.Second)
		if !row.DLQ || row.Attempt != c.attempt || len(row.Errors) != 1 || row.Errors[0].Error != c.msg {
			t.Fatalf("job %d: row %v, want failed in the DLQ at attempt %d with error %q", c.id, row, c.attempt, c.msg)
		}
		var n int
		if err := pool.QueryRow(ctx, "SELECT count(*) FROM awa.dlq_entries WHERE job_id = $1", c.id).Scan(&n); err != nil || n != 1 {
			t.Fatalf("job %d: %d awa.dlq_entries rows (%v), want 1", c.id, n, err)
		}
		if n := countJobs(t, pool, "id = $1 AND NOT dlq", c.id); n != 0 {
			t.Fatalf("job %d: %d non-DLQ rows besides its DLQ entry, want 0", c.id, n)
		}
	}

	for _, id := range []int64{exhausted.ID, failed.ID} {
		again, err := client.Driver().RetryDLQJob(ctx, pool, id, time.Time{})
		if err != nil {
			t.Fatalf("RetryDLQJob(%d): %v", id, err)
		}
		if again.ID != id || again.State != driver.StateAvailable {
			t.Fatalf("RetryDLQJob(%d) = %+v, want the same job available", id, again)
		}
		final := waitJobState(t, pool, id, "completed", 20*time.Second)
		rs := runs.get(id)
		if len(rs) != 2 || rs[1].Attempt != 1 || rs[1].RunLease <= rs[0].RunLease {
			t.Fatalf("job %d runs = %+v, want a second run at attempt 1 with a higher run_lease", id, rs)
		}
		if len(rs[1].Errors) != 1 {
			t.Fatalf("job %d: the DLQ retry saw errors %+v, want the error from before the DLQ kept", id, rs[1].Errors)
		}
		if final.DLQ || final.RunLease != rs[1].RunLease {
			t.Fatalf("job %d: final row %v, want completed outside the DLQ with run_lease %d", id, final, rs[1].RunLease)
		}
		var n int
		if err := pool.QueryRow(ctx, "SELECT count(*) FROM awa.dlq_entries WHERE job_id = $1", id).Scan(&n); err != nil || n != 0 {
			t.Fatalf("job %d: %d awa.dlq_entries rows after the retry (%v), want 0", id, n, err)
		}
	}
	if _, err := client.Driver().RetryDLQJob(ctx, pool, exhausted.ID, time.Time{}); !errors.Is(err, driver.ErrInvalidJobState) {
		t.Fatalf("RetryDLQJob of a completed job: %v, want ErrInvalidJobState", err)
	}
}

type panicArgs struct{}

func (panicArgs) Kind() string { return "panic_kind" }

// TestHandlerPanicIsRecoveredAndRetried: a panic does not crash the client;
// the attempt is retried with the panic recorded, and the retry completes.
func TestHandlerPanicIsRecoveredAndRetried(t *testing.T) {
	ctx, pool := parallelDB(t, time.Minute)
	runs := newRunLog()
	workers := workersFor(func(ctx context.Context, j *driver.Job[panicArgs]) error {
		if runs.add(j.JobRow); j.Attempt == 1 {
			panic("handler exploded")
		}
		return nil
	})
	client := workClient(t, pool, "panicq", workers)
	job, err := client.Insert(ctx, panicArgs{}, &driver.InsertOpts{Queue: "panicq", MaxAttempts: 2})
	if err != nil {
		t.Fatal(err)
	}
	waitJobState(t, pool, job.ID, "completed", 30*time.Second)
	rs := runs.get(job.ID)
	if len(rs) != 2 || rs[1].Attempt != 2 {
		t.Fatalf("runs = %+v, want attempts 1 and 2", rs)
	}
	if len(rs[1].Errors) != 1 || !strings.Contains(rs[1].Errors[0].Error, "panic: handler exploded") {
		t.Fatalf("attempt 2 saw errors %+v, want the recovered panic", rs[1].Errors)
	}
}

// TestUnknownKindFailsWhenHandBackIsOff: with UnknownKindDelay negative, a
// job no worker handles fails at once with an error naming its kind.
func TestUnknownKindFailsWhenHandBackIsOff(t *testing.T) {
	ctx, pool := parallelDB(t, time.Minute)
	workers := workersFor(func(ctx context.Context, j *driver.Job[retryArgs]) error { return nil })
	log, _ := testLogger(t, "client")
	startClient(t, pool, workConfig("mixed", 4, workers, log, &driver.Config{UnknownKindDelay: -1}))
	var id int64
	if err := pool.QueryRow(ctx, `SELECT id FROM awa.insert_job('no_such_kind', '{}', '{"queue":"mixed","max_attempts":5}')`).
		Scan(&id); err != nil {
		t.Fatal(err)
	}
	final := waitJobState(t, pool, id, "failed", 20*time.Second)
	if final.Attempt != 1 || len(final.Errors) != 1 || final.Errors[0].Error != `no worker registered for kind "no_such_kind"` {
		t.Fatalf("row %v, want failed at attempt 1 with error: no worker registered for kind \"no_such_kind\"", final)
	}
}

type badArgsArgs struct {
	N int `json:"n"`
}

func (badArgsArgs) Kind() string { return "bad_args" }

// TestUndecodableArgsFail: args that do not decode into the worker's type
// fail the job terminally with the decode error (no retries).
func TestUndecodableArgsFail(t *testing.T) {
	ctx, pool := parallelDB(t, time.Minute)
	runs := newRunLog()
	workers := workersFor(func(ctx context.Context, j *driver.Job[badArgsArgs]) error {
		runs.add(j.JobRow)
		return nil
	})
	workClient(t, pool, "decode", workers)
	var id int64
	if err := pool.QueryRow(ctx, `SELECT id FROM awa.insert_job('bad_args', '{"n":"not a number"}', '{"queue":"decode"}')`).
		Scan(&id); err != nil {
		t.Fatal(err)
	}
	final := waitJobState(t, pool, id, "failed", 20*time.Second)
	if final.Attempt != 1 || len(final.Errors) != 1 || !strings.Contains(final.Errors[0].Error, `decode args of kind "bad_args"`) {
		t.Fatalf("row %v, want failed at attempt 1 with a decode error", final)
	}
	if rs := runs.get(id); len(rs) != 0 {
		t.Fatalf("handler ran %d times with undecodable args, want 0", len(rs))
	}
}

type timeoutArgs struct{}

func (timeoutArgs) Kind() string { return "timeout_kind" }

// timeoutWorker gives attempt 1 a 200ms timeout and blocks until its context
// ends; attempt 2 completes.
type timeoutWorker struct {
	runs    *runLog
	ctxErrs chan error
}

func (w *timeoutWorker) Timeout(j *driver.Job[timeoutArgs]) time.Duration {
	return 200 * time.Millisecond
}

func (w *timeoutWorker) Work(ctx context.Context, j *driver.Job[timeoutArgs]) error {
	if w.runs.add(j.JobRow); j.Attempt > 1 {
		return nil
	}
	select {
	case <-ctx.Done():
		w.ctxErrs <- ctx.Err()
		return ctx.Err()
	case <-time.After(30 * time.Second):
		w.ctxErrs <- nil
		return errors.New("context was never cancelled")
	}
}

// TestWorkerTimeoutRetriesWithTimeoutError: WorkerTimeout bounds the job's
// context (the client default is a minute); the timed-out attempt is retried
// with an error saying so.
func TestWorkerTimeoutRetriesWithTimeoutError(t *testing.T) {
	ctx, pool := parallelDB(t, time.Minute)
	w := &timeoutWorker{runs: newRunLog(), ctxErrs: make(chan error, 1)}
	workers := driver.NewWorkers()
	driver.AddWorker[timeoutArgs](workers, w)
	client := workClient(t, pool, "timeout", workers)
	job, err := client.Insert(ctx, timeoutArgs{}, &driver.InsertOpts{Queue: "timeout", MaxAttempts: 2})
	if err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-w.ctxErrs:
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("attempt 1 context ended with %v, want context.DeadlineExceeded", err)
		}
	case <-ctx.Done():
		t.Fatal("attempt 1 never ended")
	}
	waitJobState(t, pool, job.ID, "completed", 30*time.Second)
	rs := w.runs.get(job.ID)
	if len(rs) != 2 || rs[1].Attempt != 2 {
		t.Fatalf("runs = %+v, want attempts 1 and 2", rs)
	}
	if len(rs[1].Errors) != 1 || !strings.Contains(rs[1].Errors[0].Error, "job timed out after 200ms") ||
		!strings.Contains(rs[1].Errors[0].Error, context.DeadlineExceeded.Error()) {
		t.Fatalf("attempt 2 saw errors %+v, want a 'job timed out after 200ms: context deadline exceeded' error", rs[1].Errors)
	}
}

type deadlineArgs struct{}

func (deadlineArgs) Kind() string { return "deadline_kind" }

// TestQueueDeadlineEndsHandlerContext: on a queue with a 1s deadline, an
// attempt still running at its deadline is rescued by the leader and the job
// runs again (after the 2s backoff). The runtime knows the deadline
// (ClaimedJob.DeadlineAt), so the first attempt's context must be done by
// then: the same job must never run twice at once in one process. JobTimeout
// is a minute, so without the deadline the first attempt would run on.
func TestQueueDeadlineEndsHandlerContext(t *testing.T) {
	ctx, pool := parallelDB(t, 2*time.Minute)
	d := driver.New()
	secs := 1
	if err := d.ConfigureQueue(ctx, pool, "dl", driver.QueueOptions{DeadlineSeconds: &secs}); err != nil {
		t.Fatal(err)
	}
	var firstEnded, firstRunningAtSecond atomic.Bool
	var secondRan atomic.Int64
	workers := workersFor(func(ctx context.Context, j *driver.Job[deadlineArgs]) error {
		if j.Attempt > 1 {
			secondRan.Add(1)
			firstRunningAtSecond.Store(!firstEnded.Load())
			return nil
		}
		<-ctx.Done()
		firstEnded.Store(true)
		return ctx.Err()
	})
	log, _ := testLogger(t, "client")
	client := startClient(t, pool, workConfig("dl", 2, workers, log, &driver.Config{
		JobTimeout: time.Minute,
	}))
	job, err := client.Insert(ctx, deadlineArgs{}, &driver.InsertOpts{Queue: "dl", MaxAttempts: 3})
	if err != nil {
		t.Fatal(err)
	}
	final := waitJobState(t, pool, job.ID, "completed", 50*time.Second)
	if secondRan.Load() != 1 {
		t.Fatalf("attempt 2 ran %d times, want 1", secondRan.Load())
	}
	if firstRunningAtSecond.Load() {
		t.Fatalf("attempt 2 of job %d started while attempt 1 was still running in the same process: the runtime did "+
			"not end attempt 1's context at the queue deadline (ClaimedJob.DeadlineAt), so the job ran twice at once", job.ID)
	}
	if final.Attempt != 2 || len(final.Errors) != 1 || !errorsContain(final.Errors, "deadline") {
		t.Fatalf("completed row %v, want attempt 2 after attempt 1 ended at the queue deadline", final)
	}
}

type oldKindArgs struct{}

func (oldKindArgs) Kind() string { return "deploy_old_kind" }

type newKindArgs struct{}

func (newKindArgs) Kind() string { return "deploy_new_kind" }

// TestRollingDeployRunsEachKindOnTheProcessThatKnowsIt: two clients work one
// queue during a rolling deploy, one knowing only the old kind, the other
// only the new one. Each hands the jobs of the kind it does not know back
// untouched (UnknownKindDelay), so every job completes on the client that
// knows its kind, at attempt 1: no attempt was spent on the hand-backs.
func TestRollingDeployRunsEachKindOnTheProcessThatKnowsIt(t *testing.T) {
	ctx, pool := parallelDB(t, time.Minute)
	var mu sync.Mutex
	ranOn := map[int64]string{}
	record := func(who string, id int64) {
		mu.Lock()
		defer mu.Unlock()
		if prev, twice := ranOn[id]; twice {
			t.Errorf("job %d ran twice (%s, then %s)", id, prev, who)
		}
		ranOn[id] = who
	}
	oldWorkers := workersFor(func(ctx context.Context, j *driver.Job[oldKindArgs]) error { record("old", j.ID); return nil })
	newWorkers := workersFor(func(ctx context.Context, j *driver.Job[newKindArgs]) error { record("new", j.ID); return nil })
	startClient(t, pool, workConfig("deploy", 4, oldWorkers, nil, &driver.Config{UnknownKindDelay: 100 * time.Millisecond}))
	startClient(t, pool, workConfig("deploy", 4, newWorkers, nil, &driver.Config{UnknownKindDelay: 100 * time.Millisecond}))
	want := map[int64]string{}
	for i := 0; i < 10; i++ {
		var args driver.JobArgs = oldKindArgs{}
		who := "old"
		if i%2 == 1 {
			args, who = newKindArgs{}, "new"
		}
		j, err := driver.New().Insert(ctx, pool, driver.InsertParams{Kind: args.Kind(), Args: []byte(`{}`),
			Opts: driver.InsertOpts{Queue: "deploy", MaxAttempts: 1}})
		if err != nil {
			t.Fatal(err)
		}
		want[j.ID] = who
	}
	for id, who := range want {
		final := waitJobState(t, pool, id, "completed", 30*time.Second)
		if final.Attempt != 1 {
			t.Errorf("job %d completed at attempt %d, want 1 (hand-backs spend no attempt)", id, final.Attempt)
		}
		mu.Lock()
		if ranOn[id] != who {
			t.Errorf("job %d ran on %q, want %q", id, ranOn[id], who)
		}
		mu.Unlock()
	}
}
