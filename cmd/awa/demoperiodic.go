package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/awa-queue/awa/driver"
)

// OpsDigestArgs (kind ops_digest) is the demo's periodic job, on queue ops:
// declared from SQL after the load, fired every second by the maintenance
// leader, paused and deleted after two fires.
type OpsDigestArgs struct{}

// Kind implements driver.JobArgs.
func (OpsDigestArgs) Kind() string { return "ops_digest" }

func addPeriodicDemoWorker(ws *driver.Workers) {
	driver.AddWorker(ws, driver.WorkFunc(func(context.Context, *driver.Job[OpsDigestArgs]) error { return nil }))
}

// showPeriodic declares ops_digest from SQL, shows the leader firing it
// twice (EventPeriodicFired), pauses and deletes it, and waits for its jobs
// to complete.
func showPeriodic(ctx context.Context, client *driver.Client, db driver.DBTX, w io.Writer) error {
	d := client.Driver()
	fired, cancel := client.Subscribe(driver.EventPeriodicFired)
	defer cancel()
	fmt.Fprintln(w, "\n== Periodic jobs (declared from SQL here; a Go service declares them in Config.PeriodicJobs)")
	fmt.Fprintln(w, `SELECT * FROM awa.upsert_periodic_job('ops_digest', '@every 1s', 'ops_digest', '{}', '{"queue": "ops"}');`)
	if _, err := d.UpsertPeriodicJob(ctx, db, driver.PeriodicJobParams{Name: "ops_digest", Schedule: "@every 1s",
		Kind: OpsDigestArgs{}.Kind(), Opts: driver.InsertOpts{Queue: queueOps}}); err != nil {
		return err
	}
	timeout := time.After(15 * time.Second)
	for n := 0; n < 2; {
		select {
		case e := <-fired:
			if e.Periodic.Name != "ops_digest" {
				continue
			}
			n++
			fmt.Fprintf(w, "  the maintenance leader fired job %d for %s (metadata periodic.fire_at), next at %s\n",
				e.Periodic.JobID, e.Periodic.FireAt.Local().Format("15:04:05"), e.Periodic.NextRunAt.Local().Format("15:04:05"))
		case <-timeout:
			return errors.New("ops_digest did not fire twice within 15s")
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	fmt.Fprintln(w, "SELECT * FROM awa.pause_periodic_job('ops_digest');   -- no fire from now on (resume_periodic_job goes on)")
	if _, err := d.PausePeriodicJob(ctx, db, "ops_digest"); err != nil {
		return err
	}
	fmt.Fprintln(w, "SELECT * FROM awa.delete_periodic_job('ops_digest');  -- its jobs stay")
	if _, err := d.DeletePeriodicJob(ctx, db, "ops_digest"); err != nil {
		return err
	}
	for deadline := time.Now().Add(10 * time.Second); ; {
		c, err := opsCounts(ctx, d, db)
		if err != nil {
			return err
		}
		if c.Available+c.Running == 0 {
			break
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("the ops_digest jobs did not complete within 10s: %+v", c)
		}
		time.Sleep(50 * time.Millisecond)
	}
	fmt.Fprintln(w, "the ops_digest jobs completed")
	return nil
}
