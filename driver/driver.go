// Package driver is awa's Go API: the Client (insert jobs, work queues, run
// maintenance, subscribe to events) and the Driver, the typed layer over the
// awa SQL substrate that the Client is built on. The Driver calls the
// sqlc-generated queries (driver/internal/dbsqlc, never part of the API), maps
// substrate SQLSTATEs to sentinel errors and finalizer results to typed
// Applied/Stale outcomes.
//
// Every Driver method takes the database handle to run on (a pool, a
// connection or the caller's pgx.Tx), so calls compose with the caller's
// transaction.
package driver

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/big"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/awa-queue/awa/driver/internal/dbsqlc"
	"github.com/awa-queue/awa/internal/sqlschema"
)

// DBTX is what every method runs on: *pgxpool.Pool, *pgx.Conn or pgx.Tx.
type DBTX interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// JobState is a job's state as awa.jobs reports it (the SQL enum
// awa.job_state; the generated type stays internal, converted at the boundary).
type JobState string

// Job states. Alike the event kinds and the sqlc enum only in shape: each
// const list names its own values.
const (
	StateScheduled JobState = "scheduled"
	StateAvailable JobState = "available"
	StateRunning   JobState = "running"
	// StateWaitingExternal: the job waits for its callback, parked
	// (JobWaitForCallback) or with its handler in WaitForCallback.
	StateWaitingExternal JobState = "waiting_external"
	StateRetryable       JobState = "retryable"
	StateCompleted       JobState = "completed"
	StateCancelled       JobState = "cancelled"
	StateFailed          JobState = "failed"
)

// Outcome says whether a finalizer changed the job.
type Outcome string

// Finalizer outcomes.
const (
	// Applied: the attempt was open and is now closed as asked.
	Applied Outcome = "applied"
	// Stale: the attempt was already closed (rescued, cancelled, finalized);
	// nothing changed. Never retry a stale result.
	Stale Outcome = "stale"
)

// Driver runs the substrate's functions. The zero value is ready to use, on
// schema awa (NewSchema: another schema).
type Driver struct {
	q dbsqlc.Queries
	// schema is nil for schema awa, whose queries run as generated.
	schema *sqlschema.Queries
}

// New returns a Driver for schema awa.
func New() *Driver { return &Driver{} }

// InsertOpts are the options of one job; zero fields take the substrate's
// defaults (queue "default", priority 2, run now, 25 attempts).
type InsertOpts struct {
	Queue       string          `json:"queue,omitempty"`
	Priority    int             `json:"priority,omitempty"`
	RunAt       time.Time       `json:"-"`
	MaxAttempts int             `json:"max_attempts,omitempty"`
	Tags        []string        `json:"tags,omitempty"`
	Metadata    json.RawMessage `json:"metadata,omitempty"`
	// Unique makes the job unique by a key: an insert whose key a job holds
	// in the key's states returns that job with Duplicate set instead of
	// inserting. Defaults to nil: not unique.
	Unique *UniqueOpts `json:"unique,omitempty"`
	// Weight (1..100000, default 1) is how many slots the job takes: of its
	// concurrency key's limit (awa.configure_queue concurrency) and of the
	// running process's MaxWorkers (at most all of them). Kept in the job's
	// metadata as flow_weight.
	Weight int `json:"weight,omitempty"`
}

// UniqueOpts says what makes a job's uniqueness key and which states hold it
// (docs/storage.md, "Unique jobs"). The substrate derives the key from them,
// so a job inserted from Go and one inserted from SQL with the same options
// share it. The zero value is unique by kind alone in every non-terminal
// state.
type UniqueOpts struct {
	// Key replaces the kind in the key: jobs of several kinds may share it.
	// At most 1000 characters. Defaults to "": the kind.
	Key string
	// ByArgs adds the whole args to the key. Defaults to false.
	ByArgs bool
	// ByArgKeys adds only these args (by name) to the key; a missing one
	// counts as absent. Takes precedence over ByArgs. Defaults to nil.
	ByArgKeys []string
	// ByQueue adds the queue to the key. Defaults to false.
	ByQueue bool
	// ByPeriod adds the period bucket of the job's run time to the key
	// (whole seconds, 1s to 365 days): one job per period. Defaults to 0:
	// no period.
	ByPeriod time.Duration
	// ByState lists the states that hold the key. It must include every
	// non-terminal state (scheduled, available, running, retryable,
	// waiting_external) and may add completed, cancelled and failed, which
	// hold as long as history keeps the job. Defaults to nil: the
	// non-terminal states.
	ByState []JobState
}

// MarshalJSON renders the opts.unique object the substrate expects.
func (u UniqueOpts) MarshalJSON() ([]byte, error) {
	v := struct {
		Key      string     `json:"key,omitempty"`
		ByArgs   any        `json:"by_args,omitempty"`
		ByQueue  bool       `json:"by_queue,omitempty"`
		ByPeriod int64      `json:"by_period,omitempty"`
		States   []JobState `json:"states,omitempty"`
	}{Key: u.Key, ByQueue: u.ByQueue, States: u.ByState}
	switch {
	case len(u.ByArgKeys) > 0:
		v.ByArgs = u.ByArgKeys
	case u.ByArgs:
		v.ByArgs = true
	}
	if u.ByPeriod != 0 {
		if u.ByPeriod%time.Second != 0 || u.ByPeriod < time.Second {
			return nil, fmt.Errorf("%w: UniqueOpts.ByPeriod must be whole seconds of at least 1s, got %s", ErrInvalidArgument, u.ByPeriod)
		}
		v.ByPeriod = int64(u.ByPeriod / time.Second)
	}
	return json.Marshal(v)
}

// MarshalJSON renders the opts object awa.insert_job expects.
func (o InsertOpts) MarshalJSON() ([]byte, error) {
	type plain InsertOpts
	v := struct {
		plain
		RunAt string `json:"run_at,omitempty"`
	}{plain: plain(o)}
	if !o.RunAt.IsZero() {
		v.RunAt = o.RunAt.UTC().Format(time.RFC3339Nano)
	}
	return json.Marshal(v)
}

// InsertParams is one job to insert. Args must be a JSON object.
type InsertParams struct {
	Kind string
	Args []byte
	Opts InsertOpts
}

// InsertedJob is what the substrate returns for an inserted job.
type InsertedJob struct {
	ID       int64
	State    JobState
	Queue    string
	Priority int16
	Kind     string
	RunAt    time.Time
	// Duplicate: the job asked for uniqueness (InsertOpts.Unique) and a job
	// held its key; nothing was inserted, and the fields above are that
	// job's (its state as of the insert).
	Duplicate bool
}

func insertOutcome(r dbsqlc.AwaInsertOutcome) InsertedJob {
	return InsertedJob{ID: r.ID, State: JobState(r.State), Queue: r.Queue, Priority: r.Priority, Kind: r.Kind,
		RunAt: r.RunAt.Time, Duplicate: r.Duplicate}
}

func insertOutcomes(rows []dbsqlc.AwaInsertOutcome) []InsertedJob {
	out := make([]InsertedJob, len(rows))
	for i, r := range rows {
		out[i] = insertOutcome(r)
	}
	return out
}

// anyUnique reports whether a job of ps asks for uniqueness: such a batch
// goes through the unique form of the insert, which says which jobs were
// duplicates; others keep the plain form.
func anyUnique(ps []InsertParams) bool {
	for _, p := range ps {
		if p.Opts.Unique != nil {
			return true
		}
	}
	return false
}

func insertedJob(r dbsqlc.AwaInsertedJob) InsertedJob {
	return InsertedJob{ID: r.ID, State: JobState(r.State), Queue: r.Queue, Priority: r.Priority, Kind: r.Kind, RunAt: r.RunAt.Time}
}

// Insert inserts one job with awa.insert_job (awa.insert_unique_job when it
// has unique options); it becomes visible when db's transaction commits.
func (d *Driver) Insert(ctx context.Context, db DBTX, p InsertParams) (InsertedJob, error) {
	opts, err := json.Marshal(p.Opts)
	if err != nil {
		return InsertedJob{}, fmt.Errorf("encode opts: %w", err)
	}
	if p.Opts.Unique != nil {
		row, err := d.q.InsertUniqueJob(ctx, d.on(db), dbsqlc.InsertUniqueJobParams{Kind: p.Kind, Args: p.Args, Opts: opts})
		if err != nil {
			return InsertedJob{}, fmt.Errorf("insert unique job %q: %w", p.Kind, mapError(err))
		}
		return insertOutcome(row), nil
	}
	row, err := d.q.InsertJob(ctx, d.on(db), dbsqlc.InsertJobParams{Kind: p.Kind, Args: p.Args, Opts: opts})
	if err != nil {
		return InsertedJob{}, fmt.Errorf("insert job %q: %w", p.Kind, mapError(err))
	}
	return insertedJob(row), nil
}

// insertJobsBatch is the most jobs one awa.insert_jobs call takes.
const insertJobsBatch = 10000

// InsertMany inserts jobs in order with awa.insert_jobs, one call per 10000
// jobs (awa.insert_unique_jobs for a batch with unique options). Pass a
// transaction for an all-or-nothing insert of more than 10000 jobs: on a pool
// each call commits by itself.
func (d *Driver) InsertMany(ctx context.Context, db DBTX, ps []InsertParams) ([]InsertedJob, error) {
	out := make([]InsertedJob, 0, len(ps))
	for start := 0; start < len(ps); start += insertJobsBatch {
		batch := ps[start:min(start+insertJobsBatch, len(ps))]
		kinds, args, opts, err := encodeBatch(batch)
		if err != nil {
			return nil, err
		}
		if anyUnique(batch) {
			rows, err := d.q.InsertUniqueJobs(ctx, d.on(db), dbsqlc.InsertUniqueJobsParams{Kinds: kinds, Args: args, Opts: opts})
			if err != nil {
				return nil, fmt.Errorf("insert %d jobs: %w", len(batch), mapError(err))
			}
			out = append(out, insertOutcomes(rows)...)
			continue
		}
		rows, err := d.q.InsertJobs(ctx, d.on(db), dbsqlc.InsertJobsParams{Kinds: kinds, Args: args, Opts: opts})
		if err != nil {
			return nil, fmt.Errorf("insert %d jobs: %w", len(batch), mapError(err))
		}
		out = append(out, insertedJobs(rows)...)
	}
	return out, nil
}

// InsertManyCopy inserts jobs, any number, through the COPY path: COPY into
// the session's job stage (awa.open_job_stage), then awa.insert_staged_jobs,
// which inserts them in order as InsertMany would: one round trip for the rows
// whatever their number (awa.insert_staged_unique_jobs when a job has unique
// options; over 10000 of them, their keys are taken 10000 jobs at a time, so
// two such calls with equal keys in opposite orders can deadlock: retry on
// 40P01). tx must be a transaction (the stage is emptied at commit). No
// jobs is a no-op.
func (d *Driver) InsertManyCopy(ctx context.Context, tx pgx.Tx, ps []InsertParams) ([]InsertedJob, error) {
	if len(ps) == 0 {
		return nil, nil // as InsertMany; the substrate raises for an empty stage
	}
	kinds, args, opts, err := encodeBatch(ps)
	if err != nil {
		return nil, err
	}
	if err := d.q.OpenJobStage(ctx, d.on(tx)); err != nil {
		return nil, fmt.Errorf("open job stage: %w", mapError(err))
	}
	_, err = tx.CopyFrom(ctx, pgx.Identifier{"pg_temp", sqlschema.JobStage(d.Schema())}, []string{"kind", "args", "opts"},
		pgx.CopyFromSlice(len(ps), func(i int) ([]any, error) {
			var o any
			if opts != nil && opts[i] != nil {
				o = string(opts[i])
			}
			return []any{kinds[i], string(args[i]), o}, nil
		}))
	if err != nil {
		return nil, fmt.Errorf("copy %d jobs to the stage: %w", len(ps), mapError(err))
	}
	if anyUnique(ps) {
		rows, err := d.q.InsertStagedUniqueJobs(ctx, d.on(tx))
		if err != nil {
			return nil, fmt.Errorf("insert %d staged jobs: %w", len(ps), mapError(err))
		}
		return insertOutcomes(rows), nil
	}
	rows, err := d.q.InsertStagedJobs(ctx, d.on(tx))
	if err != nil {
		return nil, fmt.Errorf("insert %d staged jobs: %w", len(ps), mapError(err))
	}
	return insertedJobs(rows), nil
}

func insertedJobs(rows []dbsqlc.AwaInsertedJob) []InsertedJob {
	out := make([]InsertedJob, len(rows))
	for i, r := range rows {
		out[i] = insertedJob(r)
	}
	return out
}

// encodeBatch encodes jobs as the parallel kinds/args/opts arrays the
// batch functions take. Bulk loads mostly repeat a few options: each
// distinct simple set is encoded once, and opts is nil as a whole (NULL: the
// defaults) when no job has any.
func encodeBatch(ps []InsertParams) (kinds []string, args, opts []json.RawMessage, err error) {
	kinds, args, opts = make([]string, len(ps)), make([]json.RawMessage, len(ps)), make([]json.RawMessage, len(ps))
	type simpleOpts struct {
		queue             string
		priority, maxAtts int
		runAt             time.Time
	}
	encoded := map[simpleOpts]json.RawMessage{}
	anyOpts := false
	for i, p := range ps {
		kinds[i], args[i] = p.Kind, p.Args
		o := p.Opts
		simple := len(o.Tags) == 0 && len(o.Metadata) == 0 && o.Unique == nil && o.Weight == 0
		key := simpleOpts{o.Queue, o.Priority, o.MaxAttempts, o.RunAt}
		if simple && key == (simpleOpts{}) {
			continue // NULL element: the defaults
		}
		anyOpts = true
		if raw, ok := encoded[key]; simple && ok {
			opts[i] = raw
			continue
		}
		raw, err := json.Marshal(o)
		if err != nil {
			return nil, nil, nil, fmt.Errorf("encode opts of job %d: %w", i, err)
		}
		if simple {
			encoded[key] = raw
		}
		opts[i] = raw
	}
	if !anyOpts {
		opts = nil
	}
	return kinds, args, opts, nil
}

// Receipt identifies one claimed attempt: every finalizer presents it, and
// the substrate applies the finalizer only while that attempt is open.
type Receipt struct {
	JobID     int64
	RunLease  int64
	ClaimSlot int32
	ReceiptID int64
}

// ClaimedJob is a job claimed for one attempt.
type ClaimedJob struct {
	Receipt
	Kind        string
	Queue       string
	Priority    int16
	Args        []byte
	Attempt     int
	MaxAttempts int
	Tags        []string
	Metadata    []byte
	Errors      []byte
	CreatedAt   time.Time
	RunAt       time.Time
	ClaimedAt   time.Time
	// DeadlineAt is when the maintenance leader closes the attempt if it is
	// still open: claim time plus the smaller of the queue's deadline and the
	// claim's attempt deadline; zero when neither is set.
	DeadlineAt time.Time
}

// Weight is the job's weight (InsertOpts.Weight, kept in its metadata as
// flow_weight): a JSON number with an integer value in 1..100000 (2.0 is
// 2); anything else, absent included, is 1. The claim reads it by the same
// rule (awa._job_weight) for the key's limit: a producer in another language
// may write any JSON there.
func (j ClaimedJob) Weight() int {
	// The metadata is jsonb's text, which writes a key as it is (no escapes
	// for these letters): without the key there is nothing to decode. The
	// key is matched exactly, as SQL's -> does (a struct field would also
	// take "FLOW_WEIGHT"); jsonb has no duplicate keys.
	var m map[string]json.RawMessage
	if !bytes.Contains(j.Metadata, []byte(`"flow_weight"`)) || json.Unmarshal(j.Metadata, &m) != nil {
		return 1
	}
	v := m["flow_weight"]
	if len(v) == 0 {
		return 1
	}
	// A number only (a quoted "5" is a string to the claim), read exactly:
	// 99999.99999999999999999 is not 100000. PostgreSQL writes jsonb numbers
	// without an exponent, so one here is refused rather than expanded.
	if c := v[0]; c != '-' && (c < '0' || c > '9') || strings.ContainsAny(string(v), "eE") {
		return 1
	}
	w, ok := new(big.Rat).SetString(string(v))
	if !ok || !w.IsInt() || w.Num().Cmp(big.NewInt(1)) < 0 || w.Num().Cmp(big.NewInt(100000)) > 0 {
		return 1
	}
	return int(w.Num().Int64())
}

// Claim claims up to max (1..1024) jobs of queue for the worker process
// instanceID (its heartbeat keeps them from stale rescue; a zero UUID claims
// without a process, rescued on age alone). attemptDeadline > 0 bounds each
// attempt: past claim time + attemptDeadline (or the queue's deadline, if
// shorter) the maintenance leader closes it whatever the heartbeat; 0 leaves
// only the queue's deadline.
func (d *Driver) Claim(ctx context.Context, db DBTX, queue string, max int, instanceID [16]byte, attemptDeadline time.Duration) ([]ClaimedJob, error) {
	arg := dbsqlc.ClaimReadyRuntimeParams{Queue: queue, Max: int32(max), InstanceID: uuid(instanceID)}
	if attemptDeadline != 0 {
		arg.AttemptDeadline = interval(attemptDeadline)
	}
	rows, err := d.q.ClaimReadyRuntimeRows(ctx, d.on(db), arg)
	if err != nil {
		return nil, fmt.Errorf("claim queue %q: %w", queue, mapError(err))
	}
	out, err := scanClaimed(rows, max)
	if err != nil {
		return nil, fmt.Errorf("claim queue %q: %w", queue, mapError(err))
	}
	return out, nil
}

// scanClaimed reads the claim's rows (the columns of queries/work.sql's
// ClaimReadyRuntime, in order) into jobs: one slice, grown 16 jobs at first
// then four times over up to limit (the jobs asked for), and one string per
// distinct kind and queue in the batch rather than one per job. The slice is
// not sized to limit at once: a claim of a queue that trickles asks for
// every free slot and finds one job or none (BenchmarkClaim: 288 KB per
// empty claim of 1,024 sized at once).
func scanClaimed(rows pgx.Rows, limit int) ([]ClaimedJob, error) {
	defer rows.Close()
	var out []ClaimedJob
	var names map[string]string
	intern := func(b []byte) string {
		if s, ok := names[string(b)]; ok {
			return s
		}
		if names == nil {
			names = make(map[string]string, 2)
		}
		s := string(b)
		names[s] = s
		return s
	}
	var created, runAt, claimed, deadline pgtype.Timestamptz
	for rows.Next() {
		if len(out) == cap(out) {
			out = slices.Grow(out, max(1, min(3*len(out), limit-len(out)), min(16, limit)))
		}
		out = append(out, ClaimedJob{})
		j := &out[len(out)-1]
		if err := rows.Scan(&j.JobID, &j.RunLease, &j.ClaimSlot, &j.ReceiptID, nil, nil, &j.Priority, &j.Args,
			&j.Attempt, &j.MaxAttempts, &j.Tags, &j.Metadata, &j.Errors, &created, &runAt, &claimed, &deadline); err != nil {
			return nil, err
		}
		raw := rows.RawValues()
		j.Kind, j.Queue = intern(raw[4]), intern(raw[5])
		j.CreatedAt, j.RunAt, j.ClaimedAt, j.DeadlineAt = created.Time, runAt.Time, claimed.Time, deadline.Time
	}
	if out == nil {
		out = []ClaimedJob{} // empty, not nil, as before (no allocation)
	}
	return out, rows.Err()
}

// Pending is what awa.queue_pending reports about a queue.
type Pending struct {
	// Pending: some lane has positions reserved above its claim cursor
	// (unclaimed jobs, or producers that have not committed or whose
	// rollback the next claim will pass).
	Pending bool
	// Ready: a committed job is known to wait above a lane's cursor (every
	// producer of that lane has ended), so a claim now would find it unless
	// another claimer holds the lane. Always false outside READ COMMITTED.
	Ready bool
	// WaitFor (QueueReadiness only): on a rate-limited queue whose bucket is
	// empty, how long until its next token (Ready is then false); 0 otherwise.
	WaitFor time.Duration
}

// QueuePending reports whether queue may hold work a claim has not taken. A
// claimer whose claim came back short claims again at once when Ready, and
// polls again soon while only Pending: an open producer may commit without a
// notification (see awa._append_ready).
func (d *Driver) QueuePending(ctx context.Context, db DBTX, queue string) (Pending, error) {
	p, err := d.q.QueuePending(ctx, d.on(db), queue)
	if err != nil {
		return Pending{}, fmt.Errorf("queue pending %q: %w", queue, mapError(err))
	}
	return Pending{Pending: p.Pending.Valid && p.Pending.Bool, Ready: p.Ready.Valid && p.Ready.Bool}, nil
}

// QueueReadiness is QueuePending plus, for a rate-limited queue whose bucket
// holds no token, how long until one is due (Pending.WaitFor): a claimer
// sleeps that long instead of polling an empty bucket.
func (d *Driver) QueueReadiness(ctx context.Context, db DBTX, queue string) (Pending, error) {
	p, err := d.q.QueueReadiness(ctx, d.on(db), queue)
	if err != nil {
		return Pending{}, fmt.Errorf("queue readiness %q: %w", queue, mapError(err))
	}
	out := Pending{Pending: p.Pending.Valid && p.Pending.Bool, Ready: p.Ready.Valid && p.Ready.Bool}
	out.WaitFor = waitFor(p.WaitFor)
	return out, nil
}

// waitFor is a rate-limit wait as a duration (0 when NULL).
func waitFor(i pgtype.Interval) time.Duration {
	if !i.Valid {
		return 0
	}
	return time.Duration(i.Microseconds)*time.Microsecond + time.Duration(i.Days)*24*time.Hour
}

// ReadyQueue is one queue awa.queues_ready reports: a claim may find work
// in it (it is pending, as QueuePending says).
type ReadyQueue struct {
	Queue string
	// Ready: a committed job is known to wait (Pending.Ready).
	Ready bool
	// WaitFor: on a rate-limited queue whose bucket is empty, how long until
	// its next token; 0 otherwise.
	WaitFor time.Duration
}

// QueuesReady reports, in one statement, which of queues a claim may find
// work in (awa.queues_ready): each such queue once, in name order. A paused
// queue, a drained one and one never used are left out. The client's shared
// poller asks it once per FetchPollInterval for all its queues.
func (d *Driver) QueuesReady(ctx context.Context, db DBTX, queues []string) ([]ReadyQueue, error) {
	rows, err := d.q.QueuesReady(ctx, d.on(db), queues)
	if err != nil {
		return nil, fmt.Errorf("queues ready: %w", mapError(err))
	}
	out := make([]ReadyQueue, len(rows))
	for i, r := range rows {
		out[i] = ReadyQueue{Queue: r.Queue, Ready: r.Ready, WaitFor: waitFor(r.WaitFor)}
	}
	return out, nil
}

// Result is a finalizer's outcome for one attempt.
type Result struct {
	JobID    int64
	RunLease int64
	Outcome  Outcome
	// State is the job's new state when Applied, empty when Stale.
	State JobState
}

func results(rows []dbsqlc.AwaFinalizeResult) []Result {
	out := make([]Result, len(rows))
	for i, r := range rows {
		out[i] = Result{JobID: r.JobID, RunLease: r.RunLease, Outcome: Outcome(r.Outcome), State: JobState(r.State.AwaJobState)}
	}
	return out
}

type receiptArrays struct {
	jobIDs, runLeases, receiptIDs []int64
	claimSlots                    []int32
}

func splitReceipts(n int, at func(int) Receipt) receiptArrays {
	a := receiptArrays{make([]int64, n), make([]int64, n), make([]int64, n), make([]int32, n)}
	for i := 0; i < n; i++ {
		r := at(i)
		a.jobIDs[i], a.runLeases[i], a.receiptIDs[i], a.claimSlots[i] = r.JobID, r.RunLease, r.ReceiptID, r.ClaimSlot
	}
	return a
}

// Complete marks attempts completed (one SQL call for all of them).
func (d *Driver) Complete(ctx context.Context, db DBTX, rs []Receipt) ([]Result, error) {
	a := splitReceipts(len(rs), func(i int) Receipt { return rs[i] })
	rows, err := d.q.CompleteJobs(ctx, d.on(db), dbsqlc.CompleteJobsParams{
		JobIds: a.jobIDs, RunLeases: a.runLeases, ClaimSlots: a.claimSlots, ReceiptIds: a.receiptIDs,
	})
	if err != nil {
		return nil, fmt.Errorf("complete %d jobs: %w", len(rs), mapError(err))
	}
	return results(rows), nil
}

// RetryItem is one failed attempt to retry. A zero RetryAt uses the backoff.
type RetryItem struct {
	Receipt
	Error   string
	RetryAt time.Time
}

// Retry records failed attempts: retryable at RetryAt or after the backoff,
// failed (or DLQ) when attempts are exhausted.
func (d *Driver) Retry(ctx context.Context, db DBTX, items []RetryItem) ([]Result, error) {
	a := splitReceipts(len(items), func(i int) Receipt { return items[i].Receipt })
	errs := make([]string, len(items))
	at := make([]pgtype.Timestamptz, len(items))
	for i, it := range items {
		errs[i] = it.Error
		at[i] = timestamptz(it.RetryAt)
	}
	rows, err := d.q.RetryJobs(ctx, d.on(db), dbsqlc.RetryJobsParams{
		JobIds: a.jobIDs, RunLeases: a.runLeases, ClaimSlots: a.claimSlots, ReceiptIds: a.receiptIDs,
		Errors: errs, RetryAt: at,
	})
	if err != nil {
		return nil, fmt.Errorf("retry %d jobs: %w", len(items), mapError(err))
	}
	return results(rows), nil
}

// SnoozeItem is one attempt to put back until RunAt without counting it.
type SnoozeItem struct {
	Receipt
	RunAt time.Time
}

// Snooze reschedules attempts without counting them. Same steps as Complete
// and Retry on purpose: each finalizer fills its own sqlc params type.
func (d *Driver) Snooze(ctx context.Context, db DBTX, items []SnoozeItem) ([]Result, error) {
	a := splitReceipts(len(items), func(i int) Receipt { return items[i].Receipt })
	at := make([]pgtype.Timestamptz, len(items))
	for i, it := range items {
		at[i] = timestamptz(it.RunAt)
	}
	rows, err := d.q.SnoozeJobs(ctx, d.on(db), dbsqlc.SnoozeJobsParams{
		JobIds: a.jobIDs, RunLeases: a.runLeases, ClaimSlots: a.claimSlots, ReceiptIds: a.receiptIDs, RunAt: at,
	})
	if err != nil {
		return nil, fmt.Errorf("snooze %d jobs: %w", len(items), mapError(err))
	}
	return results(rows), nil
}

// ReasonItem is one attempt to cancel or fail, with its reason or error.
type ReasonItem struct {
	Receipt
	Reason string
}

// Cancel ends attempts cancelled, recording each reason.
func (d *Driver) Cancel(ctx context.Context, db DBTX, items []ReasonItem) ([]Result, error) {
	a, reasons := splitReasons(items)
	rows, err := d.q.CancelJobs(ctx, d.on(db), dbsqlc.CancelJobsParams{
		JobIds: a.jobIDs, RunLeases: a.runLeases, ClaimSlots: a.claimSlots, ReceiptIds: a.receiptIDs, Reasons: reasons,
	})
	if err != nil {
		return nil, fmt.Errorf("cancel %d jobs: %w", len(items), mapError(err))
	}
	return results(rows), nil
}

// Fail ends attempts failed (or in the DLQ) whatever attempts remain.
func (d *Driver) Fail(ctx context.Context, db DBTX, items []ReasonItem) ([]Result, error) {
	a, reasons := splitReasons(items)
	rows, err := d.q.FailJobs(ctx, d.on(db), dbsqlc.FailJobsParams{
		JobIds: a.jobIDs, RunLeases: a.runLeases, ClaimSlots: a.claimSlots, ReceiptIds: a.receiptIDs, Errors: reasons,
	})
	if err != nil {
		return nil, fmt.Errorf("fail %d jobs: %w", len(items), mapError(err))
	}
	return results(rows), nil
}

func splitReasons(items []ReasonItem) (receiptArrays, []string) {
	reasons := make([]string, len(items))
	for i, it := range items {
		reasons[i] = it.Reason
	}
	return splitReceipts(len(items), func(i int) Receipt { return items[i].Receipt }), reasons
}

// ClosedAttempts returns those of the attempts given that are no longer open
// (cancelled by an operator, rescued or finalized): awa.closed_attempts, one
// call for all of them. Call it outside a transaction (it holds share locks
// on the claim ring to its transaction's end).
func (d *Driver) ClosedAttempts(ctx context.Context, db DBTX, rs []Receipt) ([]Receipt, error) {
	a := splitReceipts(len(rs), func(i int) Receipt { return rs[i] })
	rows, err := d.q.ClosedAttempts(ctx, d.on(db), dbsqlc.ClosedAttemptsParams{
		JobIds: a.jobIDs, RunLeases: a.runLeases, ClaimSlots: a.claimSlots, ReceiptIds: a.receiptIDs,
	})
	if err != nil {
		return nil, fmt.Errorf("closed attempts of %d: %w", len(rs), mapError(err))
	}
	closed := make(map[attemptKey]bool, len(rows))
	for _, r := range rows {
		closed[attemptKey{r.JobID, r.RunLease}] = true
	}
	out := make([]Receipt, 0, len(rows))
	for _, r := range rs {
		if closed[attemptKey{r.JobID, r.RunLease}] {
			out = append(out, r)
		}
	}
	return out, nil
}

// Heartbeat registers the worker process instanceID or refreshes its heartbeat.
func (d *Driver) Heartbeat(ctx context.Context, db DBTX, instanceID [16]byte) error {
	if _, err := d.q.HeartbeatInstance(ctx, d.on(db), dbsqlc.HeartbeatInstanceParams{InstanceID: uuid(instanceID)}); err != nil {
		return fmt.Errorf("heartbeat: %w", mapError(err))
	}
	return nil
}

func uuid(id [16]byte) pgtype.UUID {
	return pgtype.UUID{Bytes: id, Valid: id != [16]byte{}}
}

func timestamptz(t time.Time) pgtype.Timestamptz {
	return pgtype.Timestamptz{Time: t, Valid: !t.IsZero()}
}

func jsonObject(v map[string]any) ([]byte, error) {
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("encode options: %w", err)
	}
	return raw, nil
}
