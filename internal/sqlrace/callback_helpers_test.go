package sqlrace

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// querier is what the callback helpers call through: a connection, a pool or
// a transaction.
type querier interface {
	rowQuerier
	QueryRow(context.Context, string, ...any) pgx.Row
	Exec(context.Context, string, ...any) (pgconn.CommandTag, error)
}

// registerCallback calls awa.register_callback for the attempt c with the
// given timeout, its clock at now (nil: the database's). It returns the
// outcome and, when applied, the token.
func registerCallback(ctx context.Context, q querier, c claimed, timeout time.Duration, now *time.Time) (string, string, error) {
	var outcome string
	var token *string
	err := q.QueryRow(ctx, `SELECT outcome::text, callback_id::text FROM awa.register_callback($1, $2, $3, $4, $5, $6)`,
		c.ID, c.RunLease, c.ClaimSlot, c.ReceiptID, timeout, now).Scan(&outcome, &token)
	if err != nil {
		return "", "", err
	}
	if (outcome == "applied") != (token != nil) {
		return "", "", fmt.Errorf("register_callback of job %d: outcome %s with token %v", c.ID, outcome, token)
	}
	if token == nil {
		return outcome, "", nil
	}
	return outcome, *token, nil
}

// parkJobs calls awa.park_jobs for the claims (one call).
func parkJobs(ctx context.Context, q rowQuerier, cs []claimed) ([]finalized, error) {
	ids, leases, slots, receipts := receiptArrays(cs)
	return collectFinalized(q.Query(ctx, `
		SELECT f.job_id, f.run_lease, f.outcome::text, f.state::text
		FROM awa.park_jobs($1::bigint[], $2::bigint[], $3::int[], $4::bigint[]) AS f`,
		ids, leases, slots, receipts))
}

// callbackOutcome is one awa.callback_outcome row.
type callbackOutcome struct {
	JobID    *int64
	RunLease *int64
	Outcome  string
	State    *string
}

func (o callbackOutcome) state() string {
	if o.State == nil {
		return "<null>"
	}
	return *o.State
}

func (o callbackOutcome) String() string {
	return fmt.Sprintf("%s state %s", o.Outcome, o.state())
}

// resolutions are the four ways an external system resolves a token.
var resolutions = []string{"complete", "fail", "retry", "resume"}

// resolveSQL is each resolution's call: $1 the token, $2 its payload (JSON,
// complete and resume) or error text (fail, retry). A retry is due at once.
var resolveSQL = map[string]string{
	"complete": `awa.complete_external($1::uuid, $2::jsonb)`,
	"fail":     `awa.fail_external($1::uuid, $2::text)`,
	"retry":    `awa.retry_external($1::uuid, $2::text, now())`,
	"resume":   `awa.resume_external($1::uuid, $2::jsonb)`,
}

// resolveCallback calls awa.<action>_external for token, with payload
// {"by": by} (complete, resume) or the error text by (fail, retry).
func resolveCallback(ctx context.Context, q querier, action, token, by string) (callbackOutcome, error) {
	fn, ok := resolveSQL[action]
	if !ok {
		return callbackOutcome{}, fmt.Errorf("unknown resolution %q", action)
	}
	arg := by
	if action == "complete" || action == "resume" {
		arg = fmt.Sprintf(`{"by": %q}`, by)
	}
	var o callbackOutcome
	err := q.QueryRow(ctx, `SELECT o.job_id, o.run_lease, o.outcome::text, o.state::text FROM `+fn+` AS o`, token, arg).
		Scan(&o.JobID, &o.RunLease, &o.Outcome, &o.State)
	return o, err
}

// takeCallbackResult calls awa.take_callback_result for the attempt c and its
// token: status waiting, resumed (with the payload) or stale.
func takeCallbackResult(ctx context.Context, q querier, c claimed, token string) (string, []byte, error) {
	var status string
	var result []byte
	err := q.QueryRow(ctx, `SELECT status, result FROM awa.take_callback_result($1, $2, $3, $4, $5::uuid)`,
		c.ID, c.RunLease, c.ClaimSlot, c.ReceiptID, token).Scan(&status, &result)
	return status, result, err
}

// cancelJob calls awa.cancel_job(id) and returns its one row.
func cancelJob(ctx context.Context, q rowQuerier, id int64) (finalized, error) {
	fs, err := collectFinalized(q.Query(ctx, `
		SELECT f.job_id, f.run_lease, f.outcome::text, f.state::text FROM awa.cancel_job($1) AS f`, id))
	if err == nil && len(fs) != 1 {
		err = fmt.Errorf("cancel_job(%d) returned %v", id, fs)
	}
	if err != nil {
		return finalized{}, err
	}
	return fs[0], nil
}

// rescueExpiredCallbacks calls awa.rescue_expired_callbacks(limit, now).
func rescueExpiredCallbacks(ctx context.Context, q rowQuerier, limit int, now time.Time) ([]finalized, error) {
	return collectFinalized(q.Query(ctx, `
		SELECT f.job_id, f.run_lease, f.outcome::text, f.state::text
		FROM awa.rescue_expired_callbacks($1, $2) AS f`, limit, now))
}

// jobRows returns each job's rows in awa.jobs as state names (a job shows
// once; the read is one statement).
func jobRows(ctx context.Context, q rowQuerier, ids []int64) (map[int64][]string, error) {
	rows, err := q.Query(ctx, `SELECT id, state::text FROM awa.jobs WHERE id = ANY($1)`, ids)
	if err != nil {
		return nil, err
	}
	out := map[int64][]string{}
	var id int64
	var state string
	_, err = pgx.ForEachRow(rows, []any{&id, &state}, func() error {
		out[id] = append(out[id], state)
		return nil
	})
	return out, err
}

// terminal reports whether state ends a job (a DLQ entry shows as failed).
func terminal(state string) bool {
	return state == "completed" || state == "failed" || state == "cancelled"
}

// callbackLeftovers counts the registrations and parked rows left (the rows
// a resolution, park, take or rescue deletes).
func callbackLeftovers(ctx context.Context, q querier) (callbacks, parked int, err error) {
	err = q.QueryRow(ctx, `SELECT (SELECT count(*) FROM awa.callbacks), (SELECT count(*) FROM awa.external_waits)`).
		Scan(&callbacks, &parked)
	return
}
