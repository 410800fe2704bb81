package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/awa-queue/awa/driver"
)

// The demo's last act, after the load: a long job that reports progress, and
// a job that parks on a callback until a statement from SQL resumes it. Its
// own queue, so the load's accounting stays as it was.
const queueOps = "ops"

// LongReportArgs (kind long_report) works through Steps steps of StepMillis
// each, recording each as its progress checkpoint (JobRow.SetProgress).
type LongReportArgs struct {
	Steps      int `json:"steps"`
	StepMillis int `json:"step_ms"`
}

// Kind implements driver.JobArgs.
func (LongReportArgs) Kind() string { return "long_report" }

// AwaitApprovalArgs (kind await_approval) registers a callback, hands its
// token over and parks (driver.JobWaitForCallback); resumed, it runs again,
// reads the callback's payload and completes.
type AwaitApprovalArgs struct {
	Request string `json:"request"`
}

// Kind implements driver.JobArgs.
func (AwaitApprovalArgs) Kind() string { return "await_approval" }

// showcase is what the ops queue's handlers tell the demo.
type showcase struct {
	tokens  chan string          // await_approval's callback token
	resumed chan json.RawMessage // what its resumed run read
}

func addShowcaseWorkers(ws *driver.Workers) *showcase {
	s := &showcase{tokens: make(chan string, 1), resumed: make(chan json.RawMessage, 1)}
	driver.AddWorker(ws, driver.WorkFunc(func(ctx context.Context, job *driver.Job[LongReportArgs]) error {
		for step := 1; step <= job.Args.Steps; step++ {
			time.Sleep(time.Duration(job.Args.StepMillis) * time.Millisecond) // the work of one step
			if err := job.SetProgress(ctx, map[string]int{"step": step, "of": job.Args.Steps}); err != nil {
				return err
			}
		}
		return nil
	}))
	driver.AddWorker(ws, driver.WorkFunc(func(ctx context.Context, job *driver.Job[AwaitApprovalArgs]) error {
		if res, ok := job.CallbackResult(); ok {
			s.resumed <- res
			return nil
		}
		token, err := job.RegisterCallback(ctx, time.Hour)
		if err != nil {
			return err
		}
		s.tokens <- token // in real life: sent to the approver's system
		return driver.JobWaitForCallback()
	}))
	return s
}

// run enqueues one job of each kind on queue ops, shows the long job's
// progress and the parked job's state, resumes the parked job from SQL and
// waits for both to complete.
func (s *showcase) run(ctx context.Context, client *driver.Client, db driver.DBTX, w io.Writer) error {
	d := client.Driver()
	fmt.Fprintln(w, "\n== Long jobs and callbacks (queue ops)")
	long, err := client.Insert(ctx, LongReportArgs{Steps: 6, StepMillis: 250}, &driver.InsertOpts{Queue: queueOps})
	if err != nil {
		return err
	}
	parked, err := client.Insert(ctx, AwaitApprovalArgs{Request: "refund order 42"}, &driver.InsertOpts{Queue: queueOps})
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "client.Insert  job %d long_report (6 steps, SetProgress after each); job %d await_approval "+
		"(RegisterCallback, then JobWaitForCallback)\n", long.ID, parked.ID)

	var token string
	select {
	case token = <-s.tokens:
	case <-time.After(30 * time.Second):
		return errors.New("await_approval never registered its callback")
	}
	fmt.Fprintf(w, "job %d registered callback %s and parked: its worker slot is free\n", parked.ID, token)

	deadline := time.Now().Add(30 * time.Second)
	var lastProgress string
	resumedAt := time.Time{}
	for {
		c, err := opsCounts(ctx, d, db)
		if err != nil {
			return err
		}
		if p, ok, err := d.JobProgress(ctx, db, long.ID); err != nil {
			return err
		} else if ok && string(p.Progress) != lastProgress {
			lastProgress = string(p.Progress)
			fmt.Fprintf(w, "  job %d progress %s  (queue ops: running %d, waiting_external %d, completed %d)\n",
				long.ID, lastProgress, c.Running, c.WaitingExternal, c.Completed)
		}
		if resumedAt.IsZero() && lastProgress != "" && c.WaitingExternal == 1 {
			payload := json.RawMessage(`{"approved_by": "ops@example.com"}`)
			fmt.Fprintf(w, "SELECT * FROM awa.resume_external('%s', '%s');  -- the approver answers, from SQL\n", token, payload)
			out, err := client.ResumeExternal(ctx, token, payload)
			if err != nil {
				return err
			}
			fmt.Fprintf(w, "  -> outcome %s, job %d state %s\n", out.Outcome, out.JobID, out.State)
			resumedAt = time.Now()
		}
		if c.Completed == 2 {
			break
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("the ops jobs did not complete within 30s: %+v", c)
		}
		time.Sleep(50 * time.Millisecond)
	}
	select {
	case res := <-s.resumed:
		fmt.Fprintf(w, "job %d ran again, read callback_result %s (JobRow.CallbackResult) and completed\n", parked.ID, res)
	default:
		return errors.New("await_approval completed without reading its callback result")
	}
	fmt.Fprintf(w, "job %d completed after its 6 steps; both ops jobs completed\n", long.ID)
	return nil
}

// opsCounts returns queue ops's counts.
func opsCounts(ctx context.Context, d *driver.Driver, db driver.DBTX) (driver.QueueCount, error) {
	counts, err := d.QueueCounts(ctx, db, queueOps)
	if err != nil || len(counts) == 0 {
		return driver.QueueCount{}, err
	}
	return counts[0], nil
}

// pauseAndDrain pauses queue ops, shows a job inserted meanwhile waiting,
// resumes the queue from SQL and drains it (Client.DrainQueue).
func (s *showcase) pauseAndDrain(ctx context.Context, client *driver.Client, db driver.DBTX, w io.Writer) error {
	d := client.Driver()
	fmt.Fprintln(w, "\n== Pause, resume and drain (queue ops)")
	if _, err := d.PauseQueue(ctx, db, queueOps); err != nil {
		return err
	}
	fmt.Fprintf(w, "SELECT * FROM awa.pause_queue('%s');  -- its jobs wait; running ones finish\n", queueOps)
	job, err := client.Insert(ctx, LongReportArgs{Steps: 1, StepMillis: 10}, &driver.InsertOpts{Queue: queueOps})
	if err != nil {
		return err
	}
	time.Sleep(500 * time.Millisecond)
	dr, err := d.QueueDrained(ctx, db, queueOps)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "client.Insert  job %d; half a second later awa.queue_drained('%s'): drained %v, available %v (paused)\n",
		job.ID, queueOps, dr.Drained, dr.Available)
	if dr.Drained || !dr.Available {
		return fmt.Errorf("the paused queue ops should hold job %d available: %+v", job.ID, dr)
	}
	if err := d.ResumeQueue(ctx, db, queueOps); err != nil {
		return err
	}
	fmt.Fprintf(w, "SELECT * FROM awa.resume_queue('%s');  -- its workers wake at once (NOTIFY)\n", queueOps)
	began := time.Now()
	dctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if err := client.DrainQueue(dctx, queueOps); err != nil {
		return err
	}
	fmt.Fprintf(w, "client.DrainQueue(ctx, %q): drained %s after the resume (job %d ran)\n", queueOps,
		time.Since(began).Round(time.Millisecond), job.ID)
	return nil
}
