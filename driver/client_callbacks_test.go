package driver_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/awa-queue/awa/driver"
)

type parkArgs struct {
	Tag string `json:"tag"`
}

func (parkArgs) Kind() string { return "park_kind" }

// parkRun is one run of a callback test's handler.
type parkRun struct {
	ID, RunLease int64
	Attempt      int
	Token        string
	Result       json.RawMessage
	HasResult    bool
}

// parkingWorkers: a run without a callback result registers a callback
// (timeout) and parks; a run with one completes. Every run is sent on runs.
func parkingWorkers(timeout time.Duration, runs chan<- parkRun) *driver.Workers {
	return workersFor(func(ctx context.Context, j *driver.Job[parkArgs]) error {
		res, ok := j.CallbackResult()
		run := parkRun{ID: j.ID, RunLease: j.RunLease, Attempt: j.Attempt, Result: res, HasResult: ok}
		if ok {
			runs <- run
			return nil
		}
		token, err := j.RegisterCallback(ctx, timeout)
		if err != nil {
			return err
		}
		run.Token = token
		runs <- run
		return driver.JobWaitForCallback()
	})
}

// nextRun returns the next run sent on runs, failing after 20s.
func nextRun(t *testing.T, runs <-chan parkRun) parkRun {
	t.Helper()
	select {
	case r := <-runs:
		return r
	case <-time.After(20 * time.Second):
		t.Fatal("no handler run within 20s")
		return parkRun{}
	}
}

// resolveSQL resolves token from plain SQL with awa.<fn>(token, args...) and
// returns the outcome and the job's new state ("" when none).
func resolveSQL(t *testing.T, pool *pgxpool.Pool, fn, token string, args ...any) (outcome, state string) {
	t.Helper()
	ph := []string{"$1::uuid"}
	for i := range args {
		ph = append(ph, fmt.Sprintf("$%d", i+2))
	}
	sql := fmt.Sprintf("SELECT outcome::text, coalesce(state::text, '') FROM awa.%s(%s)", fn, strings.Join(ph, ", "))
	if err := pool.QueryRow(context.Background(), sql, append([]any{token}, args...)...).Scan(&outcome, &state); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return outcome, state
}

// callbackResult reads metadata.callback_result of job id from awa.jobs.
func callbackResult(t *testing.T, pool *pgxpool.Pool, id int64) string {
	t.Helper()
	var s *string
	if err := pool.QueryRow(context.Background(), `SELECT (metadata->'callback_result')::text FROM awa.jobs WHERE id = $1`,
		id).Scan(&s); err != nil {
		t.Fatal(err)
	}
	if s == nil {
		return ""
	}
	return *s
}

// TestParkedJobResumedFromSQLRunsAgainWithThePayload: three jobs on a queue
// with one worker register a callback and park: all three reach
// waiting_external (the parked jobs hold no worker slot) and the client
// reports each park. Each is resumed from plain SQL (awa.resume_external):
// it runs again, reads the payload with CallbackResult, and completes; each
// ran exactly twice, and a second resume of the same token is stale.
func TestParkedJobResumedFromSQLRunsAgainWithThePayload(t *testing.T) {
	ctx, pool := parallelDB(t, time.Minute)
	runs := make(chan parkRun, 10)
	client, events := startClientEvents(t, pool, workConfig("parkq", 1, parkingWorkers(time.Hour, runs), nil, nil))
	tokens := map[int64]string{}
	for i := 0; i < 3; i++ {
		if _, err := client.Insert(ctx, parkArgs{Tag: fmt.Sprint(i)}, &driver.InsertOpts{Queue: "parkq"}); err != nil {
			t.Fatal(err)
		}
	}
	for i := 0; i < 3; i++ {
		r := nextRun(t, runs)
		if r.HasResult || r.Token == "" {
			t.Fatalf("first run %+v: want a registered token and no callback result", r)
		}
		tokens[r.ID] = r.Token
	}
	for id := range tokens {
		waitJobState(t, pool, id, "waiting_external", 10*time.Second)
	}
	waitFor(t, 5*time.Second, "three job_parked events", func() (bool, string) {
		n := len(events.of(driver.EventJobParked, func(e *driver.Event) bool { return e.Job.State == driver.StateWaitingExternal }))
		return n == 3, events.kinds()
	})
	for id, token := range tokens {
		if o, s := resolveSQL(t, pool, "resume_external", token, fmt.Sprintf(`{"for": %d}`, id)); o != "applied" || s != "available" {
			t.Fatalf("resume_external of job %d = %s %s, want applied available", id, o, s)
		}
	}
	for i := 0; i < 3; i++ {
		r := nextRun(t, runs)
		if want := fmt.Sprintf(`{"for": %d}`, r.ID); !r.HasResult || string(r.Result) != want {
			t.Fatalf("second run of job %d saw callback result %q (%v), want %s", r.ID, r.Result, r.HasResult, want)
		}
		if r.Attempt != 1 {
			t.Fatalf("second run of job %d is attempt %d; a resumed park does not count an attempt", r.ID, r.Attempt)
		}
	}
	for id, token := range tokens {
		waitJobState(t, pool, id, "completed", 10*time.Second)
		if o, _ := resolveSQL(t, pool, "resume_external", token, `{}`); o != "stale" {
			t.Fatalf("second resume of job %d's token = %s, want stale", id, o)
		}
	}
	select {
	case r := <-runs:
		t.Fatalf("unexpected third run %+v", r)
	case <-time.After(300 * time.Millisecond):
	}
}

// TestParkedJobResolvedFromSQL: a parked job completed, failed or retried by
// its token from plain SQL ends as each says: completed with the payload in
// metadata.callback_result; failed with the error; retryable with the error
// (attempt counted), then run again and parked again as attempt 2.
func TestParkedJobResolvedFromSQL(t *testing.T) {
	for _, tc := range []struct {
		fn    string
		arg   any
		state string
	}{
		{"complete_external", `{"invoice": 7}`, "completed"},
		{"fail_external", "vendor refused", "failed"},
		{"retry_external", "vendor busy", "retryable"},
	} {
		t.Run(tc.fn, func(t *testing.T) {
			ctx, pool := parallelDB(t, time.Minute)
			runs := make(chan parkRun, 10)
			client := startClient(t, pool, workConfig("parkq", 2, parkingWorkers(time.Hour, runs), nil, nil))
			job, err := client.Insert(ctx, parkArgs{}, &driver.InsertOpts{Queue: "parkq", MaxAttempts: 3})
			if err != nil {
				t.Fatal(err)
			}
			r := nextRun(t, runs)
			waitJobState(t, pool, job.ID, "waiting_external", 10*time.Second)
			if o, s := resolveSQL(t, pool, tc.fn, r.Token, tc.arg); o != "applied" || s != tc.state {
				t.Fatalf("%s = %s %s, want applied %s", tc.fn, o, s, tc.state)
			}
			switch tc.fn {
			case "complete_external":
				waitJobState(t, pool, job.ID, "completed", 5*time.Second)
				if got := callbackResult(t, pool, job.ID); got != `{"invoice": 7}` {
					t.Fatalf("completed job's callback_result = %q", got)
				}
			case "fail_external":
				snap := waitJobState(t, pool, job.ID, "failed", 5*time.Second)
				if !errorsContain(snap.Errors, "vendor refused") {
					t.Fatalf("failed job %v lacks the callback's error", snap)
				}
			default:
				r2 := nextRun(t, runs)
				if r2.Attempt != 2 || r2.HasResult || r2.Token == r.Token {
					t.Fatalf("run after retry_external %+v: want attempt 2, parked again with a new token", r2)
				}
				snap := waitJobState(t, pool, job.ID, "waiting_external", 10*time.Second)
				if !errorsContain(snap.Errors, "vendor busy") {
					t.Fatalf("retried job %v lacks the callback's error", snap)
				}
			}
			if o, _ := resolveSQL(t, pool, "complete_external", r.Token, `{}`); o != "stale" {
				t.Fatalf("a second resolution of the token = %s, want stale", o)
			}
		})
	}
}

type waitArgs struct{}

func (waitArgs) Kind() string { return "wait_kind" }

// waitRun is what a sequential-wait handler saw.
type waitRun struct {
	Payload json.RawMessage
	Err     error
	At      time.Time
}

// waitingWorkers: the handler registers (timeout), sends its token, waits
// in sequence and reports what WaitForCallback returned; it completes when
// resumed and returns the wait's error otherwise.
func waitingWorkers(timeout time.Duration, tokens chan<- string, done chan<- waitRun) *driver.Workers {
	return workersFor(func(ctx context.Context, j *driver.Job[waitArgs]) error {
		token, err := j.RegisterCallback(ctx, timeout)
		if err != nil {
			return err
		}
		tokens <- token
		payload, err := j.WaitForCallback(ctx)
		done <- waitRun{Payload: payload, Err: err, At: time.Now()}
		return err
	})
}

// TestSequentialWaitIsResumed: a handler waits in sequence for its callback
// (awa.jobs shows waiting_external) and gets the resume payload, then its
// job completes in the same attempt. With LISTEN the control channel's
// resume notification wakes it at once (the poll interval is 30s here);
// with DisableListen the poll (200ms) does. The listen case resumes from
// SQL, the other through Client.ResumeExternal.
func TestSequentialWaitIsResumed(t *testing.T) {
	for _, tc := range []struct {
		name     string
		noListen bool
		poll     time.Duration
		bound    time.Duration
	}{
		{"listen", false, 30 * time.Second, 2 * time.Second},
		{"no_listen", true, 200 * time.Millisecond, 200*time.Millisecond + 2*time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, pool := parallelDB(t, time.Minute)
			tokens, done := make(chan string, 1), make(chan waitRun, 1)
			cfg := workConfig("waitq", 2, waitingWorkers(time.Hour, tokens, done), nil,
				&driver.Config{DisableListen: tc.noListen, CallbackPollInterval: tc.poll})
			client := startClient(t, pool, cfg)
			job, err := client.Insert(ctx, waitArgs{}, &driver.InsertOpts{Queue: "waitq"})
			if err != nil {
				t.Fatal(err)
			}
			var token string
			select {
			case token = <-tokens:
			case <-time.After(20 * time.Second):
				t.Fatal("the handler never registered")
			}
			waitJobState(t, pool, job.ID, "waiting_external", 5*time.Second)
			at := time.Now()
			if tc.noListen {
				out, err := client.ResumeExternal(ctx, token, json.RawMessage(`{"approved": true}`))
				if err != nil || out.Outcome != driver.Applied || out.State != driver.StateRunning || out.JobID != job.ID {
					t.Fatalf("ResumeExternal = %+v, %v; want applied running for job %d", out, err, job.ID)
				}
			} else if o, s := resolveSQL(t, pool, "resume_external", token, `{"approved": true}`); o != "applied" || s != "running" {
				t.Fatalf("resume_external = %s %s, want applied running", o, s)
			}
			select {
			case r := <-done:
				if r.Err != nil || string(r.Payload) != `{"approved": true}` {
					t.Fatalf("WaitForCallback = %s, %v; want the payload", r.Payload, r.Err)
				}
				if took := r.At.Sub(at); took > tc.bound {
					t.Fatalf("WaitForCallback returned %s after the resume, want within %s", took, tc.bound)
				} else {
					t.Logf("WaitForCallback returned %s after the resume", took)
				}
			case <-time.After(tc.bound + 5*time.Second):
				t.Fatal("WaitForCallback did not return")
			}
			snap := waitJobState(t, pool, job.ID, "completed", 5*time.Second)
			if snap.Attempt != 1 || snap.RunLease != 1 {
				t.Fatalf("completed job %v: want its first attempt", snap)
			}
		})
	}
}

// TestSequentialWaitEndsWhenItsAttemptCloses: a handler waiting in sequence
// learns that its attempt closed and returns, whoever closed it: the
// callback completed it (awa.complete_external; the job completed, the
// handler's result stale), an operator cancelled it (awa.cancel_job), or the
// callback timed out (the leader's awa.rescue_expired_callbacks; failed, its
// attempts exhausted, "callback timed out" recorded).
func TestSequentialWaitEndsWhenItsAttemptCloses(t *testing.T) {
	for _, tc := range []struct {
		name    string
		timeout time.Duration
		close   func(pool *pgxpool.Pool, id int64, token string) error
		state   string
		errText string
	}{
		{"complete_external", time.Hour, func(pool *pgxpool.Pool, _ int64, token string) error {
			_, err := pool.Exec(context.Background(), `SELECT * FROM awa.complete_external($1, '{"x": 1}')`, token)
			return err
		}, "completed", ""},
		{"cancel_job", time.Hour, func(pool *pgxpool.Pool, id int64, _ string) error {
			_, err := pool.Exec(context.Background(), `SELECT * FROM awa.cancel_job($1, 'not needed')`, id)
			return err
		}, "cancelled", "not needed"},
		{"timeout", time.Second, nil, "failed", "callback timed out"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, pool := parallelDB(t, time.Minute)
			tokens, done := make(chan string, 1), make(chan waitRun, 1)
			cfg := workConfig("waitq", 2, waitingWorkers(tc.timeout, tokens, done), nil,
				&driver.Config{CallbackPollInterval: 200 * time.Millisecond})
			cfg.Maintenance.CallbackInterval = 200 * time.Millisecond
			log, logs := testLogger(t, "client")
			cfg.Logger = log
			client := startClient(t, pool, cfg)
			job, err := client.Insert(ctx, waitArgs{}, &driver.InsertOpts{Queue: "waitq", MaxAttempts: 1})
			if err != nil {
				t.Fatal(err)
			}
			token := <-tokens
			if tc.close != nil {
				if err := tc.close(pool, job.ID, token); err != nil {
					t.Fatal(err)
				}
			}
			select {
			case r := <-done:
				if !errors.Is(r.Err, driver.ErrAttemptClosed) || r.Payload != nil {
					t.Fatalf("WaitForCallback = %s, %v; want ErrAttemptClosed", r.Payload, r.Err)
				}
				if tc.name != "cancel_job" && !errors.Is(r.Err, driver.ErrStaleAttempt) {
					t.Fatalf("WaitForCallback error %v is not ErrStaleAttempt", r.Err)
				}
			case <-time.After(15 * time.Second):
				t.Fatal("WaitForCallback did not return after its attempt closed")
			}
			snap := waitJobState(t, pool, job.ID, tc.state, 10*time.Second)
			if tc.errText != "" && !errorsContain(snap.Errors, tc.errText) {
				t.Fatalf("job %v lacks %q", snap, tc.errText)
			}
			waitFor(t, 5*time.Second, "the handler's result to be dropped as stale", func() (bool, string) {
				n := len(logs.find("Stale result dropped", nil))
				return n == 1, fmt.Sprintf("%d stale results", n)
			})
			if o, _ := resolveSQL(t, pool, "resume_external", token, `{}`); o != "stale" {
				t.Fatalf("resume after the attempt closed = %s, want stale", o)
			}
		})
	}
}

// TestCallbackResolvedBeforeThePark: the external system answers before the
// handler has returned JobWaitForCallback. Resumed first: the park sends the
// job straight back to its queue (the job_parked event says available), and
// its next run reads the payload. Completed first: the attempt is closed,
// the park is stale, and the job stays completed with one run.
func TestCallbackResolvedBeforeThePark(t *testing.T) {
	for _, fn := range []string{"resume_external", "complete_external"} {
		t.Run(fn, func(t *testing.T) {
			ctx, pool := parallelDB(t, time.Minute)
			runs := make(chan parkRun, 10)
			resolved := make(chan struct{})
			var once sync.Once
			workers := workersFor(func(ctx context.Context, j *driver.Job[parkArgs]) error {
				res, ok := j.CallbackResult()
				if ok {
					runs <- parkRun{ID: j.ID, Result: res, HasResult: true}
					return nil
				}
				token, err := j.RegisterCallback(ctx, time.Hour)
				if err != nil {
					return err
				}
				runs <- parkRun{ID: j.ID, RunLease: j.RunLease, Token: token}
				<-resolved
				return driver.JobWaitForCallback()
			})
			log, logs := testLogger(t, "client")
			client, events := startClientEvents(t, pool, workConfig("parkq", 2, workers, log, nil))
			job, err := client.Insert(ctx, parkArgs{}, &driver.InsertOpts{Queue: "parkq"})
			if err != nil {
				t.Fatal(err)
			}
			r := nextRun(t, runs)
			want := map[string]string{"resume_external": "running", "complete_external": "completed"}[fn]
			if o, s := resolveSQL(t, pool, fn, r.Token, `{"early": true}`); o != "applied" || s != want {
				t.Fatalf("%s before the park = %s %s, want applied %s", fn, o, s, want)
			}
			once.Do(func() { close(resolved) })
			if fn == "resume_external" {
				r2 := nextRun(t, runs)
				if string(r2.Result) != `{"early": true}` {
					t.Fatalf("the run after the early resume saw %q", r2.Result)
				}
				waitJobState(t, pool, job.ID, "completed", 10*time.Second)
				if n := len(events.of(driver.EventJobParked, func(e *driver.Event) bool { return e.Job.State == driver.StateAvailable })); n != 1 {
					t.Fatalf("%d job_parked events with state available, want 1 (%s)", n, events.kinds())
				}
				return
			}
			waitFor(t, 5*time.Second, "the late park to be dropped as stale", func() (bool, string) {
				n := len(logs.find("Stale result dropped", func(e logEntry) bool { return e.Attrs["action"] == "park" }))
				return n == 1, fmt.Sprintf("%d stale parks", n)
			})
			waitJobState(t, pool, job.ID, "completed", 5*time.Second)
			select {
			case r := <-runs:
				t.Fatalf("a completed job ran again: %+v", r)
			case <-time.After(300 * time.Millisecond):
			}
		})
	}
}

// TestParkedJobTimesOut: a parked job whose callback times out (1s) is
// retried by the leader's callback rescue (CallbackInterval 200ms): failed
// here, its one attempt used, "callback timed out" recorded; a late
// resolution of its token is stale and changes nothing.
func TestParkedJobTimesOut(t *testing.T) {
	ctx, pool := parallelDB(t, time.Minute)
	runs := make(chan parkRun, 10)
	cfg := workConfig("parkq", 2, parkingWorkers(time.Second, runs), nil, nil)
	cfg.Maintenance.CallbackInterval = 200 * time.Millisecond
	client, events := startClientEvents(t, pool, cfg)
	job, err := client.Insert(ctx, parkArgs{}, &driver.InsertOpts{Queue: "parkq", MaxAttempts: 1})
	if err != nil {
		t.Fatal(err)
	}
	r := nextRun(t, runs)
	waitJobState(t, pool, job.ID, "waiting_external", 5*time.Second)
	snap := waitJobState(t, pool, job.ID, "failed", 10*time.Second)
	if !errorsContain(snap.Errors, "callback timed out") {
		t.Fatalf("timed-out job %v lacks 'callback timed out'", snap)
	}
	if n := len(events.of(driver.EventJobsRescued, func(e *driver.Event) bool { return e.Service == "rescue_callbacks" })); n == 0 {
		t.Fatalf("no jobs_rescued event of rescue_callbacks (%s)", events.kinds())
	}
	out, err := client.CompleteExternal(ctx, r.Token, nil)
	if err != nil || out.Outcome != driver.Stale {
		t.Fatalf("late CompleteExternal = %+v, %v; want stale", out, err)
	}
	if got := jobRows(t, pool, job.ID); len(got) != 1 || got[0].State != "failed" {
		t.Fatalf("after the late resolution: %v", got)
	}
}

// TestParkWithoutRegistrationIsRetriedAndSparesItsBatch: a handler that
// returns JobWaitForCallback without registering is retried with an error
// saying why. One whose registration vanished behind the runtime's back (it
// thinks it registered; awa.park_jobs raises AW022) shares its finalizer
// batch with a good park: the good one is parked, the bad one retried.
func TestParkWithoutRegistrationIsRetriedAndSparesItsBatch(t *testing.T) {
	ctx, pool := parallelDB(t, time.Minute)
	registered := make(chan int64, 3)
	release := make(chan struct{})
	workers := workersFor(func(ctx context.Context, j *driver.Job[parkArgs]) error {
		if j.Args.Tag == "never" {
			return driver.JobWaitForCallback()
		}
		if _, err := j.RegisterCallback(ctx, time.Hour); err != nil {
			return err
		}
		registered <- j.ID
		<-release
		return driver.JobWaitForCallback()
	})
	log, logs := testLogger(t, "client")
	cfg := workConfig("parkq", 3, workers, log, &driver.Config{CompleterFlushInterval: 500 * time.Millisecond})
	client := startClient(t, pool, cfg)
	ids := map[string]int64{}
	for _, tag := range []string{"never", "good", "lost"} {
		j, err := client.Insert(ctx, parkArgs{Tag: tag}, &driver.InsertOpts{Queue: "parkq", MaxAttempts: 1})
		if err != nil {
			t.Fatal(err)
		}
		ids[tag] = j.ID
	}
	<-registered
	<-registered
	if _, err := pool.Exec(ctx, `DELETE FROM awa.callbacks WHERE job_id = $1`, ids["lost"]); err != nil {
		t.Fatal(err)
	}
	close(release)
	for _, tag := range []string{"never", "lost"} {
		snap := waitJobState(t, pool, ids[tag], "failed", 10*time.Second)
		if !errorsContain(snap.Errors, "without a callback registered") {
			t.Fatalf("job %s %v: want the park-without-registration error", tag, snap)
		}
	}
	waitJobState(t, pool, ids["good"], "waiting_external", 5*time.Second)
	if n := len(logs.find("Park without a registered callback", nil)); n != 1 {
		t.Fatalf("%d logs of a park without registration from the batch, want 1", n)
	}
}

type longArgs struct{}

func (longArgs) Kind() string { return "long_kind" }

// longWorker's jobs run for hours (WorkerTimeout).
type longWorker struct{ driver.Worker[longArgs] }

func (longWorker) Timeout(*driver.Job[longArgs]) time.Duration { return 3 * time.Hour }

// TestClaimDeadlineCoversTheLongestWorkerTimeout: with a worker whose
// timeout (3h) exceeds RescueStuckAfter (1h), the client's claims carry
// 3h + JobTimeoutGrace as their attempt deadline, so a long job heartbeating
// is not cut at RescueStuckAfter.
func TestClaimDeadlineCoversTheLongestWorkerTimeout(t *testing.T) {
	ctx, pool := parallelDB(t, time.Minute)
	started := make(chan struct{}, 1)
	workers := driver.NewWorkers()
	driver.AddWorker[longArgs](workers, longWorker{driver.WorkFunc(func(ctx context.Context, j *driver.Job[longArgs]) error {
		started <- struct{}{}
		<-ctx.Done()
		return ctx.Err()
	})})
	client := startClient(t, pool, workConfig("longq", 1, workers, nil, &driver.Config{JobTimeoutGrace: 7 * time.Second}))
	job, err := client.Insert(ctx, longArgs{}, &driver.InsertOpts{Queue: "longq"})
	if err != nil {
		t.Fatal(err)
	}
	<-started
	var span time.Duration
	if err := pool.QueryRow(ctx, `SELECT deadline_at - claimed_at FROM awa.claim_batches WHERE $1 = ANY (job_ids)`,
		job.ID).Scan(&span); err != nil {
		t.Fatal(err)
	}
	if want := 3*time.Hour + 7*time.Second; span != want {
		t.Fatalf("claim deadline %s after the claim, want %s (the worker's timeout plus the grace)", span, want)
	}
}

// TestCallbackRegistrationOfAClosedAttemptIsStale: Driver.RegisterCallback
// for an attempt already completed is a *StaleAttemptError and writes
// nothing; a token that is not a UUID is ErrInvalidArgument; a forged token
// is stale and names no job.
func TestCallbackRegistrationOfAClosedAttemptIsStale(t *testing.T) {
	ctx, pool := parallelDB(t, time.Minute)
	d := driver.New()
	if _, err := d.Insert(ctx, pool, driver.InsertParams{Kind: "k", Args: []byte(`{}`), Opts: driver.InsertOpts{Queue: "regq"}}); err != nil {
		t.Fatal(err)
	}
	jobs, err := d.Claim(ctx, pool, "regq", 1, [16]byte{}, 0)
	if err != nil || len(jobs) != 1 {
		t.Fatalf("claim: %v, %d jobs", err, len(jobs))
	}
	if _, err := d.Complete(ctx, pool, []driver.Receipt{jobs[0].Receipt}); err != nil {
		t.Fatal(err)
	}
	_, err = d.RegisterCallback(ctx, pool, jobs[0].Receipt, time.Minute)
	var stale *driver.StaleAttemptError
	if !errors.As(err, &stale) || !errors.Is(err, driver.ErrStaleAttempt) || stale.JobID != jobs[0].JobID {
		t.Fatalf("RegisterCallback of a completed attempt = %v, want a StaleAttemptError", err)
	}
	var n int
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM awa.callbacks`).Scan(&n); err != nil || n != 0 {
		t.Fatalf("callbacks rows after a stale registration: %d, %v", n, err)
	}
	if _, err := d.CompleteExternal(ctx, pool, "not-a-token", nil); !errors.Is(err, driver.ErrInvalidArgument) {
		t.Fatalf("CompleteExternal of a malformed token = %v, want ErrInvalidArgument", err)
	}
	out, err := d.FailExternal(ctx, pool, "6f1c2a3b-0000-4000-8000-000000000001", "forged")
	if err != nil || out.Outcome != driver.Stale || out.JobID != 0 {
		t.Fatalf("FailExternal of a forged token = %+v, %v; want stale naming no job", out, err)
	}
}

// TestCallbackDefaults: the leader's callback rescue runs every second and
// WaitForCallback polls every second unless configured.
func TestCallbackDefaults(t *testing.T) {
	if got := driver.DefaultMaintenance().CallbackInterval; got != time.Second {
		t.Fatalf("default CallbackInterval = %s, want 1s", got)
	}
}
