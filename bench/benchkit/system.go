package benchkit

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// JobArgs is the job payload of every run, for every system.
type JobArgs struct {
	N int `json:"n"`
	// Pad pads the payload to a size (the adapter's JOB_PAYLOAD_BYTES);
	// empty, it is left out.
	Pad string `json:"pad,omitempty"`
	// Fail (mixed scenario) makes the job's first attempt return an error,
	// so the system retries it once; Delayed marks a job inserted to run at
	// At (the system's scheduled-job option), not at once. At is not stored
	// in the payload.
	Fail    bool      `json:"fail,omitempty"`
	Delayed bool      `json:"delayed,omitempty"`
	At      time.Time `json:"-"`
}

// Kind is the job kind of every run.
func (JobArgs) Kind() string { return "bench" }

// Handler is the job body shared by the systems: it counts the job and,
// inside the measurement window, records insert→start latency (the job row's
// created_at, set by the database clock at insert, against the worker's clock
// at start; both run on this machine). It does no work unless Work is set.
type Handler struct {
	// Work is synthetic work every job does after it starts: a sleep, cut
	// short when the job's context ends. Zero, as in the scenarios, does none.
	Work time.Duration
	// Recent, when set, also gets every job's insert→start latency at its
	// start, whatever the measurement window (the adapter's rolling
	// percentiles).
	Recent *RollingHistogram
	// Rings, when set, counts the ring maintenance outcomes of the worker
	// client while it runs (awa: its maintenance leader's rotate and prune
	// attempts; a system without ring maintenance leaves it empty).
	Rings *RingTally

	started     atomic.Int64
	finished    atomic.Int64
	windowStart atomic.Int64 // unix ns; 0 = record nothing
	windowEnd   atomic.Int64
	latency     Histogram
	// toClaim and claimToStart split latency at the claim (Attempt.Claimed).
	toClaim, claimToStart Histogram

	// Mixed scenario (RunAttempt): first attempts that failed on purpose,
	// later attempts started, and the due→start latency of delayed jobs.
	failedOnPurpose atomic.Int64
	retriesStarted  atomic.Int64
	dueLatency      Histogram
	// retryDueLatency: due→start of the retries, from the run_at the
	// system's backoff gave them.
	retryDueLatency Histogram
}

// Attempt is what RunAttempt needs of a claimed job besides its args.
type Attempt struct {
	CreatedAt time.Time // the job row's created_at
	Due       time.Time // when it was due (awa run_at, River scheduled_at)
	Number    int       // 1 for the first attempt
	// Claimed is when the claim ran (awa claimed_at, the database's clock);
	// zero when the system does not say.
	Claimed time.Time
}

// errPlanned is the error of a first attempt the mixed scenario fails.
var errPlanned = errors.New("bench: planned failure of a first attempt")

// RunAttempt is a system worker's job body when the job may be delayed or
// planned to fail (the mixed scenario): a first attempt of an immediate job
// records its insert→start latency as Run does, a first attempt of a delayed
// job its due→start latency instead; a retry records its due→start latency
// from the time its backoff made it due (not the backoff itself). After Work, a first attempt of a job marked Fail
// returns an error; everything else finishes.
func (h *Handler) RunAttempt(ctx context.Context, a JobArgs, at Attempt) error {
	switch {
	case at.Number > 1:
		now := time.Now()
		h.started.Add(1)
		h.retriesStarted.Add(1)
		if h.inWindow(at.CreatedAt) {
			h.retryDueLatency.Record(now.Sub(at.Due))
		}
	case a.Delayed:
		now := time.Now()
		h.started.Add(1)
		if h.inWindow(at.CreatedAt) {
			h.dueLatency.Record(now.Sub(at.Due))
		}
	default:
		h.jobStarted(at.CreatedAt, at.Claimed)
	}
	if h.Work > 0 {
		t := time.NewTimer(h.Work)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		}
	}
	if a.Fail && at.Number == 1 {
		h.failedOnPurpose.Add(1)
		return errPlanned
	}
	h.finished.Add(1)
	return nil
}

// inWindow tells whether a job created at createdAt is one the measurement
// window records.
func (h *Handler) inWindow(createdAt time.Time) bool {
	ws := h.windowStart.Load()
	c := createdAt.UnixNano()
	return ws != 0 && c >= ws && c < h.windowEnd.Load()
}

// Run is a system worker's job body, given the job row's created_at: it
// counts the start and records its latency, then does Work. A job whose Work
// completes counts as finished. (RunAttempt with a first attempt of a plain
// job.)
func (h *Handler) Run(ctx context.Context, createdAt time.Time) error {
	return h.RunAttempt(ctx, JobArgs{}, Attempt{CreatedAt: createdAt, Due: createdAt, Number: 1})
}

// Started is how many jobs have started.
func (h *Handler) Started() int64 { return h.started.Load() }

// Finished is how many jobs have returned from Run without an error.
func (h *Handler) Finished() int64 { return h.finished.Load() }

func (h *Handler) jobStarted(createdAt, claimed time.Time) {
	now := time.Now()
	h.started.Add(1)
	if h.Recent != nil {
		h.Recent.Record(now, now.Sub(createdAt))
	}
	if h.inWindow(createdAt) {
		h.latency.Record(now.Sub(createdAt))
		if !claimed.IsZero() {
			h.toClaim.Record(claimed.Sub(createdAt))
			h.claimToStart.Record(now.Sub(claimed))
		}
	}
}

// Stopper is a started worker client.
type Stopper interface {
	Stop(ctx context.Context) error
}

// Inserter enqueues jobs through a system's client API.
type Inserter interface {
	// One inserts a single job in its own transaction (awa:
	// SELECT * FROM awa.insert_job(...); River: Client.Insert).
	One(ctx context.Context, a JobArgs) error
	// Many inserts jobs in one transaction through the regular multi-row path
	// that returns the inserted rows (awa: awa.insert_jobs; River: InsertMany).
	Many(ctx context.Context, as []JobArgs) error
	// Bulk inserts jobs in one transaction through the system's fastest bulk
	// path (awa: awa.insert_jobs in calls of 10,000; River: InsertManyFast, COPY).
	Bulk(ctx context.Context, as []JobArgs) error
}

// System is one queue under test.
type System interface {
	Name() string
	// Migrate installs the system's schema into the database of dsn.
	Migrate(ctx context.Context, dsn string) error
	// Start starts a worker client on pool with w workers on the default
	// queue; its workers run h.RunAttempt as every job's body.
	Start(ctx context.Context, pool *pgxpool.Pool, w int, h *Handler) (Stopper, error)
	// Inserter returns an insert-only client on pool.
	Inserter(pool *pgxpool.Pool) (Inserter, error)
	// Pending returns the jobs available and running (not yet finalized).
	// Its query carries the /*bench*/ tag, so the statement profile leaves it out.
	Pending(ctx context.Context, conn *pgx.Conn) (available, running int64, err error)
	// OwnsTable says whether a table (schema, name) belongs to the system.
	OwnsTable(schema, name string) bool
	// Settings describes the client settings used, for the report.
	Settings(w int) map[string]string
}

// QuietLogger discards everything: for the insert-only clients.
func QuietLogger() *slog.Logger {
	return slog.New(slog.DiscardHandler)
}

// WarnLogger logs warnings and errors to w: for the worker clients.
func WarnLogger(w io.Writer) *slog.Logger {
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: slog.LevelWarn}))
}

// Fixed is a system configuration that runs at workers and pool size of its
// own rather than the sweep's (River as its own bench command configures its
// client). Config names it in the report.
type Fixed interface {
	System
	Config() string
	Fixed() (workers, conns int)
}

// PoolTuner is a system that sets up its worker pool itself, past its size
// (River's own bench command sets session parameters on its pool).
type PoolTuner interface {
	TunePool(cfg *pgxpool.Config)
}
