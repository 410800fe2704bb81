package driver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5/pgtype"

	"github.com/awa-queue/awa/driver/internal/dbsqlc"
)

// Callbacks: an attempt registers a callback (its token goes to an external
// system), then either parks its job, freeing its worker slot, or waits in
// sequence for a resume; the external system resolves the token. The
// contract is in docs/callbacks.md.

// CallbackRegistration is an applied awa.register_callback: the token to
// hand to the external system, and when the callback-timeout rescue retries
// the attempt if nothing resolved it.
type CallbackRegistration struct {
	Token     string
	TimeoutAt time.Time
}

// CallbackAction is how a resolution ends a callback.
type CallbackAction string

// Callback actions (awa.complete_external, fail_external, retry_external,
// resume_external).
const (
	// CallbackComplete: the job ends completed, the payload in its metadata
	// under callback_result.
	CallbackComplete CallbackAction = "complete"
	// CallbackFail: the job fails for good (the DLQ when its queue has it on).
	CallbackFail CallbackAction = "fail"
	// CallbackRetry: the attempt counts as failed; the job is retryable at
	// RunAt (or after the backoff), failed when its attempts are exhausted.
	CallbackRetry CallbackAction = "retry"
	// CallbackResume: the job goes on with the payload: a handler waiting in
	// WaitForCallback gets it; a parked job runs again and reads it with
	// JobRow.CallbackResult.
	CallbackResume CallbackAction = "resume"
)

// CallbackResolution is one resolution of a callback token, as the HTTP
// receiver (CallbackHandler) decodes it from its JSON body.
type CallbackResolution struct {
	Token  string         `json:"token"`
	Action CallbackAction `json:"action"`
	// Payload (complete, resume): any JSON value, at most 64 KiB as text.
	Payload json.RawMessage `json:"payload,omitempty"`
	// Error (fail, retry): appended to the job's errors.
	Error string `json:"error,omitempty"`
	// RunAt (retry): when the job runs again; nil uses the retry backoff.
	RunAt *time.Time `json:"run_at,omitempty"`
}

// CallbackOutcome is what a resolution did: Applied with the job's new
// state, or Stale (the token resolves nothing now: already resolved,
// superseded, timed out, its attempt closed, or forged; nothing changed).
// JobID and RunLease are zero when the token names no attempt at all.
type CallbackOutcome struct {
	Token    string   `json:"token"`
	JobID    int64    `json:"job_id,omitempty"`
	RunLease int64    `json:"run_lease,omitempty"`
	Outcome  Outcome  `json:"outcome"`
	State    JobState `json:"state,omitempty"`
}

// CallbackResolver resolves callback tokens: *Client, or a Driver on a
// database handle (Driver.CallbackResolver). CallbackHandler takes one.
type CallbackResolver interface {
	ResolveCallback(ctx context.Context, r CallbackResolution) (CallbackOutcome, error)
}

// RegisterCallback registers a callback for the open attempt r
// (awa.register_callback): the token to give the external system, valid
// until timeout (1s..365 days) from now, when the leader's callback-timeout
// rescue retries the attempt. A new registration of the job supersedes its
// earlier one. Returns a *StaleAttemptError (errors.Is ErrStaleAttempt) when
// the attempt is no longer open.
func (d *Driver) RegisterCallback(ctx context.Context, db DBTX, r Receipt, timeout time.Duration) (CallbackRegistration, error) {
	rows, err := d.q.RegisterCallback(ctx, d.on(db), dbsqlc.RegisterCallbackParams{
		JobID: r.JobID, RunLease: r.RunLease, ClaimSlot: r.ClaimSlot, ReceiptID: r.ReceiptID, Timeout: interval(timeout),
	})
	if err != nil {
		return CallbackRegistration{}, fmt.Errorf("register callback of job %d: %w", r.JobID, mapError(err))
	}
	if len(rows) != 1 {
		return CallbackRegistration{}, fmt.Errorf("awa: register callback of job %d returned %d results, want 1", r.JobID, len(rows))
	}
	if Outcome(rows[0].Outcome) != Applied {
		return CallbackRegistration{}, &StaleAttemptError{JobID: r.JobID, RunLease: r.RunLease}
	}
	return CallbackRegistration{Token: rows[0].CallbackID.String(), TimeoutAt: rows[0].TimeoutAt.Time}, nil
}

// Park closes attempts that registered a callback and parks their jobs
// (awa.park_jobs, one call): state waiting_external, no worker held, until
// the callback is resolved or times out. A job whose callback was resumed
// before the park goes back to its queue at once (state available). An
// attempt with no registration fails the whole call (SQLSTATE AW022).
func (d *Driver) Park(ctx context.Context, db DBTX, rs []Receipt) ([]Result, error) {
	a := splitReceipts(len(rs), func(i int) Receipt { return rs[i] })
	rows, err := d.q.ParkJobs(ctx, d.on(db), dbsqlc.ParkJobsParams{
		JobIds: a.jobIDs, RunLeases: a.runLeases, ClaimSlots: a.claimSlots, ReceiptIds: a.receiptIDs,
	})
	if err != nil {
		return nil, fmt.Errorf("park %d jobs: %w", len(rs), mapError(err))
	}
	return results(rows), nil
}

// Callback wait statuses (Driver.TakeCallbackResult).
const (
	CallbackWaiting = "waiting"
	CallbackResumed = "resumed"
	CallbackStale   = "stale"
)

// TakeCallbackResult asks once whether the callback token of the open
// attempt r was resumed (awa.take_callback_result): status CallbackResumed
// with the payload (handed over once), CallbackWaiting, or CallbackStale (the
// attempt is closed or the token is not its current one).
func (d *Driver) TakeCallbackResult(ctx context.Context, db DBTX, r Receipt, token string) (status string, payload json.RawMessage, err error) {
	id, err := callbackID(token)
	if err != nil {
		return "", nil, err
	}
	rows, err := d.q.TakeCallbackResult(ctx, d.on(db), dbsqlc.TakeCallbackResultParams{
		JobID: r.JobID, RunLease: r.RunLease, ClaimSlot: r.ClaimSlot, ReceiptID: r.ReceiptID, CallbackID: id,
	})
	if err != nil {
		return "", nil, fmt.Errorf("take callback result of job %d: %w", r.JobID, mapError(err))
	}
	if len(rows) != 1 {
		return "", nil, fmt.Errorf("awa: take callback result of job %d returned %d results, want 1", r.JobID, len(rows))
	}
	return rows[0].Status, rows[0].Result, nil
}

// ResolveCallback resolves a callback token on db, which must run its
// statements at READ COMMITTED (ErrReadCommittedRequired otherwise): r.Action
// picks CompleteExternal, FailExternal, RetryExternal or ResumeExternal. An
// unknown action or a token that is not a UUID is ErrInvalidArgument.
func (d *Driver) ResolveCallback(ctx context.Context, db DBTX, r CallbackResolution) (CallbackOutcome, error) {
	switch r.Action {
	case CallbackComplete:
		return d.CompleteExternal(ctx, db, r.Token, r.Payload)
	case CallbackFail:
		return d.FailExternal(ctx, db, r.Token, r.Error)
	case CallbackRetry:
		var at time.Time
		if r.RunAt != nil {
			at = *r.RunAt
		}
		return d.RetryExternal(ctx, db, r.Token, r.Error, at)
	case CallbackResume:
		return d.ResumeExternal(ctx, db, r.Token, r.Payload)
	}
	return CallbackOutcome{}, fmt.Errorf("%w: callback action %q: want complete, fail, retry or resume", ErrInvalidArgument, r.Action)
}

// CompleteExternal ends the callback's job completed, payload (nil: none) in
// its metadata under callback_result (awa.complete_external).
func (d *Driver) CompleteExternal(ctx context.Context, db DBTX, token string, payload json.RawMessage) (CallbackOutcome, error) {
	return d.resolve(ctx, token, CallbackComplete, func(id pgtype.UUID) ([]dbsqlc.AwaCallbackOutcome, error) {
		return d.q.CompleteExternal(ctx, d.on(db), dbsqlc.CompleteExternalParams{CallbackID: id, Payload: payload})
	})
}

// FailExternal fails the callback's job for good, recording msg
// (awa.fail_external).
func (d *Driver) FailExternal(ctx context.Context, db DBTX, token, msg string) (CallbackOutcome, error) {
	return d.resolve(ctx, token, CallbackFail, func(id pgtype.UUID) ([]dbsqlc.AwaCallbackOutcome, error) {
		return d.q.FailExternal(ctx, d.on(db), dbsqlc.FailExternalParams{CallbackID: id, Error: text(msg)})
	})
}

// RetryExternal counts the callback's attempt as failed, recording msg: the
// job is retryable at runAt (zero: the retry backoff), or failed when its
// attempts are exhausted (awa.retry_external).
func (d *Driver) RetryExternal(ctx context.Context, db DBTX, token, msg string, runAt time.Time) (CallbackOutcome, error) {
	return d.resolve(ctx, token, CallbackRetry, func(id pgtype.UUID) ([]dbsqlc.AwaCallbackOutcome, error) {
		return d.q.RetryExternal(ctx, d.on(db), dbsqlc.RetryExternalParams{CallbackID: id, Error: text(msg), RunAt: timestamptz(runAt)})
	})
}

// ResumeExternal hands payload (nil: none) back to the callback's job
// (awa.resume_external): a handler waiting in WaitForCallback returns it
// (state running); a parked job goes back to its queue (state available) and
// its next run reads it with JobRow.CallbackResult.
func (d *Driver) ResumeExternal(ctx context.Context, db DBTX, token string, payload json.RawMessage) (CallbackOutcome, error) {
	return d.resolve(ctx, token, CallbackResume, func(id pgtype.UUID) ([]dbsqlc.AwaCallbackOutcome, error) {
		return d.q.ResumeExternal(ctx, d.on(db), dbsqlc.ResumeExternalParams{CallbackID: id, Payload: payload})
	})
}

// resolve runs one of the four resolutions of token and converts its row.
func (d *Driver) resolve(ctx context.Context, token string, action CallbackAction,
	call func(id pgtype.UUID) ([]dbsqlc.AwaCallbackOutcome, error)) (CallbackOutcome, error) {
	id, err := callbackID(token)
	if err != nil {
		return CallbackOutcome{}, err
	}
	rows, err := call(id)
	if err != nil {
		return CallbackOutcome{}, fmt.Errorf("%s callback %s: %w", action, token, mapError(err))
	}
	if len(rows) != 1 {
		return CallbackOutcome{}, fmt.Errorf("awa: %s callback %s returned %d results, want 1", action, token, len(rows))
	}
	r := rows[0]
	return CallbackOutcome{Token: r.CallbackID.String(), JobID: r.JobID.Int64, RunLease: r.RunLease.Int64,
		Outcome: Outcome(r.Outcome), State: JobState(r.State.AwaJobState)}, nil
}

// callbackID parses a token; one that is not a UUID is ErrInvalidArgument.
func callbackID(token string) (pgtype.UUID, error) {
	var id pgtype.UUID
	if err := id.Scan(token); err != nil || !id.Valid {
		return pgtype.UUID{}, fmt.Errorf("%w: callback token %q is not a UUID", ErrInvalidArgument, token)
	}
	return id, nil
}

func text(s string) pgtype.Text { return pgtype.Text{String: s, Valid: s != ""} }

// RescueExpiredCallbacks retries up to max jobs whose callback timed out
// unresolved (awa.rescue_expired_callbacks): parked jobs, and open attempts
// still waiting in sequence.
func (d *Driver) RescueExpiredCallbacks(ctx context.Context, db DBTX, max int) ([]Result, error) {
	rows, err := d.q.RescueExpiredCallbacks(ctx, d.on(db), dbsqlc.RescueExpiredCallbacksParams{Max: int32(max)})
	if err != nil {
		return nil, fmt.Errorf("rescue expired callbacks: %w", mapError(err))
	}
	return results(rows), nil
}

// CallbackResolver returns a resolver that runs on db (statements at READ
// COMMITTED), for CallbackHandler without a Client.
func (d *Driver) CallbackResolver(db DBTX) CallbackResolver { return driverResolver{d: d, db: db} }

type driverResolver struct {
	d  *Driver
	db DBTX
}

func (r driverResolver) ResolveCallback(ctx context.Context, res CallbackResolution) (CallbackOutcome, error) {
	return r.d.ResolveCallback(ctx, r.db, res)
}

// ResolveCallback resolves a callback token on the client's pool, in a READ
// COMMITTED transaction of its own (see Driver.ResolveCallback).
func (c *Client) ResolveCallback(ctx context.Context, r CallbackResolution) (CallbackOutcome, error) {
	return c.driver.ResolveCallback(ctx, c.runtimeDB(), r)
}

// CompleteExternal ends the callback's job completed (Driver.CompleteExternal).
func (c *Client) CompleteExternal(ctx context.Context, token string, payload json.RawMessage) (CallbackOutcome, error) {
	return c.driver.CompleteExternal(ctx, c.runtimeDB(), token, payload)
}

// FailExternal fails the callback's job for good (Driver.FailExternal).
func (c *Client) FailExternal(ctx context.Context, token, msg string) (CallbackOutcome, error) {
	return c.driver.FailExternal(ctx, c.runtimeDB(), token, msg)
}

// RetryExternal retries the callback's job (Driver.RetryExternal).
func (c *Client) RetryExternal(ctx context.Context, token, msg string, runAt time.Time) (CallbackOutcome, error) {
	return c.driver.RetryExternal(ctx, c.runtimeDB(), token, msg, runAt)
}

// ResumeExternal hands payload back to the callback's job (Driver.ResumeExternal).
func (c *Client) ResumeExternal(ctx context.Context, token string, payload json.RawMessage) (CallbackOutcome, error) {
	return c.driver.ResumeExternal(ctx, c.runtimeDB(), token, payload)
}

// runtimeDB is where the client runs a substrate call that must be READ
// COMMITTED: the runtime's handle once started, else explicit READ COMMITTED
// transactions on the pool (the database's default is not known yet).
func (c *Client) runtimeDB() DBTX {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.rt != nil {
		return c.rt
	}
	return readCommitted{pool: c.pool}
}

// callbackState is what a handler's attempt knows of its callback: the token
// of its current registration (empty: none, or its resume was taken), and
// the channel the listener wakes a WaitForCallback on (made by the first
// wait). Guarded by attemptHandle.mu.
type callbackState struct {
	token string
	wake  chan struct{}
}

// RegisterCallback registers a callback for this attempt
// (Driver.RegisterCallback) and returns its token, to hand to the external
// system. Then either return JobWaitForCallback() (the job parks, its worker
// slot freed) or call WaitForCallback. Returns a *StaleAttemptError
// (errors.Is ErrStaleAttempt) when the attempt is no longer open.
func (r *JobRow) RegisterCallback(ctx context.Context, timeout time.Duration) (string, error) {
	a, err := r.handle("register a callback")
	if err != nil {
		return "", err
	}
	reg, err := a.driver.RegisterCallback(ctx, a.db, a.receipt, timeout)
	if err != nil {
		return "", err
	}
	a.mu.Lock()
	a.cb.token = reg.Token
	a.mu.Unlock()
	return reg.Token, nil
}

// WaitForCallback blocks until the attempt's callback (RegisterCallback) is
// resumed and returns the resume payload; the attempt goes on (state
// running). It returns an error wrapping both ErrAttemptClosed and a
// *StaleAttemptError when the attempt was closed meanwhile (the callback
// completed, failed or retried it, an operator cancelled it, a rescue or the
// callback timeout closed it): the handler should return. It also returns
// when ctx ends. It asks the database every Config.CallbackPollInterval and
// at once when the control channel's notification of the resume arrives.
func (r *JobRow) WaitForCallback(ctx context.Context) (json.RawMessage, error) {
	a, err := r.handle("wait for a callback")
	if err != nil {
		return nil, err
	}
	a.mu.Lock()
	token := a.cb.token
	if a.cb.wake == nil {
		a.cb.wake = make(chan struct{}, 1)
	}
	wake := a.cb.wake
	a.mu.Unlock()
	if token == "" {
		return nil, fmt.Errorf("awa: job %d waits for a callback it has not registered (JobRow.RegisterCallback)", r.ID)
	}
	poll := a.pollEvery
	if poll <= 0 {
		poll = defaultCallbackPoll
	}
	t := time.NewTicker(poll)
	defer t.Stop()
	for {
		status, payload, err := a.driver.TakeCallbackResult(ctx, a.db, a.receipt, token)
		switch {
		case err != nil && ctx.Err() != nil:
			return nil, ctxError(ctx)
		case err != nil:
			return nil, err
		case status == CallbackResumed:
			a.mu.Lock()
			if a.cb.token == token {
				a.cb.token = "" // handed over once: a park now has nothing to wait for
			}
			a.mu.Unlock()
			return payload, nil
		case status == CallbackStale:
			return nil, fmt.Errorf("%w: %w", ErrAttemptClosed, &StaleAttemptError{JobID: r.ID, RunLease: r.RunLease})
		}
		select {
		case <-ctx.Done():
			return nil, ctxError(ctx)
		case <-wake:
		case <-t.C:
		}
	}
}

// defaultCallbackPoll is WaitForCallback's poll outside a Client (Driver.Work).
const defaultCallbackPoll = time.Second

// ctxError is ctx's cause when the runtime closed the attempt, else its error.
func ctxError(ctx context.Context) error {
	if cause := context.Cause(ctx); errors.Is(cause, ErrAttemptClosed) {
		return cause
	}
	return ctx.Err()
}

// CallbackResult returns the payload a callback resumed this job with
// (metadata.callback_result): what a parked job's next run continues from.
// ok is false when the job has none.
func (r *JobRow) CallbackResult() (json.RawMessage, bool) {
	if len(r.Metadata) == 0 {
		return nil, false
	}
	var m struct {
		Result json.RawMessage `json:"callback_result"`
	}
	if json.Unmarshal(r.Metadata, &m) != nil || m.Result == nil {
		return nil, false
	}
	return m.Result, true
}

// handle is the attempt of a JobRow made by the runtime.
func (r *JobRow) handle(what string) (*attemptHandle, error) {
	if r.attempt == nil {
		return nil, fmt.Errorf("awa: job %d was not claimed through this driver: it has no attempt to %s for", r.ID, what)
	}
	return r.attempt, nil
}

// registered reports whether the attempt holds a callback registration a
// park can close it with.
func (a *attemptHandle) registered() bool {
	if a == nil {
		return false
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.cb.token != ""
}

// wakeWaiter wakes the attempt's WaitForCallback, if one waits.
func (a *attemptHandle) wakeWaiter() {
	a.mu.Lock()
	w := a.cb.wake
	a.mu.Unlock()
	if w != nil {
		select {
		case w <- struct{}{}:
		default:
		}
	}
}

// JobWaitForCallback returns an error that parks the job: its attempt,
// which must have registered a callback (JobRow.RegisterCallback), is closed
// and the job waits, state waiting_external and no worker held, until the
// callback is resolved or times out. A job whose attempt registered none is
// retried with an error saying so.
func JobWaitForCallback() error { return &jobControl{action: "park"} }

// errParkUnregistered is the retry error of a park without a registration.
const errParkUnregistered = "handler returned JobWaitForCallback without a callback registered in this attempt " +
	"(call JobRow.RegisterCallback first; a callback resumed and taken by WaitForCallback is used up)"
