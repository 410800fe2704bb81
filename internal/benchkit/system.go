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
}

// Kind is the job kind of every run.
func (JobArgs) Kind() string { return "bench" }

// Handler is the job body shared by the systems: it does no work, counts the
// job and, inside the measurement window, records insert→start latency (the
// job row's created_at, set by the database clock at insert, against the
// worker's clock at start; both run on this machine).
type Handler struct {
	started     atomic.Int64
	windowStart atomic.Int64 // unix ns; 0 = record nothing
	windowEnd   atomic.Int64
	latency     Histogram
}

// JobStarted is what a system's worker calls first for every job, with the
// job row's created_at.
func (h *Handler) JobStarted(createdAt time.Time) {
	now := time.Now()
	h.started.Add(1)
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
	// queue; its workers call h.JobStarted for every job.
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
