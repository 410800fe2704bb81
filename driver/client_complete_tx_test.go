package driver_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/awa-queue/awa/driver"
)

type ledgerArgs struct {
	Amount int `json:"amount"`
}

func (ledgerArgs) Kind() string { return "ledger_kind" }

// TestJobCompleteTxCommitsTheEffectAndTheCompletionTogether: a handler writes
// its side effect and completes its job in one transaction of its own
// (JobCompleteTx). Its first attempt rolls that transaction back (as a failed
// commit would) and returns nil: neither the effect nor the completion
// happened, so the job runs again; the second attempt commits: the job is
// completed, and the effect is there exactly once. A JobCompleteTx of the
// first attempt, presented again after the job completed, is stale.
func TestJobCompleteTxCommitsTheEffectAndTheCompletionTogether(t *testing.T) {
	ctx, pool := parallelDB(t, time.Minute)
	if _, err := pool.Exec(ctx, `CREATE TABLE ledger (job_id bigint NOT NULL, attempt int NOT NULL, amount int NOT NULL)`); err != nil {
		t.Fatal(err)
	}
	var (
		mu    sync.Mutex
		first *driver.JobRow
	)
	workers := workersFor(func(ctx context.Context, j *driver.Job[ledgerArgs]) error {
		tx, err := pool.Begin(ctx)
		if err != nil {
			return err
		}
		defer tx.Rollback(ctx) //nolint:errcheck // after Commit it is a no-op
		if _, err := tx.Exec(ctx, `INSERT INTO ledger VALUES ($1, $2, $3)`, j.ID, j.Attempt, j.Args.Amount); err != nil {
			return err
		}
		if err := driver.JobCompleteTx(ctx, tx, j.JobRow); err != nil {
			return err
		}
		if j.Attempt == 1 {
			mu.Lock()
			first = j.JobRow
			mu.Unlock()
			return tx.Rollback(ctx) // the effect and the completion are undone together
		}
		return tx.Commit(ctx)
	})
	cfg := workConfig("ledger", 2, workers, nil, nil)
	client := startClient(t, pool, cfg)
	job, err := client.Insert(ctx, ledgerArgs{Amount: 42}, &driver.InsertOpts{Queue: "ledger", MaxAttempts: 3})
	if err != nil {
		t.Fatal(err)
	}
	final := waitJobState(t, pool, job.ID, "completed", 30*time.Second)
	if final.Attempt != 2 {
		t.Fatalf("completed at attempt %d, want 2 (the first attempt's transaction rolled back)", final.Attempt)
	}
	var rows, attempt int
	if err := pool.QueryRow(ctx, `SELECT count(*), min(attempt) FROM ledger WHERE job_id = $1`, job.ID).Scan(&rows, &attempt); err != nil {
		t.Fatal(err)
	}
	if rows != 1 || attempt != 2 {
		t.Fatalf("ledger holds %d rows of the job (attempt %d); want exactly the second attempt's", rows, attempt)
	}
	mu.Lock()
	defer mu.Unlock()
	err = pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error { return driver.JobCompleteTx(ctx, tx, first) })
	if !errors.Is(err, driver.ErrStaleAttempt) {
		t.Fatalf("JobCompleteTx of the first attempt after the job completed = %v, want ErrStaleAttempt", err)
	}
}

type backoffArgs struct{}

func (backoffArgs) Kind() string { return "backoff_kind" }

// backoffWorker fails every attempt and asks to be retried an hour later.
type backoffWorker struct{}

func (backoffWorker) Work(context.Context, *driver.Job[backoffArgs]) error {
	return errors.New("downstream is down")
}

func (backoffWorker) NextRetry(j *driver.Job[backoffArgs]) time.Time {
	return j.ClaimedAt.Add(time.Hour)
}

// TestWorkerNextRetryChoosesWhenTheJobRunsAgain: a worker's NextRetry sets
// the retry time of a job whose handler returned an error, instead of the
// default backoff (a few seconds for a first attempt).
func TestWorkerNextRetryChoosesWhenTheJobRunsAgain(t *testing.T) {
	ctx, pool := parallelDB(t, time.Minute)
	workers := driver.NewWorkers()
	driver.AddWorker[backoffArgs](workers, backoffWorker{})
	client := startClient(t, pool, workConfig("backoff", 1, workers, nil, nil))
	job, err := client.Insert(ctx, backoffArgs{}, &driver.InsertOpts{Queue: "backoff", MaxAttempts: 5})
	if err != nil {
		t.Fatal(err)
	}
	row := waitJobState(t, pool, job.ID, "retryable", 20*time.Second)
	var claimedPlusHour bool
	if err := pool.QueryRow(ctx, `SELECT run_at BETWEEN now() + interval '55 minutes' AND now() + interval '61 minutes'
		FROM awa.job($1)`, job.ID).Scan(&claimedPlusHour); err != nil {
		t.Fatal(err)
	}
	if !claimedPlusHour || row.Attempt != 1 {
		t.Fatalf("retryable job %+v: run_at an hour after its claim %v; want attempt 1 retried in an hour", row, claimedPlusHour)
	}
}
