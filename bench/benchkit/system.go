package benchkit

import (
	"context"
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
}

// Run is a system worker's job body, given the job row's created_at: it
// counts the start and records its latency, then does Work. A job whose Work
// completes counts as finished.
func (h *Handler) Run(ctx context.Context, createdAt time.Time) error {
	h.jobStarted(createdAt)
	if h.Work > 0 {
		t := time.NewTimer(h.Work)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		}
	}
	h.finished.Add(1)
	return nil
}

// Started is how many jobs have started.
func (h *Handler) Started() int64 { return h.started.Load() }

// Finished is how many jobs have returned from Run without an error.
func (h *Handler) Finished() int64 { return h.finished.Load() }

func (h *Handler) jobStarted(createdAt time.Time) {
	now := time.Now()
	h.started.Add(1)
	if h.Recent != nil {
		h.Recent.Record(now, now.Sub(createdAt))
	}
	ws := h.windowStart.Load()
	if ws == 0 {
		return
	}
	c := createdAt.UnixNano()
	if c >= ws && c < h.windowEnd.Load() {
		h.latency.Record(now.Sub(createdAt))
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
	// queue; its workers run h.Run as every job's body.
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
