package driver

import (
	"context"
	"encoding/json"
	"fmt"
	"time"
)

// Workers maps job kinds to the workers that run them.
type Workers struct {
	byKind map[string]workUnit
}

// NewWorkers returns an empty registry.
func NewWorkers() *Workers { return &Workers{byKind: map[string]workUnit{}} }

// workUnit runs one claimed job of its kind: decode args, call the worker.
type workUnit struct {
	run     func(ctx context.Context, row *JobRow, args []byte) error
	timeout func(row *JobRow, args []byte) (time.Duration, bool)
	// kindTimeout is the worker's Timeout of a zero Job of its kind (0 when
	// it has none or Timeout panics on it): what the claim deadline covers.
	kindTimeout time.Duration
	// nextRetry is the worker's NextRetry (nil when it has none).
	nextRetry func(row *JobRow, args []byte) time.Time
}

// AddWorker registers w for the kind of T. It panics when the kind is already
// registered (a programming error, caught at start-up).
func AddWorker[T JobArgs](ws *Workers, w Worker[T]) {
	var zero T
	kind := zero.Kind()
	if _, dup := ws.byKind[kind]; dup {
		panic(fmt.Sprintf("awa: worker for kind %q registered twice", kind))
	}
	decodeInto := func(args []byte, v *T) error {
		if err := json.Unmarshal(args, v); err != nil {
			return fmt.Errorf("decode args of kind %q: %w", kind, err)
		}
		return nil
	}
	decode := func(args []byte) (T, error) {
		var v T
		err := decodeInto(args, &v)
		return v, err
	}
	unit := workUnit{
		run: func(ctx context.Context, row *JobRow, args []byte) error {
			// Decoded in place: a T of its own would be one more allocation per job.
			job := &Job[T]{JobRow: row}
			if err := decodeInto(args, &job.Args); err != nil {
				return JobFail(err)
			}
			return w.Work(ctx, job)
		},
	}
	if wt, ok := w.(WorkerTimeout[T]); ok {
		unit.timeout = func(row *JobRow, args []byte) (time.Duration, bool) {
			v, err := decode(args)
			if err != nil {
				return 0, false
			}
			return wt.Timeout(&Job[T]{JobRow: row, Args: v}), true
		}
		unit.kindTimeout = probeTimeout(func() time.Duration { return wt.Timeout(&Job[T]{JobRow: &JobRow{Kind: kind}}) })
	}
	if nr, ok := w.(WorkerNextRetry[T]); ok {
		unit.nextRetry = func(row *JobRow, args []byte) (at time.Time) {
			// The worker's code outside the handler: a panic keeps the
			// default backoff rather than end the process.
			defer func() {
				if recover() != nil {
					at = time.Time{}
				}
			}()
			v, err := decode(args)
			if err != nil {
				return time.Time{}
			}
			return nr.NextRetry(&Job[T]{JobRow: row, Args: v})
		}
	}
	ws.byKind[kind] = unit
}

// probeTimeout calls timeout, which may not expect a zero job: a panic
// counts as no timeout known.
func probeTimeout(timeout func() time.Duration) (d time.Duration) {
	defer func() {
		if recover() != nil {
			d = 0
		}
	}()
	return timeout()
}

// claimDeadline is the attempt deadline a client's claims carry: the longest
// WorkerTimeout of its workers plus grace (for the watchdog to give up on a
// handler that overstays), or rescueStuckAfter when that is longer.
// Config.JobTimeout needs nothing: rescueStuckAfter exceeds it. A negative
// timeout (none) adds nothing.
func (ws *Workers) claimDeadline(grace, rescueStuckAfter time.Duration) time.Duration {
	var longest time.Duration
	if ws != nil {
		for _, u := range ws.byKind {
			longest = max(longest, u.kindTimeout)
		}
	}
	if longest <= 0 {
		return rescueStuckAfter
	}
	return max(rescueStuckAfter, longest+grace)
}
