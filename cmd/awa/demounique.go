package main

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/awa-queue/awa/driver"
)

// RefreshCacheArgs (kind refresh_cache) is the demo's unique job, on queue
// ops: one refresh per page at a time.
type RefreshCacheArgs struct {
	Page string `json:"page"`
}

// Kind implements driver.JobArgs.
func (RefreshCacheArgs) Kind() string { return "refresh_cache" }

func addUniqueDemoWorker(ws *driver.Workers) {
	driver.AddWorker(ws, driver.WorkFunc(func(context.Context, *driver.Job[RefreshCacheArgs]) error { return nil }))
}

// showUnique inserts refresh_cache for one page twice in one transaction
// (the second is the first's duplicate: a worker could otherwise finish the
// first before the second insert), lets it run, and inserts it again: its
// key was released when the job completed.
func showUnique(ctx context.Context, client *driver.Client, pool *pgxpool.Pool, w io.Writer) error {
	fmt.Fprintln(w, "\n== Unique jobs (queue ops)")
	fmt.Fprintln(w, `SELECT * FROM awa.insert_unique_job('refresh_cache', '{"page": "home"}', '{"queue": "ops", "unique": {"by_args": true}}');`)
	opts := &driver.InsertOpts{Queue: queueOps, Unique: &driver.UniqueOpts{ByArgs: true}}
	args := RefreshCacheArgs{Page: "home"}
	insert := func(db driver.DBTX, what string) (driver.InsertedJob, error) {
		var j driver.InsertedJob
		var err error
		if tx, ok := db.(pgx.Tx); ok {
			j, err = client.InsertTx(ctx, tx, args, opts)
		} else {
			j, err = client.Insert(ctx, args, opts)
		}
		if err == nil {
			fmt.Fprintf(w, "  %-47s job %d, duplicate %t\n", what, j.ID, j.Duplicate)
		}
		return j, err
	}
	var first driver.InsertedJob
	err := pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		var err error
		if first, err = insert(tx, "client.InsertTx (new key):"); err != nil {
			return err
		}
		dup, err := insert(tx, "client.InsertTx (same page, same transaction):")
		if err == nil && (!dup.Duplicate || dup.ID != first.ID) {
			err = fmt.Errorf("the second refresh_cache was not the duplicate of job %d: %+v", first.ID, dup)
		}
		return err
	})
	if err != nil {
		return err
	}
	dctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := client.DrainQueue(dctx, queueOps); err != nil {
		return err
	}
	again, err := insert(pool, "client.Insert (after it completed):")
	if err != nil {
		return err
	}
	if again.Duplicate {
		return fmt.Errorf("refresh_cache was still a duplicate after job %d completed", first.ID)
	}
	if err := client.DrainQueue(dctx, queueOps); err != nil {
		return err
	}
	fmt.Fprintln(w, "  the key is held while a job of it is scheduled, available, running or retrying, and released when it ends")
	return nil
}
