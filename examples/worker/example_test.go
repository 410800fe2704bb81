package worker_test

import (
	"context"
	"fmt"
	"log"
	"log/slog"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/awa-queue/awa/driver"
)

// SendEmail is a job kind of your own: its args, encoded as JSON.
type SendEmail struct {
	To string `json:"to"`
}

func (SendEmail) Kind() string { return "send_email" }

// Example is the main of a service that works its own job kinds: register a
// handler per kind, start a client, insert a job, and stop gracefully. Its
// opening is the awatest examples' on purpose: each example stands alone.
func Example() {
	ctx := context.Background()
	pool, err := pgxpool.New(ctx, databaseURL)
	if err != nil {
		log.Fatal(err)
	}
	defer pool.Close()

	sent := make(chan string, 1)
	workers := driver.NewWorkers()
	driver.AddWorker(workers, driver.WorkFunc(func(ctx context.Context, job *driver.Job[SendEmail]) error {
		sent <- job.Args.To // your work here; nil completes the job, an error retries it
		return nil
	}))
	client, err := driver.NewClient(pool, &driver.Config{
		Queues:  map[string]driver.QueueConfig{"mail": {MaxWorkers: 10}},
		Workers: workers,
		Logger:  slog.New(slog.DiscardHandler),
	})
	if err != nil {
		log.Fatal(err)
	}
	if err := client.Start(ctx); err != nil {
		log.Fatal(err)
	}

	job, err := client.Insert(ctx, SendEmail{To: "ada@example.com"}, &driver.InsertOpts{Queue: "mail"})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("inserted %s job into queue %s\n", job.Kind, job.Queue)
	fmt.Println("sent email to", <-sent)

	// Stop waits for running jobs and writes their results.
	if err := client.Stop(ctx); err != nil {
		log.Fatal(err)
	}
	var state string
	if err := pool.QueryRow(ctx, "SELECT state FROM awa.jobs WHERE id = $1", job.ID).Scan(&state); err != nil {
		log.Fatal(err)
	}
	fmt.Println("job state:", state)

	// Output:
	// inserted send_email job into queue mail
	// sent email to ada@example.com
	// job state: completed
}
