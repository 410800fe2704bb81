package awatest_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/awa-queue/awa/driver"
	"github.com/awa-queue/awa/driver/awatest"
	"github.com/awa-queue/awa/internal/pgtest"
)

// recorder is a TB that records failures instead of ending the test, so a
// test can check that a helper fails, and with what message.
type recorder struct{ failures []string }

func (r *recorder) Helper() {}
func (r *recorder) Fatalf(format string, args ...any) {
	r.failures = append(r.failures, fmt.Sprintf(format, args...))
}

// failed checks that the helper failed exactly once with a message holding every part.
func (r *recorder) failed(t *testing.T, parts ...string) {
	t.Helper()
	if len(r.failures) != 1 {
		t.Fatalf("helper reported %d failures, want 1: %q", len(r.failures), r.failures)
	}
	for _, p := range parts {
		if !strings.Contains(r.failures[0], p) {
			t.Errorf("failure message lacks %q:\n%s", p, r.failures[0])
		}
	}
	r.failures = nil
}

func insert(t *testing.T, db driver.DBTX, args driver.JobArgs, opts driver.InsertOpts) driver.InsertedJob {
	t.Helper()
	raw, err := json.Marshal(args)
	if err != nil {
		t.Fatal(err)
	}
	job, err := driver.New().Insert(context.Background(), db, driver.InsertParams{Kind: args.Kind(), Args: raw, Opts: opts})
	if err != nil {
		t.Fatal(err)
	}
	return job
}

func TestRequireInsertedMatchesArgsAndOpts(t *testing.T) {
	ctx := context.Background()
	pool := pgtest.NewDB(t)
	runAt := time.Now().Add(time.Hour).Truncate(time.Millisecond).Add(123456 * time.Nanosecond)
	other := insert(t, pool, SendWelcome{UserID: 1, Locale: "en"}, driver.InsertOpts{})
	want := insert(t, pool, SendWelcome{UserID: 2, Locale: "en"}, driver.InsertOpts{Queue: "mail", Priority: 1,
		RunAt: runAt, MaxAttempts: 3, Metadata: []byte(`{"source": "signup", "n": 1}`)})

	rec := &recorder{}
	job := awatest.RequireInserted(ctx, rec, pool, SendWelcome{UserID: 2, Locale: "en"}, &awatest.Opts{Queue: "mail",
		Priority: 1, ScheduledAt: runAt, MaxAttempts: 3, State: driver.StateScheduled, Metadata: []byte(`{"source": "signup"}`)})
	if len(rec.failures) != 0 {
		t.Fatalf("matching job reported as missing: %q", rec.failures)
	}
	if job.ID != want.ID || job.Args.UserID != 2 || job.Queue != "mail" || job.Priority != 1 || job.State != driver.StateScheduled {
		t.Fatalf("RequireInserted returned %+v, want job %d (user 2, queue mail, priority 1, scheduled)", job, want.ID)
	}
	// Args alone: exactly one job has them, whatever the opts.
	if job := awatest.RequireInserted(ctx, rec, pool, SendWelcome{UserID: 1, Locale: "en"}, nil); job.ID != other.ID {
		t.Fatalf("RequireInserted(user 1) = job %d, want %d", job.ID, other.ID)
	}
	if len(rec.failures) != 0 {
		t.Fatalf("unexpected failures: %q", rec.failures)
	}
	if jobs := awatest.Jobs[SendWelcome](ctx, rec, pool); len(jobs) != 2 || jobs[0].ID != other.ID || jobs[1].ID != want.ID {
		t.Fatalf("Jobs = %+v, want jobs %d and %d in order", jobs, other.ID, want.ID)
	}
}

func TestRequireInsertedFailsListingWhatWasFound(t *testing.T) {
	ctx := context.Background()
	pool := pgtest.NewDB(t)
	rec := &recorder{}

	awatest.RequireInserted(ctx, rec, pool, SendWelcome{UserID: 2}, nil)
	rec.failed(t, `want 1 job of kind "send_welcome" with args {"user_id":2,"locale":""}, found 0`, "none visible")

	job := insert(t, pool, SendWelcome{UserID: 1, Locale: "en"}, driver.InsertOpts{Queue: "mail", Metadata: []byte(`{"source": "api"}`)})
	id := fmt.Sprintf("job %d: state available, queue mail", job.ID)
	for _, c := range []struct {
		name string
		args SendWelcome
		opts *awatest.Opts
		says string
	}{
		{"other args", SendWelcome{UserID: 2, Locale: "en"}, nil, `with args {"user_id":2,"locale":"en"}`},
		{"missing field", SendWelcome{UserID: 1}, nil, `with args {"user_id":1,"locale":""}`},
		{"queue", SendWelcome{UserID: 1, Locale: "en"}, &awatest.Opts{Queue: "default"}, "queue default"},
		{"priority", SendWelcome{UserID: 1, Locale: "en"}, &awatest.Opts{Priority: 1}, "priority 1"},
		{"max attempts", SendWelcome{UserID: 1, Locale: "en"}, &awatest.Opts{MaxAttempts: 5}, "max_attempts 5"},
		{"state", SendWelcome{UserID: 1, Locale: "en"}, &awatest.Opts{State: driver.StateScheduled}, "state scheduled"},
		{"run_at", SendWelcome{UserID: 1, Locale: "en"}, &awatest.Opts{ScheduledAt: job.RunAt.Add(2 * time.Microsecond)}, "run_at"},
		{"metadata value", SendWelcome{UserID: 1, Locale: "en"}, &awatest.Opts{Metadata: []byte(`{"source": "signup"}`)}, `metadata containing {"source": "signup"}`},
		{"metadata key", SendWelcome{UserID: 1, Locale: "en"}, &awatest.Opts{Metadata: []byte(`{"team": "a"}`)}, `metadata containing`},
	} {
		awatest.RequireInserted(ctx, rec, pool, c.args, c.opts)
		if len(rec.failures) == 0 {
			t.Errorf("%s: a non-matching job passed RequireInserted", c.name)
			continue
		}
		rec.failed(t, "found 0 among 1 job(s)", c.says, id, `args {"locale": "en", "user_id": 1}`, `metadata {"source": "api"}`)
	}

	// Two matches are a failure too: RequireInserted names one job.
	insert(t, pool, SendWelcome{UserID: 1, Locale: "en"}, driver.InsertOpts{})
	awatest.RequireInserted(ctx, rec, pool, SendWelcome{UserID: 1, Locale: "en"}, nil)
	rec.failed(t, "found 2 among 2 job(s)")
	awatest.RequireInserted(ctx, rec, pool, SendWelcome{}, &awatest.Opts{AnyArgs: true, Queue: "mail"})
	if len(rec.failures) != 0 {
		t.Fatalf("AnyArgs with queue mail: %q", rec.failures)
	}
}

func TestRequireNotInserted(t *testing.T) {
	ctx := context.Background()
	pool := pgtest.NewDB(t)
	rec := &recorder{}
	awatest.RequireNotInserted(ctx, rec, pool, SendWelcome{}, &awatest.Opts{AnyArgs: true})
	if len(rec.failures) != 0 {
		t.Fatalf("empty database: %q", rec.failures)
	}
	job := insert(t, pool, SendWelcome{UserID: 1, Locale: "en"}, driver.InsertOpts{})
	awatest.RequireNotInserted(ctx, rec, pool, SendWelcome{UserID: 2, Locale: "en"}, nil)
	awatest.RequireNotInserted(ctx, rec, pool, SendWelcome{UserID: 1, Locale: "en"}, &awatest.Opts{Queue: "mail"})
	if len(rec.failures) != 0 {
		t.Fatalf("non-matching job reported: %q", rec.failures)
	}
	awatest.RequireNotInserted(ctx, rec, pool, SendWelcome{UserID: 1, Locale: "en"}, nil)
	rec.failed(t, `want no job of kind "send_welcome" with args {"user_id":1,"locale":"en"}, found 1`, fmt.Sprintf("job %d:", job.ID))
	awatest.RequireNotInserted(ctx, rec, pool, SendWelcome{}, &awatest.Opts{AnyArgs: true})
	rec.failed(t, `want no job of kind "send_welcome", found 1`)
}

// TestAssertionsSeeTheTransaction: a tx sees its own uncommitted jobs; other
// sessions see them only after commit, never after rollback.
func TestAssertionsSeeTheTransaction(t *testing.T) {
	ctx := context.Background()
	pool := pgtest.NewDB(t)
	rec := &recorder{}
	for _, commit := range []bool{false, true} {
		tx, err := pool.Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		args := SendWelcome{UserID: 5, Locale: fmt.Sprint(commit)}
		insert(t, tx, args, driver.InsertOpts{})
		awatest.RequireInserted(ctx, rec, tx, args, nil)
		awatest.RequireNotInserted(ctx, rec, pool, args, nil)
		if commit {
			err = tx.Commit(ctx)
		} else {
			err = tx.Rollback(ctx)
		}
		if err != nil {
			t.Fatal(err)
		}
		if commit {
			awatest.RequireInserted(ctx, rec, pool, args, nil)
		} else {
			awatest.RequireNotInserted(ctx, rec, pool, args, nil)
		}
		if len(rec.failures) != 0 {
			t.Fatalf("commit=%v: %q", commit, rec.failures)
		}
	}
}

type slowJob struct{}

func (slowJob) Kind() string { return "slow" }

type slowWorker struct{}

func (slowWorker) Work(ctx context.Context, _ *driver.Job[slowJob]) error {
	<-ctx.Done()
	return ctx.Err()
}
func (slowWorker) Timeout(*driver.Job[slowJob]) time.Duration { return 20 * time.Millisecond }

type panicJob struct{}

func (panicJob) Kind() string { return "panics" }

// TestWorkOutcomes runs each handler result through Work and checks the event,
// the job's state in awa.jobs and what was recorded.
func TestWorkOutcomes(t *testing.T) {
	ctx := context.Background()
	pool := pgtest.NewDB(t)
	workers := driver.NewWorkers()
	driver.AddWorker(workers, driver.WorkFunc(func(ctx context.Context, job *driver.Job[SendWelcome]) error {
		switch job.Args.Locale {
		case "ok":
			return nil
		case "snooze":
			return driver.JobSnooze(time.Hour)
		case "cancel":
			return driver.JobCancel(errors.New("user left"))
		case "fail":
			return driver.JobFail(errors.New("bad address"))
		default:
			return fmt.Errorf("attempt %d of user %d failed", job.Attempt, job.Args.UserID)
		}
	}))
	driver.AddWorker(workers, slowWorker{})
	driver.AddWorker(workers, driver.WorkFunc(func(context.Context, *driver.Job[panicJob]) error { panic("boom") }))

	for _, c := range []struct {
		name  string
		run   func(rec awatest.TB) awatest.Result
		event driver.EventKind
		state driver.JobState
		err   string
	}{
		{"complete", func(rec awatest.TB) awatest.Result {
			return awatest.Work(ctx, rec, pool, workers, SendWelcome{Locale: "ok"}, nil)
		}, driver.EventJobCompleted, driver.StateCompleted, ""},
		{"retry", func(rec awatest.TB) awatest.Result {
			return awatest.Work(ctx, rec, pool, workers, SendWelcome{UserID: 3, Locale: "err"}, nil)
		}, driver.EventJobRetried, driver.StateRetryable, "attempt 1 of user 3 failed"},
		{"last attempt", func(rec awatest.TB) awatest.Result {
			return awatest.Work(ctx, rec, pool, workers, SendWelcome{UserID: 4, Locale: "err"}, &driver.InsertOpts{MaxAttempts: 1})
		}, driver.EventJobFailed, driver.StateFailed, "attempt 1 of user 4 failed"},
		{"snooze", func(rec awatest.TB) awatest.Result {
			return awatest.Work(ctx, rec, pool, workers, SendWelcome{Locale: "snooze"}, nil)
		}, driver.EventJobSnoozed, driver.StateScheduled, ""},
		{"cancel", func(rec awatest.TB) awatest.Result {
			return awatest.Work(ctx, rec, pool, workers, SendWelcome{Locale: "cancel"}, nil)
		}, driver.EventJobCancelled, driver.StateCancelled, "user left"},
		{"fail", func(rec awatest.TB) awatest.Result {
			return awatest.Work(ctx, rec, pool, workers, SendWelcome{Locale: "fail"}, nil)
		}, driver.EventJobFailed, driver.StateFailed, "bad address"},
		{"timeout", func(rec awatest.TB) awatest.Result {
			return awatest.Work(ctx, rec, pool, workers, slowJob{}, nil)
		}, driver.EventJobRetried, driver.StateRetryable, "job timed out after 20ms: context deadline exceeded"},
		{"panic", func(rec awatest.TB) awatest.Result {
			return awatest.Work(ctx, rec, pool, workers, panicJob{}, nil)
		}, driver.EventJobRetried, driver.StateRetryable, "panic: boom"},
		{"bad args", func(rec awatest.TB) awatest.Result {
			job, err := driver.New().Insert(ctx, pool, driver.InsertParams{Kind: "send_welcome", Args: []byte(`{"user_id": "x"}`)})
			if err != nil {
				t.Fatal(err)
			}
			return awatest.WorkJob(ctx, rec, pool, workers, job)
		}, driver.EventJobFailed, driver.StateFailed, `decode args of kind "send_welcome"`},
		{"no worker", func(rec awatest.TB) awatest.Result {
			job, err := driver.New().Insert(ctx, pool, driver.InsertParams{Kind: "nobody", Args: []byte(`{}`)})
			if err != nil {
				t.Fatal(err)
			}
			return awatest.WorkJob(ctx, rec, pool, workers, job)
		}, driver.EventJobFailed, driver.StateFailed, `no worker registered for kind "nobody"`},
	} {
		rec := &recorder{}
		res := c.run(rec)
		if len(rec.failures) != 0 {
			t.Errorf("%s: %q", c.name, rec.failures)
			continue
		}
		if res.Event != c.event || res.State != c.state || !strings.Contains(res.Error, c.err) || (c.err == "") != (res.Error == "") {
			t.Errorf("%s: got %s, state %s, error %q; want %s, state %s, error containing %q",
				c.name, res.Event, res.State, res.Error, c.event, c.state, c.err)
		}
		var state string
		if err := pool.QueryRow(ctx, "SELECT state FROM awa.jobs WHERE id = $1", res.JobID).Scan(&state); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if state != string(c.state) || res.Attempt != 1 {
			t.Errorf("%s: awa.jobs has state %s, Result attempt %d; want %s, attempt 1", c.name, state, res.Attempt, c.state)
		}
		if c.name == "snooze" && time.Until(res.SnoozedUntil) < 59*time.Minute {
			t.Errorf("snooze: SnoozedUntil %s, want about an hour from now", res.SnoozedUntil)
		}
	}
}

// TestWorkRetriedJobSeesItsHistory works a job twice: the second attempt sees
// attempt 2 and the first attempt's error.
func TestWorkRetriedJobSeesItsHistory(t *testing.T) {
	ctx := context.Background()
	pool := pgtest.NewDB(t)
	var seen []string
	workers := driver.NewWorkers()
	driver.AddWorker(workers, driver.WorkFunc(func(ctx context.Context, job *driver.Job[SendWelcome]) error {
		seen = append(seen, fmt.Sprintf("attempt %d errors %s", job.Attempt, job.Errors))
		if job.Attempt == 1 {
			return errors.New("first try fails")
		}
		return nil
	}))
	first := awatest.Work(ctx, t, pool, workers, SendWelcome{UserID: 9}, &driver.InsertOpts{Queue: "q"})
	if _, err := pool.Exec(ctx, "SELECT awa.promote_due_jobs(1000, now() + interval '1 day')"); err != nil {
		t.Fatal(err)
	}
	second := awatest.WorkJob(ctx, t, pool, workers, driver.InsertedJob{ID: first.JobID, Queue: "q", Kind: "send_welcome"})
	if second.Event != driver.EventJobCompleted || second.Attempt != 2 {
		t.Fatalf("second run: %+v, want completed on attempt 2", second)
	}
	if len(seen) != 2 || !strings.HasPrefix(seen[1], "attempt 2 errors [") || !strings.Contains(seen[1], "first try fails") {
		t.Fatalf("handler saw %q, want attempt 2 with the first error", seen)
	}
}

// TestWorkJobRefusesAJobBehindAnother: the claim takes the queue's next job,
// so a job with another ready ahead of it is a clear failure.
func TestWorkJobRefusesAJobBehindAnother(t *testing.T) {
	ctx := context.Background()
	pool := pgtest.NewDB(t)
	workers := driver.NewWorkers()
	driver.AddWorker(workers, driver.WorkFunc(func(context.Context, *driver.Job[SendWelcome]) error { return nil }))
	ahead := insert(t, pool, SendWelcome{UserID: 1}, driver.InsertOpts{})
	behind := insert(t, pool, SendWelcome{UserID: 2}, driver.InsertOpts{})
	rec := &recorder{}
	awatest.WorkJob(ctx, rec, pool, workers, behind)
	rec.failed(t, fmt.Sprintf("job %d", behind.ID), `not the next ready job of queue "default"`,
		fmt.Sprintf("its claim took job %d", ahead.ID))

	scheduled := insert(t, pool, SendWelcome{UserID: 3}, driver.InsertOpts{Queue: "later", RunAt: time.Now().Add(time.Hour)})
	awatest.WorkJob(ctx, rec, pool, workers, scheduled)
	rec.failed(t, "state scheduled at insert", "its claim took nothing")
}

// TestWorkInATransaction: claim, handler and finalizer all run in the test's
// transaction; after rollback the job never existed.
func TestWorkInATransaction(t *testing.T) {
	ctx := context.Background()
	pool := pgtest.NewDB(t)
	workers := driver.NewWorkers()
	driver.AddWorker(workers, driver.WorkFunc(func(context.Context, *driver.Job[SendWelcome]) error { return nil }))
	tx, err := pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	res := awatest.Work(ctx, t, tx, workers, SendWelcome{UserID: 1}, nil)
	awatest.RequireInserted(ctx, t, tx, SendWelcome{UserID: 1}, &awatest.Opts{State: driver.StateCompleted})
	awatest.RequireNotInserted(ctx, t, pool, SendWelcome{}, &awatest.Opts{AnyArgs: true})
	if err := tx.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	awatest.RequireNotInserted(ctx, t, pool, SendWelcome{}, &awatest.Opts{AnyArgs: true})
	if res.Event != driver.EventJobCompleted {
		t.Fatalf("Work in tx: %+v", res)
	}
}

// TestWorkWithoutWorkers: a nil registry fails the job as an unknown kind
// does, rather than panicking.
func TestWorkWithoutWorkers(t *testing.T) {
	res := awatest.Work(context.Background(), t, pgtest.NewDB(t), nil, SendWelcome{UserID: 1}, nil)
	if res.Event != driver.EventJobFailed || res.State != driver.StateFailed || !strings.Contains(res.Error, "no worker registered") {
		t.Fatalf("Work with nil workers: %+v, want failed with no worker registered", res)
	}
}

// The helpers work on an install in another schema through InSchema, and see
// only that install's jobs.
func TestHelpersWorkInAnotherSchema(t *testing.T) {
	ctx := context.Background()
	pool := pgtest.NewDB(t)
	pgtest.InstallSchema(t, pool.Config().ConnString(), "jobs_b")
	inB := awatest.InSchema(t, "jobs_b", pool)
	insert(t, inB, SendWelcome{UserID: 7, Locale: "fr"}, driver.InsertOpts{Queue: "mail"})

	got := awatest.RequireInserted(ctx, t, inB, SendWelcome{UserID: 7, Locale: "fr"}, &awatest.Opts{Queue: "mail"})
	awatest.RequireNotInserted(ctx, t, pool, SendWelcome{UserID: 7, Locale: "fr"}, nil)
	if n := len(awatest.Jobs[SendWelcome](ctx, t, pool)); n != 0 {
		t.Fatalf("schema awa holds %d jobs of the kind, want 0", n)
	}

	workers := driver.NewWorkers()
	driver.AddWorker(workers, driver.WorkFunc(func(ctx context.Context, j *driver.Job[SendWelcome]) error { return nil }))
	if res := awatest.Work(ctx, t, inB, workers, SendWelcome{UserID: 8}, nil); res.State != driver.StateCompleted {
		t.Fatalf("Work in jobs_b: %+v, want completed", res)
	}
	jobs := awatest.Jobs[SendWelcome](ctx, t, inB)
	if len(jobs) != 2 || jobs[0].ID != got.ID || jobs[1].State != driver.StateCompleted {
		t.Fatalf("jobs of jobs_b: %+v, want the inserted one and the worked one", jobs)
	}

	var r recorder
	awatest.InSchema(&r, "Bad", pool)
	r.failed(t, "invalid awa schema name")
}
