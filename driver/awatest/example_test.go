package awatest_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"os"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/awa-queue/awa/driver"
	"github.com/awa-queue/awa/driver/awatest"
	"github.com/awa-queue/awa/internal/pgtest"
)

// databaseURL is a fresh database holding schema awa, made by TestMain: in
// your own tests, the test database your suite sets up.
var databaseURL string

func TestMain(m *testing.M) { os.Exit(pgtest.RunWithDB(m, &databaseURL)) }

// t stands for the *testing.T of a real test: an example has none, so a
// failed assertion ends the example with the helper's message.
var t awatest.TB = fatalTB{}

type fatalTB struct{}

func (fatalTB) Helper()                           {}
func (fatalTB) Fatalf(format string, args ...any) { log.Fatalf(format, args...) }

// SendWelcome is a job kind of the service under test.
type SendWelcome struct {
	UserID int64  `json:"user_id"`
	Locale string `json:"locale"`
}

func (SendWelcome) Kind() string { return "send_welcome" }

// signUp is the code under test: it creates a user and enqueues its welcome
// email in the same transaction.
func signUp(ctx context.Context, tx pgx.Tx, userID int64) error {
	_, err := driver.New().Insert(ctx, tx, driver.InsertParams{
		Kind: "send_welcome",
		Args: fmt.Appendf(nil, `{"user_id": %d, "locale": "en"}`, userID),
		Opts: driver.InsertOpts{Queue: "mail", Metadata: []byte(`{"source": "signup"}`)},
	})
	return err
}

// ExampleRequireInserted asserts what a transaction enqueued, before it
// commits: a job of the kind, with equal args, in the queue, with metadata.
// (Each example opens its own pool, as examples/worker does, on purpose: the
// docs show an example alone.)
func ExampleRequireInserted() {
	ctx := context.Background()
	pool, err := pgxpool.New(ctx, databaseURL)
	if err != nil {
		log.Fatal(err)
	}
	defer pool.Close()
	tx, err := pool.Begin(ctx)
	if err != nil {
		log.Fatal(err)
	}
	defer tx.Rollback(ctx)

	if err := signUp(ctx, tx, 42); err != nil {
		log.Fatal(err)
	}
	job := awatest.RequireInserted(ctx, t, tx, SendWelcome{UserID: 42, Locale: "en"},
		&awatest.Opts{Queue: "mail", Metadata: []byte(`{"source": "signup"}`)})
	fmt.Printf("%s job for user %d in queue %s, state %s\n", job.Args.Kind(), job.Args.UserID, job.Queue, job.State)

	// Nothing for another user, and nothing outside the transaction yet.
	awatest.RequireNotInserted(ctx, t, tx, SendWelcome{UserID: 7, Locale: "en"}, nil)
	awatest.RequireNotInserted(ctx, t, pool, SendWelcome{}, &awatest.Opts{AnyArgs: true})
	fmt.Println("jobs of the kind outside the transaction:", len(awatest.Jobs[SendWelcome](ctx, t, pool)))

	// Output:
	// send_welcome job for user 42 in queue mail, state available
	// jobs of the kind outside the transaction: 0
}

// ExampleWork runs a job through its worker in the test: the same
// registration the service's Client uses, the same outcomes. (Its own pool on
// purpose, as ExampleRequireInserted says.)
func ExampleWork() {
	ctx := context.Background()
	pool, err := pgxpool.New(ctx, databaseURL)
	if err != nil {
		log.Fatal(err)
	}
	defer pool.Close()

	workers := driver.NewWorkers()
	driver.AddWorker(workers, driver.WorkFunc(func(ctx context.Context, job *driver.Job[SendWelcome]) error {
		if job.Args.Locale != "en" {
			return driver.JobCancel(fmt.Errorf("no template for locale %q", job.Args.Locale))
		}
		if job.Attempt == 1 && job.Args.UserID == 13 {
			return errors.New("mail server busy") // retried with backoff
		}
		return nil
	}))

	tx, err := pool.Begin(ctx)
	if err != nil {
		log.Fatal(err)
	}
	defer tx.Rollback(ctx) // the whole run, claim and finalizer included, stays in tx

	for _, args := range []SendWelcome{{UserID: 42, Locale: "en"}, {UserID: 13, Locale: "en"}, {UserID: 7, Locale: "fr"}} {
		res := awatest.Work(ctx, t, tx, workers, args, &driver.InsertOpts{Queue: "mail"})
		fmt.Printf("user %d: %s, state %s, error %q\n", args.UserID, res.Event, res.State, res.Error)
	}

	// Output:
	// user 42: job_completed, state completed, error ""
	// user 13: job_retried, state retryable, error "mail server busy"
	// user 7: job_cancelled, state cancelled, error "no template for locale \"fr\""
}
