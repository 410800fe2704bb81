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

// attemptSet is the Client's running handlers by attempt, so that a cancel
// (notified, or found by the heartbeat's closed_attempts) reaches the
// handler's context, and a hard stop (cancelAll) ends every one. Cost per
// job: one map insert and delete under a mutex.
type attemptSet struct {
	mu sync.Mutex
	m  map[attemptKey]*attemptRun
}

// start registers attempt a, whose handler runs until workCtx ends (a hard
// stop): when it has ended already, a's context ends at once, since
// cancelAll, which ends the others, may have run before a was registered.
// done removes it.
func (s *attemptSet) start(a *attemptRun, workCtx context.Context) {
	k := attemptKey{a.handle.receipt.JobID, a.handle.receipt.RunLease}
	s.mu.Lock()
	if s.m == nil {
		s.m = make(map[attemptKey]*attemptRun)
	}
	s.m[k] = a
	s.mu.Unlock()
	if err := workCtx.Err(); err != nil {
		a.ctx.end(err, endedByParent)
	}
}

func (s *attemptSet) done(a *attemptRun) {
	s.mu.Lock()
	delete(s.m, attemptKey{a.handle.receipt.JobID, a.handle.receipt.RunLease})
	s.mu.Unlock()
}

// cancelAll ends the context of every running handler with workCtx's error:
// the Client runs it once workCtx ends (StopAndCancel, or Stop's ctx).
func (s *attemptSet) cancelAll(workCtx context.Context) {
	s.mu.Lock()
	running := make([]*attemptRun, 0, len(s.m))
	for _, a := range s.m {
		running = append(running, a)
	}
	s.mu.Unlock()
	for _, a := range running {
		a.ctx.end(workCtx.Err(), endedByParent)
	}
}

// close cancels the handler of attempt (jobID, runLease), if it runs here:
// its context ends with cause ErrAttemptClosed, and its watchdog, should the
// handler overstay, reports the close.
func (s *attemptSet) close(jobID, runLease int64) bool {
	s.mu.Lock()
	a, ok := s.m[attemptKey{jobID, runLease}]
	s.mu.Unlock()
	if ok {
		a.watch.closed.Store(true)
		a.ctx.closeOutside()
	}
	return ok
}

func (s *attemptSet) receipts() []Receipt {
	s.mu.Lock()
	defer s.mu.Unlock()
	rs := make([]Receipt, 0, len(s.m))
	for _, a := range s.m {
		rs = append(rs, a.handle.receipt)
	}
	return rs
}

// resumed wakes the WaitForCallback of attempt (jobID, runLease), if its
// handler runs here.
func (s *attemptSet) resumed(jobID, runLease int64) {
	s.mu.Lock()
	a, ok := s.m[attemptKey{jobID, runLease}]
	s.mu.Unlock()
	if ok {
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
