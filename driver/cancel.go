package driver

import (
	"context"
	"errors"
	"log/slog"
	"strconv"
	"strings"
	"sync"
)

// ErrAttemptClosed is the cause (context.Cause) of a handler's context that
// the runtime cancelled because its attempt was closed from outside while the
// handler ran: an operator's awa.cancel_job, or a rescue. The handler's result
// is stale; it should return. docs/storage.md, "Every attempt ends".
var ErrAttemptClosed = errors.New("awa: attempt closed while its handler ran (cancelled by an operator or rescued)")

type attemptKey struct{ jobID, runLease int64 }

type runningAttempt struct {
	receipt Receipt
	cancel  context.CancelCauseFunc
	// handle wakes the handler's WaitForCallback on a resume notification.
	handle *attemptHandle
	// closed (nil: none) runs after cancel when the attempt is closed from
	// outside: the runtime's watchdog, which is registered on the context
	// below the handler's and so does not see this cancel by itself.
	closed func()
}

// attemptSet is the Client's running handlers by attempt, so that a cancel
// (notified, or found by the heartbeat's closed_attempts) reaches the
// handler's context. Cost per job: one map insert and delete under a mutex.
type attemptSet struct {
	mu sync.Mutex
	m  map[attemptKey]runningAttempt
}

// start derives the handler's context for attempt r, whose JobRow holds h;
// done removes it. closed (may be nil) runs after the cancel of a close.
func (s *attemptSet) start(ctx context.Context, r Receipt, h *attemptHandle, closed func()) (hctx context.Context, done func()) {
	hctx, cancel := context.WithCancelCause(ctx)
	k := attemptKey{r.JobID, r.RunLease}
	s.mu.Lock()
	if s.m == nil {
		s.m = make(map[attemptKey]runningAttempt)
	}
	s.m[k] = runningAttempt{receipt: r, cancel: cancel, handle: h, closed: closed}
	s.mu.Unlock()
	return hctx, func() {
		s.mu.Lock()
		delete(s.m, k)
		s.mu.Unlock()
		cancel(nil)
	}
}

// close cancels the handler of attempt (jobID, runLease), if it runs here.
func (s *attemptSet) close(jobID, runLease int64) bool {
	s.mu.Lock()
	a, ok := s.m[attemptKey{jobID, runLease}]
	s.mu.Unlock()
	if ok {
		a.cancel(ErrAttemptClosed)
		if a.closed != nil {
			a.closed()
		}
	}
	return ok
}

func (s *attemptSet) receipts() []Receipt {
	s.mu.Lock()
	defer s.mu.Unlock()
	rs := make([]Receipt, 0, len(s.m))
	for _, a := range s.m {
		rs = append(rs, a.receipt)
	}
	return rs
}

// resumed wakes the WaitForCallback of attempt (jobID, runLease), if its
// handler runs here.
func (s *attemptSet) resumed(jobID, runLease int64) {
	s.mu.Lock()
	a, ok := s.m[attemptKey{jobID, runLease}]
	s.mu.Unlock()
	if ok && a.handle != nil {
		a.handle.wakeWaiter()
	}
}

// controlNotified handles a notification on the control channel: payload
// "<job_id>:<run_lease>" (awa.cancel_job closed the attempt) or
// "resume:<job_id>:<run_lease>" (awa.resume_external resumed its callback).
func (s *attemptSet) controlNotified(payload string, log *slog.Logger) {
	rest, resume := strings.CutPrefix(payload, "resume:")
	a, b, ok := strings.Cut(rest, ":")
	jobID, err1 := strconv.ParseInt(a, 10, 64)
	runLease, err2 := strconv.ParseInt(b, 10, 64)
	if !ok || err1 != nil || err2 != nil {
		log.Warn("awa: Ignored a malformed control notification", slog.String("payload", payload))
		return
	}
	if resume {
		s.resumed(jobID, runLease)
		return
	}
	s.close(jobID, runLease)
}

// closeStale is the fallback when notifications are missed: one
// awa.closed_attempts call for every running handler, each closed one
// cancelled. Called on every heartbeat tick.
func (c *Client) closeStale(ctx context.Context) error {
	rs := c.attempts.receipts()
	if len(rs) == 0 {
		return nil
	}
	closed, err := c.driver.ClosedAttempts(ctx, c.rt, rs)
	if err != nil {
		return err
	}
	for _, r := range closed {
		c.attempts.close(r.JobID, r.RunLease)
	}
	return nil
}
