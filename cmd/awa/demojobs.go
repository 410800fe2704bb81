package main

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/awa-queue/awa/driver"
)

// The demo's queues. `awa demo` turns the DLQ on for queueRisky.
const (
	queueDefault = "default"
	queueMail    = "mail"
	queueRisky   = "risky"
)

// The built-in demo kinds, shared by `awa demo` and `awa work`. Each one's
// behaviour depends only on its args and attempt, so any process runs them the
// same way, whoever enqueued them (Go, or SQL from any language).

// The demo kinds below look alike on purpose: one args type and Kind method
// per kind is driver.JobArgs's contract.

// SendEmailArgs (kind send_email) completes at once.
type SendEmailArgs struct {
	To      string `json:"to"`
	Subject string `json:"subject"`
}

// Kind implements driver.JobArgs.
func (SendEmailArgs) Kind() string { return "send_email" }

// ProcessOrderArgs (kind process_order) completes, or fails for good
// (JobFail, no retry) when AmountCents is negative.
type ProcessOrderArgs struct {
	OrderID     int64 `json:"order_id"`
	AmountCents int64 `json:"amount_cents"`
}

// Kind implements driver.JobArgs.
func (ProcessOrderArgs) Kind() string { return "process_order" }

// CallWebhookArgs (kind call_webhook) fails its first FailAttempts attempts
// with an ordinary error (so it is retried with backoff), then completes.
type CallWebhookArgs struct {
	URL          string `json:"url"`
	FailAttempts int    `json:"fail_attempts"`
}

// Kind implements driver.JobArgs.
func (CallWebhookArgs) Kind() string { return "call_webhook" }

// ExportReportArgs (kind export_report) fails every attempt: it ends failed
// when its attempts run out, or in the DLQ when its queue has the DLQ on.
type ExportReportArgs struct {
	ReportID int64 `json:"report_id"`
}

// Kind implements driver.JobArgs.
func (ExportReportArgs) Kind() string { return "export_report" }

// WaitForStockArgs (kind wait_for_stock) snoozes for SnoozeMillis on its first
// run (the snooze does not count as an attempt), then completes.
type WaitForStockArgs struct {
	SKU          string `json:"sku"`
	SnoozeMillis int    `json:"snooze_ms"`
}

// Kind implements driver.JobArgs.
func (WaitForStockArgs) Kind() string { return "wait_for_stock" }

// SyncLegacyArgs (kind sync_legacy) cancels itself (JobCancel).
type SyncLegacyArgs struct {
	AccountID int64 `json:"account_id"`
}

// Kind implements driver.JobArgs.
func (SyncLegacyArgs) Kind() string { return "sync_legacy" }

// outcome is what a handler asked for when it returned.
type outcome int

const (
	outcomeCompleted outcome = iota
	outcomeRetried           // an ordinary error with attempts left
	outcomeSnoozed           // JobSnooze
	outcomeCancelled         // JobCancel
	outcomeFailed            // final failure: JobFail, or an error on the last attempt, in a queue without DLQ
	outcomeDLQ               // final failure in a queue with the DLQ on
	numOutcomes
)

var outcomeNames = [numOutcomes]string{"completed", "retried", "snoozed", "cancelled", "failed", "dlq"}

func (o outcome) String() string { return outcomeNames[o] }

// final reports whether the job ends with this outcome.
func (o outcome) final() bool { return o != outcomeRetried && o != outcomeSnoozed }

// outcomes counts handler outcomes in this process and, when tracking,
// remembers every job's final outcome so the demo can account for each job.
type outcomes struct {
	dlqQueues map[string]bool // queues with the DLQ on
	counts    [numOutcomes]atomic.Int64
	runs      atomic.Int64

	track bool
	mu    sync.Mutex
	final map[int64][]outcome // job id -> final outcomes seen (more than one is a bug)
	seen  map[int64]bool      // every job id a handler ran
}

func newOutcomes(dlqQueues map[string]bool, track bool) *outcomes {
	o := &outcomes{dlqQueues: dlqQueues, track: track}
	if track {
		o.final = map[int64][]outcome{}
		o.seen = map[int64]bool{}
	}
	return o
}

func (o *outcomes) record(job *driver.JobRow, oc outcome) {
	if oc == outcomeFailed && o.dlqQueues[job.Queue] {
		oc = outcomeDLQ
	}
	o.runs.Add(1)
	o.counts[oc].Add(1)
	if !o.track {
		return
	}
	o.mu.Lock()
	o.seen[job.ID] = true
	if oc.final() {
		o.final[job.ID] = append(o.final[job.ID], oc)
	}
	o.mu.Unlock()
}

// count returns how many handler runs ended with oc.
func (o *outcomes) count(oc outcome) int64 { return o.counts[oc].Load() }

// finals returns how many handler runs ended their job.
func (o *outcomes) finals() int64 {
	var n int64
	for oc := outcome(0); oc < numOutcomes; oc++ {
		if oc.final() {
			n += o.count(oc)
		}
	}
	return n
}

// addDemoWorkers registers a worker for every demo kind; each reports its
// outcome to rec.
func addDemoWorkers(ws *driver.Workers, rec *outcomes) {
	addWorker(ws, rec, func(ctx context.Context, job *driver.Job[SendEmailArgs]) (outcome, error) {
		return outcomeCompleted, nil
	})
	addWorker(ws, rec, func(ctx context.Context, job *driver.Job[ProcessOrderArgs]) (outcome, error) {
		if job.Args.AmountCents < 0 {
			return outcomeFailed, driver.JobFail(fmt.Errorf("order %d: negative amount %d", job.Args.OrderID, job.Args.AmountCents))
		}
		return outcomeCompleted, nil
	})
	addWorker(ws, rec, func(ctx context.Context, job *driver.Job[CallWebhookArgs]) (outcome, error) {
		if job.Attempt <= job.Args.FailAttempts {
			return outcomeRetried, fmt.Errorf("POST %s: 503 Service Unavailable (attempt %d)", job.Args.URL, job.Attempt)
		}
		return outcomeCompleted, nil
	})
	addWorker(ws, rec, func(ctx context.Context, job *driver.Job[ExportReportArgs]) (outcome, error) {
		return outcomeRetried, fmt.Errorf("export report %d: storage bucket unavailable", job.Args.ReportID)
	})
	addWorker(ws, rec, func(ctx context.Context, job *driver.Job[WaitForStockArgs]) (outcome, error) {
		// run_lease numbers claims: 1 is the first run. A snooze does not
		// count as an attempt, so the attempt number cannot tell.
		if job.RunLease == 1 {
			return outcomeSnoozed, driver.JobSnooze(time.Duration(job.Args.SnoozeMillis) * time.Millisecond)
		}
		return outcomeCompleted, nil
	})
	addWorker(ws, rec, func(ctx context.Context, job *driver.Job[SyncLegacyArgs]) (outcome, error) {
		return outcomeCancelled, driver.JobCancel(errors.New("legacy sync was retired: nothing to do"))
	})
}

// addWorker registers f for the kind of T. An ordinary error on the job's
// last attempt is a final failure, which the runtime routes to failed (or
// the DLQ).
func addWorker[T driver.JobArgs](ws *driver.Workers, rec *outcomes, f func(context.Context, *driver.Job[T]) (outcome, error)) {
	driver.AddWorker(ws, driver.WorkFunc(func(ctx context.Context, job *driver.Job[T]) error {
		oc, err := f(ctx, job)
		if oc == outcomeRetried && job.Attempt >= job.MaxAttempts {
			oc = outcomeFailed
		}
		rec.record(job.JobRow, oc)
		return err
	}))
}
