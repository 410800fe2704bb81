package driver

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/jackc/pgx/v5/pgtype"

	"github.com/awa-queue/awa/driver/internal/dbsqlc"
)

// QueueCount is the number of jobs of one queue in each state.
type QueueCount struct {
	Queue                                               string
	Available, Running, Scheduled, Retryable, Completed int64
	Cancelled, Failed, DLQ                              int64
	// WaitingExternal: jobs waiting for their callback, parked or with
	// their handler in WaitForCallback (not counted in Running).
	WaitingExternal int64
}

// QueueCounts returns per-state counts of queue, or of every queue when queue is "".
// It works in a transaction at any level and leaves no lock behind; in a
// REPEATABLE READ or SERIALIZABLE transaction whose snapshot predates a ring
// prune it fails with PostgreSQL's 40001 (retry the transaction) rather than
// count what never existed.
func (d *Driver) QueueCounts(ctx context.Context, db DBTX, queue string) ([]QueueCount, error) {
	rows, err := d.q.QueueCounts(ctx, d.on(db), pgtype.Text{String: queue, Valid: queue != ""})
	if err != nil {
		return nil, fmt.Errorf("queue counts: %w", mapError(err))
	}
	out := make([]QueueCount, len(rows))
	for i, r := range rows {
		out[i] = QueueCount{Queue: r.Queue, Available: r.Available, Running: r.Running, Scheduled: r.Scheduled,
			Retryable: r.Retryable, Completed: r.Completed, Cancelled: r.Cancelled, Failed: r.Failed, DLQ: r.Dlq,
			WaitingExternal: r.WaitingExternal}
	}
	return out, nil
}

// QueueDepth is one queue's claimable backlog (awa.queue_depths).
type QueueDepth struct {
	Queue string
	// Available counts the jobs a claim could take now, up to the count
	// limit per lane; Capped says a lane reached the limit (the queue holds
	// at least Available).
	Available int64
	Capped    bool
	// OldestRunAt is when the longest-waiting available job became due
	// (among those counted; zero when none is available).
	OldestRunAt time.Time
	Paused      bool
}

// QueueDepths returns every queue's available jobs, each lane counted up to
// countLimit (1..1000000), and the earliest due time among them: a
// bounded read whatever the backlog (QueueCounts counts everything), which
// the client's metrics poll. Any isolation level; it leaves no lock behind.
func (d *Driver) QueueDepths(ctx context.Context, db DBTX, countLimit int) ([]QueueDepth, error) {
	rows, err := d.q.QueueDepths(ctx, d.on(db), int32(countLimit))
	if err != nil {
		return nil, fmt.Errorf("queue depths: %w", mapError(err))
	}
	out := make([]QueueDepth, len(rows))
	for i, r := range rows {
		out[i] = QueueDepth{Queue: r.Queue, Available: r.Available, Capped: r.AvailableCapped,
			OldestRunAt: r.OldestRunAt.Time, Paused: r.Paused}
	}
	return out, nil
}

// CancelJob cancels one job by id in any unfinished state. The result is
// Stale when its running attempt was finalized concurrently.
func (d *Driver) CancelJob(ctx context.Context, db DBTX, jobID int64, reason string) (Result, error) {
	rows, err := d.q.CancelJob(ctx, d.on(db), dbsqlc.CancelJobParams{
		JobID: jobID, Reason: pgtype.Text{String: reason, Valid: reason != ""},
	})
	if err != nil {
		return Result{}, fmt.Errorf("cancel job %d: %w", jobID, mapError(err))
	}
	if len(rows) != 1 {
		return Result{}, fmt.Errorf("cancel job %d: %d results, want 1", jobID, len(rows))
	}
	return results(rows)[0], nil
}

// Erased is one plane awa.erase_job rewrote for a job, and how many rows.
type Erased struct {
	Plane string // ready, done, deferred, parked, dlq, archive, progress or callbacks
	Rows  int64
}

// EraseJob removes one job's data on request (a data-protection erasure):
// its args become {} and its metadata {"erased_at": ...} wherever its body
// lives, its progress is deleted, and with eraseErrors its errors go too. A
// job that has not ended is cancelled first. Errors: ErrJobNotFound
// (AW020). docs/storage.md, "Erasure".
func (d *Driver) EraseJob(ctx context.Context, db DBTX, jobID int64, eraseErrors bool) ([]Erased, error) {
	rows, err := d.q.EraseJob(ctx, d.on(db), dbsqlc.EraseJobParams{JobID: jobID, EraseErrors: eraseErrors})
	if err != nil {
		return nil, fmt.Errorf("erase job %d: %w", jobID, mapError(err))
	}
	out := make([]Erased, len(rows))
	for i, r := range rows {
		out[i] = Erased{Plane: r.Plane, Rows: r.Rows}
	}
	return out, nil
}

// QueueOptions holds the per-queue options awa.configure_queue sets; nil
// fields keep their value.
type QueueOptions struct {
	// DLQ sends jobs that fail for good to the DLQ instead of ending failed.
	DLQ *bool
	// DeadlineSeconds rescues attempts running longer; 0 removes the deadline.
	DeadlineSeconds *int
	// EnqueueShards (1..64, default 8) is the number of lanes per priority
	// that concurrent producers spread over. Jobs are FIFO within a lane; 1
	// makes a priority one FIFO lane, and its producers take turns.
	EnqueueShards *int
	// AgingSeconds turns on priority aging: a job that waited this long is
	// claimed as if one priority higher, one more per further interval, up
	// to 1, so a flood of high-priority jobs cannot starve the others; 0
	// turns it off (docs/storage.md, "Priority aging").
	AgingSeconds *int
	// RateLimit limits how fast the fleet starts the queue's jobs: over any
	// T seconds at most Burst + PerSecond*T claims (docs/storage.md, "Flow
	// control"). A zero RateLimit (PerSecond 0) removes the limit.
	RateLimit *RateLimit
	// MaxDepth makes an insert of jobs due now fail with ErrQueueFull when
	// it would take the queue's available jobs above it; 0 removes it.
	MaxDepth *int
	// Concurrency limits each key's running jobs across the fleet (weights
	// summed); a zero Concurrency (Key "") removes it.
	Concurrency *Concurrency
}

// Concurrency is a queue's per-key limit: Key is "args.<path>" or
// "metadata.<path>"; a key's open attempts weigh at most Limit, or its
// entry in Limits (docs/storage.md, "Flow control").
type Concurrency struct {
	Key    string
	Limit  int
	Limits map[string]int
}

// RateLimit is a queue's token bucket: PerSecond tokens a second, at most
// Burst of them kept (0: ceil(PerSecond)).
type RateLimit struct {
	PerSecond float64
	Burst     int
}

// ConfigureQueue sets queue options.
func (d *Driver) ConfigureQueue(ctx context.Context, db DBTX, queue string, cfg QueueOptions) error {
	opts := map[string]any{}
	if cfg.DLQ != nil {
		opts["dlq"] = *cfg.DLQ
	}
	if cfg.EnqueueShards != nil {
		opts["enqueue_shards"] = *cfg.EnqueueShards
	}
	if rl := cfg.RateLimit; rl != nil {
		switch {
		case rl.PerSecond == 0:
			opts["rate_limit"] = nil
		case rl.Burst == 0:
			opts["rate_limit"] = map[string]any{"per_second": rl.PerSecond}
		default:
			opts["rate_limit"] = map[string]any{"per_second": rl.PerSecond, "burst": rl.Burst}
		}
	}
	if cc := cfg.Concurrency; cc != nil {
		if cc.Key == "" {
			opts["concurrency"] = nil
		} else {
			c := map[string]any{"key": cc.Key, "limit": cc.Limit}
			if len(cc.Limits) > 0 {
				c["limits"] = cc.Limits
			}
			opts["concurrency"] = c
		}
	}
	for key, v := range map[string]*int{"deadline_seconds": cfg.DeadlineSeconds, "aging_seconds": cfg.AgingSeconds,
		"max_depth": cfg.MaxDepth} {
		if v != nil && *v == 0 {
			opts[key] = nil
		} else if v != nil {
			opts[key] = *v
		}
	}
	raw, err := jsonObject(opts)
	if err != nil {
		return err
	}
	if _, err := d.q.ConfigureQueue(ctx, d.on(db), dbsqlc.ConfigureQueueParams{Queue: queue, Opts: raw}); err != nil {
		return fmt.Errorf("configure queue %q: %w", queue, mapError(err))
	}
	return nil
}

// ArchiveOptions are the archive settings awa.configure_archive changes; a
// nil field keeps its value. A retention is whole seconds, 0 (not archived)
// to 10 years; for a queue, a negative one removes the queue's override.
// ExportFunction names a SQL function fn(timestamptz, timestamptz, regclass)
// that receives each cohort before it is dropped (install-wide only; "" to
// remove it). docs/storage.md, "History archive".
type ArchiveOptions struct {
	Completed, Failed, Cancelled *time.Duration
	ExportFunction               *string
}

// ConfigureArchive sets the archive's retentions, for the install (queue "")
// or one queue, and the export hook.
func (d *Driver) ConfigureArchive(ctx context.Context, db DBTX, queue string, cfg ArchiveOptions) error {
	opts := map[string]any{}
	for key, v := range map[string]*time.Duration{"completed_seconds": cfg.Completed, "failed_seconds": cfg.Failed,
		"cancelled_seconds": cfg.Cancelled} {
		switch {
		case v == nil:
		case *v < 0:
			opts[key] = nil
		default:
			opts[key] = int64(v.Seconds())
		}
	}
	if cfg.ExportFunction != nil {
		if *cfg.ExportFunction == "" {
			opts["export_function"] = nil
		} else {
			opts["export_function"] = *cfg.ExportFunction
		}
	}
	raw, err := jsonObject(opts)
	if err != nil {
		return err
	}
	arg := dbsqlc.ConfigureArchiveParams{Opts: raw}
	if queue != "" {
		arg.Queue = pgtype.Text{String: queue, Valid: true}
	}
	if _, err := d.q.ConfigureArchive(ctx, d.on(db), arg); err != nil {
		return fmt.Errorf("configure archive %q: %w", queue, mapError(err))
	}
	return nil
}

// RetryDLQJob runs a DLQ job again from attempt 0, at runAt (zero: now).
func (d *Driver) RetryDLQJob(ctx context.Context, db DBTX, jobID int64, runAt time.Time) (InsertedJob, error) {
	row, err := d.q.RetryDLQJob(ctx, d.on(db), dbsqlc.RetryDLQJobParams{JobID: jobID, RunAt: timestamptz(runAt)})
	if err != nil {
		return InsertedJob{}, fmt.Errorf("retry dlq job %d: %w", jobID, mapError(err))
	}
	return insertedJob(row), nil
}

// RetryJob runs one job again, at runAt (zero: now): a scheduled or
// retryable job leaves the backlog (its attempts kept); a failed or
// cancelled one, in the queue ring or the archive, or a DLQ job, starts
// over from attempt 0. Errors: ErrJobNotFound (AW020), ErrInvalidJobState
// (AW021: the job is available, running, waiting or completed).
func (d *Driver) RetryJob(ctx context.Context, db DBTX, jobID int64, runAt time.Time) (InsertedJob, error) {
	row, err := d.q.RetryJob(ctx, d.on(db), dbsqlc.RetryJobParams{JobID: jobID, RunAt: timestamptz(runAt)})
	if err != nil {
		return InsertedJob{}, fmt.Errorf("retry job %d: %w", jobID, mapError(err))
	}
	return insertedJob(row), nil
}

// PauseQueue pauses queue: from the commit on its jobs are not claimed
// (workers idle on it), attempts already running finish, producers still
// insert. Idempotent; a queue may be paused before it has jobs. It returns
// when the pause began. Errors: ErrInvalidQueue (AW002).
func (d *Driver) PauseQueue(ctx context.Context, db DBTX, queue string) (time.Time, error) {
	row, err := d.q.PauseQueue(ctx, d.on(db), dbsqlc.PauseQueueParams{Queue: queue})
	if err != nil {
		return time.Time{}, fmt.Errorf("pause queue %q: %w", queue, mapError(err))
	}
	return row.PausedAt.Time, nil
}

// ResumeQueue resumes queue and, on commit, wakes its listening workers at
// once. Resuming a queue that is not paused changes nothing.
func (d *Driver) ResumeQueue(ctx context.Context, db DBTX, queue string) error {
	if _, err := d.q.ResumeQueue(ctx, d.on(db), queue); err != nil {
		return fmt.Errorf("resume queue %q: %w", queue, mapError(err))
	}
	return nil
}

// PausedQueues returns the paused queues and when each pause began, oldest
// first.
func (d *Driver) PausedQueues(ctx context.Context, db DBTX) (map[string]time.Time, error) {
	rows, err := d.q.PausedQueues(ctx, d.on(db))
	if err != nil {
		return nil, fmt.Errorf("paused queues: %w", mapError(err))
	}
	out := make(map[string]time.Time, len(rows))
	for _, r := range rows {
		out[r.Queue] = r.PausedAt.Time
	}
	return out, nil
}

// QueueLimit is a queue's flow control as configured (ConfigureQueue): a
// nil field is not set.
type QueueLimit struct {
	Queue       string
	RateLimit   *RateLimit
	MaxDepth    *int
	Concurrency *Concurrency
}

// QueueLimits returns the flow-control options of each queue that has one,
// by name, or of queue only ("": every queue); a queue without one has no
// entry.
func (d *Driver) QueueLimits(ctx context.Context, db DBTX, queue string) ([]QueueLimit, error) {
	rows, err := d.q.QueueLimits(ctx, d.on(db), pgtype.Text{String: queue, Valid: queue != ""})
	if err != nil {
		return nil, fmt.Errorf("queue limits: %w", mapError(err))
	}
	out := make([]QueueLimit, len(rows))
	for i, r := range rows {
		l := QueueLimit{Queue: r.Queue}
		if r.RatePerSecond.Valid {
			l.RateLimit = &RateLimit{PerSecond: r.RatePerSecond.Float64, Burst: int(r.RateBurst.Int32)}
		}
		if r.MaxDepth.Valid {
			n := int(r.MaxDepth.Int32)
			l.MaxDepth = &n
		}
		if r.ConcurrencyKey.Valid {
			c := &Concurrency{Key: r.ConcurrencyKey.String, Limit: int(r.ConcurrencyLimit.Int32)}
			if len(r.ConcurrencyLimits) > 0 && string(r.ConcurrencyLimits) != "null" {
				if err := json.Unmarshal(r.ConcurrencyLimits, &c.Limits); err != nil {
					return nil, fmt.Errorf("queue limits of %q: %w", r.Queue, err)
				}
			}
			l.Concurrency = c
		}
		out[i] = l
	}
	return out, nil
}

// Drain is what QueueDrained found: Drained when none of Available (a
// committed job waiting, the queue paused or not), Running (an open
// attempt) and Due (a scheduled or retryable job whose time has come) holds.
// Parked jobs do not count.
type Drain struct {
	Drained, Available, Running, Due bool
}

// QueueDrained reports whether queue is drained (awa.queue_drained).
func (d *Driver) QueueDrained(ctx context.Context, db DBTX, queue string) (Drain, error) {
	r, err := d.q.QueueDrained(ctx, d.on(db), dbsqlc.QueueDrainedParams{Queue: queue})
	if err != nil {
		return Drain{}, fmt.Errorf("queue drained %q: %w", queue, mapError(err))
	}
	return Drain{Drained: r.Drained, Available: r.Available, Running: r.Running, Due: r.Due}, nil
}

// DrainQueue waits until queue is drained (QueueDrained: no job available,
// running or due), polling every 50ms, for deploys and tests. Bound it with
// ctx: when ctx ends first it returns what it last saw and ctx's error,
// wrapped with that. Other processes do the work; a paused queue never
// drains while it holds available jobs.
func (d *Driver) DrainQueue(ctx context.Context, db DBTX, queue string) (Drain, error) {
	t := time.NewTicker(50 * time.Millisecond)
	defer t.Stop()
	var last Drain
	for {
		dr, err := d.QueueDrained(ctx, db, queue)
		if err != nil && ctx.Err() == nil {
			return dr, err
		}
		if err == nil {
			if dr.Drained {
				return dr, nil
			}
			last = dr
		}
		select {
		case <-ctx.Done():
			return last, fmt.Errorf("drain queue %q (last seen: available %v, running %v, due %v): %w", queue, last.Available,
				last.Running, last.Due, ctx.Err())
		case <-t.C:
		}
	}
}

// DrainQueue is Driver.DrainQueue on the client's database: it returns
// once the client's workers (or any other process) have worked queue dry.
func (c *Client) DrainQueue(ctx context.Context, queue string) error {
	_, err := c.driver.DrainQueue(ctx, c.runtimeDB(), queue)
	return err
}

// BulkFilter selects the jobs of a bulk operation, as ListJobsParams
// filters; at least one field must be set. Limit is 1 to 10000 (defaults to
// 1000).
type BulkFilter struct {
	States []JobState
	Queue  string
	Kind   string
	Tag    string
	Limit  int
}

// BulkResult is what a bulk operation did to one job it selected: Applied
// with the job's new State, or not (the job changed state between the
// selection and the act; Detail says how).
type BulkResult struct {
	JobID   int64
	Applied bool
	State   JobState
	Detail  string
}

// BulkCancelJobs cancels up to f.Limit unfinished jobs matching f, newest
// first, each as CancelJob (a running attempt's late result is stale).
// States default to the unfinished ones. Errors: ErrInvalidArgument (AW010:
// no filter, a bad limit, a finished state).
func (d *Driver) BulkCancelJobs(ctx context.Context, db DBTX, f BulkFilter, reason string) ([]BulkResult, error) {
	arg := dbsqlc.BulkCancelJobsParams{States: bulkStates(f.States), Queue: optText(f.Queue), Kind: optText(f.Kind),
		Tag: optText(f.Tag), Max: bulkLimit(f.Limit), Reason: optText(reason)}
	rows, err := d.q.BulkCancelJobs(ctx, d.on(db), arg)
	if err != nil {
		return nil, fmt.Errorf("bulk cancel: %w", mapError(err))
	}
	return bulkResults(rows), nil
}

// BulkRetryJobs runs again up to f.Limit jobs matching f, newest first,
// each as RetryJob, at runAt (zero: now). States default to failed and
// cancelled. Errors: ErrInvalidArgument (AW010: no filter, a bad limit, a
// state with nothing to retry).
func (d *Driver) BulkRetryJobs(ctx context.Context, db DBTX, f BulkFilter, runAt time.Time) ([]BulkResult, error) {
	arg := dbsqlc.BulkRetryJobsParams{States: bulkStates(f.States), Queue: optText(f.Queue), Kind: optText(f.Kind),
		Tag: optText(f.Tag), Max: bulkLimit(f.Limit), RunAt: timestamptz(runAt)}
	rows, err := d.q.BulkRetryJobs(ctx, d.on(db), arg)
	if err != nil {
		return nil, fmt.Errorf("bulk retry: %w", mapError(err))
	}
	return bulkResults(rows), nil
}

func bulkStates(states []JobState) []string {
	if len(states) == 0 {
		return nil
	}
	out := make([]string, len(states))
	for i, s := range states {
		out[i] = string(s)
	}
	return out
}

func bulkLimit(n int) int32 {
	if n == 0 {
		return 1000
	}
	return clampInt32(n)
}

// clampInt32 is n made to fit an int32 parameter: a value out of a
// function's range stays out of it, for the substrate's check (AW010).
func clampInt32(n int) int32 { return int32(max(min(n, math.MaxInt32), math.MinInt32)) }

func optText(s string) pgtype.Text { return pgtype.Text{String: s, Valid: s != ""} }

func bulkResults(rows []dbsqlc.AwaBulkResult) []BulkResult {
	out := make([]BulkResult, len(rows))
	for i, r := range rows {
		out[i] = BulkResult{JobID: r.JobID, Applied: r.Outcome == "applied", State: JobState(r.State.AwaJobState),
			Detail: r.Detail.String}
	}
	return out
}

// PurgeDLQFilter selects DLQ jobs to delete; empty fields do not filter, and
// at least one must be set.
type PurgeDLQFilter struct {
	Queue        string
	FailedBefore time.Time
	JobIDs       []int64
	Max          int // defaults to 10000
}

// PurgeDLQ deletes DLQ jobs for good and returns their ids.
func (d *Driver) PurgeDLQ(ctx context.Context, db DBTX, f PurgeDLQFilter) ([]int64, error) {
	if f.Max == 0 {
		f.Max = 10000
	}
	rows, err := d.q.PurgeDLQ(ctx, d.on(db), dbsqlc.PurgeDLQParams{
		Queue: pgtype.Text{String: f.Queue, Valid: f.Queue != ""}, FailedBefore: timestamptz(f.FailedBefore),
		JobIds: f.JobIDs, Max: int32(f.Max),
	})
	if err != nil {
		return nil, fmt.Errorf("purge dlq: %w", mapError(err))
	}
	ids := make([]int64, len(rows))
	for i, r := range rows {
		ids[i] = r.JobID
	}
	return ids, nil
}

// StorageSlot is one ring slot as awa.storage_status shows it: what it holds,
// its size, and what prune would do with it now (docs/storage.md, "Storage
// status").
type StorageSlot struct {
	// Ring is queue, claim, lease, cursor or archive. An archive row is its
	// DEFAULT partition (Slot -1, Role default) or a cohort (Slot 0 the
	// oldest, Role cohort, SealedAt when its retention ends).
	Ring string
	Slot int
	// Role is current, next (the sealed slot the next rotation needs) or
	// sealed.
	Role string
	// Generation is the ring generation the slot was last current in, and
	// SealedAt when the rotation after it sealed it (zero: never used, or
	// current).
	Generation *int64
	SealedAt   time.Time
	// Rows counts the slot's rows, each child table up to the count limit;
	// RowsCapped says a count stopped there (Rows is then a lower bound).
	Rows       int64
	RowsCapped bool
	Bytes      int64 // on disk: the slot's tables, their indexes and TOAST
	// Status is current, empty, reclaimable, carried (prune moves what is
	// live forward), held (a held queue slot whose backlog waits), locked (another session holds one of its tables: prune
	// reports skipped_blocked) or blocked (prune reports skipped_live); an
	// archive cohort may be retained (its retention runs), and is blocked by
	// a failed export (Cause export), the DEFAULT partition while it holds
	// rows (Cause default).
	Status string
	// Cause (available, running, open_claim, live_lease, lock), JobID and
	// Queue name what keeps a carried, locked or blocked slot; Detail says it
	// in prune's words (for a lock: the holder's pid, mode and table).
	Cause  string
	JobID  *int64
	Queue  string
	Detail string
}

// StorageStatus returns every ring slot with its size and what prune would
// do with it now, each child table counted up to countLimit rows (0: 10000).
// Like the read surfaces it keeps no lock after it returns.
func (d *Driver) StorageStatus(ctx context.Context, db DBTX, countLimit int) ([]StorageSlot, error) {
	if countLimit == 0 {
		countLimit = 10000
	}
	rows, err := d.q.StorageStatus(ctx, d.on(db), int32(min(countLimit, 1<<31-1)))
	if err != nil {
		return nil, fmt.Errorf("storage status: %w", mapError(err))
	}
	out := make([]StorageSlot, len(rows))
	for i, r := range rows {
		s := StorageSlot{Ring: r.Ring, Slot: int(r.Slot), Role: r.Role, Rows: r.Rows, RowsCapped: r.RowsCapped,
			Bytes: r.Bytes, Status: r.Status, Cause: r.Cause.String, Queue: r.Queue.String, Detail: r.Detail.String}
		if r.Generation.Valid {
			s.Generation = &r.Generation.Int64
		}
		if r.SealedAt.Valid {
			s.SealedAt = r.SealedAt.Time
		}
		if r.JobID.Valid {
			s.JobID = &r.JobID.Int64
		}
		out[i] = s
	}
	return out, nil
}

// JobListing is one job as awa.list_jobs and awa.get_job return it: the
// columns of awa.jobs, and when the archive drops it.
type JobListing struct {
	ID          int64
	Queue       string
	Priority    int
	Kind        string
	State       JobState
	Args        json.RawMessage
	Attempt     int // attempts started (the running one included)
	MaxAttempts int
	RunLease    int64
	RunAt       time.Time
	CreatedAt   time.Time
	// ClaimedAt: when a running (or waiting_external) attempt was claimed.
	ClaimedAt *time.Time
	// FinalizedAt: when a completed, failed or cancelled job ended.
	FinalizedAt *time.Time
	Tags        []string
	Metadata    json.RawMessage
	// Errors holds the errors of its attempts, as a JSON array (nil when none).
	Errors json.RawMessage
	// DLQ: a failed job held in the dead letter queue.
	DLQ bool
	// Progress is the job's checkpoint (JobRow.SetProgress), written at ProgressAt.
	Progress   json.RawMessage
	ProgressAt *time.Time
	// ExpiresAt: when the archive drops the job (nil while it is not archived).
	ExpiresAt *time.Time
}

// ListJobsParams filters and pages Driver.ListJobs. Zero fields do not filter.
type ListJobsParams struct {
	// States lists jobs in any of these states (failed includes the DLQ).
	// Defaults to every state.
	States []JobState
	Queue  string
	Kind   string
	// Tag lists jobs that hold this tag among theirs.
	Tag string
	// FinalizedFrom and FinalizedTo bound finalized_at to [FinalizedFrom,
	// FinalizedTo); either may be zero. A range lists finished jobs only.
	FinalizedFrom, FinalizedTo time.Time
	// After is the cursor: the next page after the one that ended with this
	// id (the next cursor ListJobs returned). Defaults to the first page.
	After int64
	// Limit is the page size, 1 to 1000. Defaults to 50.
	Limit int
}

// ListJobs returns one page of jobs, live and archived, newest first (id
// descending), and the cursor of the next page: the last id when the page
// is full, 0 when it is the last. Jobs enqueued meanwhile have higher ids:
// they never shift a later page. Every plane is read through an index in
// id order (docs/storage.md, "Paging"). Like the read surfaces it keeps no
// lock after it returns. A state this driver does not know is
// ErrInvalidArgument; the substrate's own checks map as usual (AW010, AW002,
// AW001, AW007).
func (d *Driver) ListJobs(ctx context.Context, db DBTX, p ListJobsParams) ([]JobListing, int64, error) {
	limit := p.Limit
	if limit == 0 {
		limit = 50
	}
	arg := dbsqlc.ListJobsParams{
		Queue: pgtype.Text{String: p.Queue, Valid: p.Queue != ""}, Kind: pgtype.Text{String: p.Kind, Valid: p.Kind != ""},
		Tag: pgtype.Text{String: p.Tag, Valid: p.Tag != ""}, FinalizedFrom: timestamptz(p.FinalizedFrom),
		FinalizedTo: timestamptz(p.FinalizedTo), After: pgtype.Int8{Int64: p.After, Valid: p.After != 0},
		Max: clampInt32(limit), // out of 1..1000: the substrate's AW010
	}
	for _, s := range p.States {
		if !slices.Contains(jobStates, s) {
			return nil, 0, fmt.Errorf("list jobs: unknown state %q: %w", s, ErrInvalidArgument)
		}
		arg.States = append(arg.States, string(s))
	}
	rows, err := d.q.ListJobs(ctx, d.on(db), arg)
	if err != nil {
		return nil, 0, fmt.Errorf("list jobs: %w", mapError(err))
	}
	out, next := listingPage(rows, limit)
	return out, next, nil
}

// ListDLQJobsParams filters and pages Driver.ListDLQJobs, as ListJobsParams
// does. Zero fields do not filter.
type ListDLQJobsParams struct {
	Queue string
	Kind  string
	// Tag lists jobs that hold this tag among theirs.
	Tag string
	// After is the cursor (the next cursor ListDLQJobs returned). Defaults
	// to the first page.
	After int64
	// Limit is the page size, 1 to 1000. Defaults to 50.
	Limit int
}

// ListDLQJobs returns one page of the DLQ's jobs, newest first, and the
// cursor of the next page (0 after the last), as ListJobs does
// (awa.list_dlq_jobs): it reads the DLQ alone, by its primary key, however
// many failed jobs outside it the other planes hold. Errors as ListJobs'.
func (d *Driver) ListDLQJobs(ctx context.Context, db DBTX, p ListDLQJobsParams) ([]JobListing, int64, error) {
	limit := p.Limit
	if limit == 0 {
		limit = 50
	}
	rows, err := d.q.ListDLQJobs(ctx, d.on(db), dbsqlc.ListDLQJobsParams{Queue: optText(p.Queue),
		Kind: optText(p.Kind), Tag: optText(p.Tag), After: pgtype.Int8{Int64: p.After, Valid: p.After != 0},
		Max: clampInt32(limit)})
	if err != nil {
		return nil, 0, fmt.Errorf("list dlq jobs: %w", mapError(err))
	}
	out, next := listingPage(rows, limit)
	return out, next, nil
}

// listingPage converts a listing's rows; next is the last id when the page
// is full (limit rows), else 0.
func listingPage(rows []dbsqlc.AwaJobListing, limit int) ([]JobListing, int64) {
	out := make([]JobListing, len(rows))
	for i, r := range rows {
		out[i] = jobListing(r)
	}
	var next int64
	if len(out) == limit {
		next = out[len(out)-1].ID
	}
	return out, next
}

// GetJob returns the job with this id wherever it lives, found by index in
// every plane (docs/storage.md, "Paging"), or ErrJobNotFound when no job has
// it (or it is no longer retained).
func (d *Driver) GetJob(ctx context.Context, db DBTX, jobID int64) (JobListing, error) {
	rows, err := d.q.GetJob(ctx, d.on(db), jobID)
	if err != nil {
		return JobListing{}, fmt.Errorf("get job %d: %w", jobID, mapError(err))
	}
	if len(rows) == 0 {
		return JobListing{}, fmt.Errorf("get job %d: %w", jobID, ErrJobNotFound)
	}
	return jobListing(rows[0]), nil
}

// jobStates are the states awa.job_state knows, for ListJobs' check.
var jobStates = []JobState{StateScheduled, StateAvailable, StateRunning, StateWaitingExternal, StateRetryable,
	StateCompleted, StateCancelled, StateFailed}

func jobListing(r dbsqlc.AwaJobListing) JobListing {
	return JobListing{ID: r.ID, Queue: r.Queue, Priority: int(r.Priority), Kind: r.Kind, State: JobState(r.State),
		Args: r.Args, Attempt: int(r.Attempt), MaxAttempts: int(r.MaxAttempts), RunLease: r.RunLease,
		RunAt: r.RunAt.Time, CreatedAt: r.CreatedAt.Time, ClaimedAt: timePtr(r.ClaimedAt),
		FinalizedAt: timePtr(r.FinalizedAt), Tags: r.Tags, Metadata: r.Metadata, Errors: r.Errors, DLQ: r.Dlq,
		Progress: r.Progress, ProgressAt: timePtr(r.ProgressAt), ExpiresAt: timePtr(r.ExpiresAt)}
}

func timePtr(t pgtype.Timestamptz) *time.Time {
	if !t.Valid {
		return nil
	}
	return &t.Time
}
