package driver_test

// Shared helpers of the client integration tests: a logger that records what
// the runtime logs, bounded polling, job snapshots read from awa.jobs, client
// set-up with clean-up, and a TCP proxy that can cut one client off the
// database.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/awa-queue/awa/driver"
	"github.com/awa-queue/awa/internal/pgtest"
)

// logEntry is one record the runtime logged.
type logEntry struct {
	Level slog.Level
	Msg   string
	Attrs map[string]any
}

// logRecorder is a slog.Handler that keeps every record (for assertions on
// what the runtime logged) and echoes Info and above to t.Log until the test
// ends (t.Log after the end panics, and a stopped client may still log).
type logRecorder struct {
	t     *testing.T
	name  string
	mu    sync.Mutex
	done  bool
	recs  []logEntry
	attrs []slog.Attr
	root  *logRecorder
}

// testLogger returns a logger whose records are kept by the returned recorder.
func testLogger(t *testing.T, name string) (*slog.Logger, *logRecorder) {
	r := &logRecorder{t: t, name: name}
	r.root = r
	t.Cleanup(func() {
		r.mu.Lock()
		r.done = true
		r.mu.Unlock()
	})
	return slog.New(r), r
}

func (r *logRecorder) Enabled(context.Context, slog.Level) bool { return true }

func (r *logRecorder) Handle(_ context.Context, rec slog.Record) error {
	e := logEntry{Level: rec.Level, Msg: rec.Message, Attrs: map[string]any{}}
	for _, a := range r.attrs {
		e.Attrs[a.Key] = a.Value.Any()
	}
	rec.Attrs(func(a slog.Attr) bool {
		e.Attrs[a.Key] = a.Value.Any()
		return true
	})
	root := r.root
	root.mu.Lock()
	defer root.mu.Unlock()
	root.recs = append(root.recs, e)
	if !root.done && rec.Level >= slog.LevelInfo {
		var b strings.Builder
		for k, v := range e.Attrs {
			fmt.Fprintf(&b, " %s=%v", k, v)
		}
		root.t.Logf("[%s] %s %s%s", root.name, rec.Level, rec.Message, b.String())
	}
	return nil
}

func (r *logRecorder) WithAttrs(as []slog.Attr) slog.Handler {
	return &logRecorder{root: r.root, attrs: append(append([]slog.Attr{}, r.attrs...), as...)}
}

func (r *logRecorder) WithGroup(string) slog.Handler { return r }

// find returns the records whose message contains msg and that match pred.
func (r *logRecorder) find(msg string, pred func(logEntry) bool) []logEntry {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []logEntry
	for _, e := range r.recs {
		if strings.Contains(e.Msg, msg) && (pred == nil || pred(e)) {
			out = append(out, e)
		}
	}
	return out
}

// waitFor polls cond every 20ms until it holds or timeout passes, then fails
// the test with what and cond's last detail.
func waitFor(t *testing.T, timeout time.Duration, what string, cond func() (bool, string)) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		ok, detail := cond()
		if ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %s waiting for %s; last state: %s", timeout, what, detail)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// fastMaintenance is a maintenance configuration for tests: quick promotion
// and election, and rings that never rotate during a test.
func fastMaintenance() *driver.MaintenanceConfig {
	return &driver.MaintenanceConfig{
		// The elector's calls time out after ElectInterval: too short an
		// interval loses elections on a loaded machine.
		LeaderTTL:          2 * time.Second,
		ElectInterval:      250 * time.Millisecond,
		PromoteInterval:    50 * time.Millisecond,
		RescueInterval:     200 * time.Millisecond,
		DeadlineInterval:   200 * time.Millisecond,
		QueueRingInterval:  time.Hour,
		ClaimRingInterval:  time.Hour,
		LeaseRingInterval:  time.Hour,
		CursorRingInterval: time.Hour,
	}
}

// startClient creates and starts a client; it is stopped hard (bounded) when
// the test ends unless the test stopped it already.
func startClient(t *testing.T, pool *pgxpool.Pool, cfg *driver.Config) *driver.Client {
	t.Helper()
	c, _ := startClientWith(t, pool, cfg, false)
	return c
}

// startClientEvents is startClient with every event of the client, from
// before its start, collected.
func startClientEvents(t *testing.T, pool *pgxpool.Pool, cfg *driver.Config) (*driver.Client, *eventLog) {
	t.Helper()
	return startClientWith(t, pool, cfg, true)
}

func startClientWith(t *testing.T, pool *pgxpool.Pool, cfg *driver.Config, withEvents bool) (*driver.Client, *eventLog) {
	t.Helper()
	c, err := driver.NewClient(pool, cfg)
	if err != nil {
		t.Fatalf("NewClient: %v", err)
	}
	var events *eventLog
	if withEvents {
		ch, cancel := c.Subscribe()
		t.Cleanup(cancel)
		events = collect(ch)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := c.Start(ctx); err != nil {
		t.Fatalf("Start: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := c.StopAndCancel(ctx); err != nil {
			t.Errorf("clean-up StopAndCancel: %v", err)
		}
	})
	return c, events
}

// eventLog collects a subscription's events until its channel closes.
type eventLog struct {
	mu     sync.Mutex
	events []*driver.Event
	closed chan struct{}
}

func collect(ch <-chan *driver.Event) *eventLog {
	l := &eventLog{closed: make(chan struct{})}
	go func() {
		defer close(l.closed)
		for e := range ch {
			l.mu.Lock()
			l.events = append(l.events, e)
			l.mu.Unlock()
		}
	}()
	return l
}

// of returns the events of kind that match pred (nil: all).
func (l *eventLog) of(kind driver.EventKind, pred func(*driver.Event) bool) []*driver.Event {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []*driver.Event
	for _, e := range l.events {
		if e.Kind == kind && (pred == nil || pred(e)) {
			out = append(out, e)
		}
	}
	return out
}

func (l *eventLog) kinds() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := map[driver.EventKind]int{}
	for _, e := range l.events {
		n[e.Kind]++
	}
	return fmt.Sprint(n)
}

// jobError is one element of a job's errors array.
type jobError struct {
	Attempt int       `json:"attempt"`
	At      time.Time `json:"at"`
	Error   string    `json:"error"`
}

// jobSnap is one row of awa.jobs.
type jobSnap struct {
	ID          int64
	State       string
	Kind, Queue string
	Args        json.RawMessage
	Attempt     int
	MaxAttempts int
	RunLease    int64
	Errors      []jobError
	DLQ         bool
}

func (j jobSnap) String() string {
	return fmt.Sprintf("{id %d %s kind=%s queue=%s attempt %d/%d run_lease %d dlq=%v errors=%+v}",
		j.ID, j.State, j.Kind, j.Queue, j.Attempt, j.MaxAttempts, j.RunLease, j.DLQ, j.Errors)
}

type querier interface {
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
}

// jobRows returns every awa.jobs row of id (one, unless something is wrong).
func jobRows(t *testing.T, db querier, id int64) []jobSnap {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	// On a pool of a database that defaults to REPEATABLE READ, a read that
	// waited behind a ring prune raises 40001 (docs/storage.md, "Read
	// surfaces"): retried, as the contract says.
	var out []jobSnap
	var err error
	for attempt := 1; attempt == 1 || (attempt <= 10 && isSerializationFailure(err)); attempt++ {
		out, err = readJobRows(ctx, db, id)
	}
	if err != nil {
		t.Fatalf("read awa.jobs for job %d: %v", id, err)
	}
	return out
}

// readJobRows is one read of job id's awa.jobs rows.
func readJobRows(ctx context.Context, db querier, id int64) ([]jobSnap, error) {
	rows, err := db.Query(ctx, `
		SELECT id, state::text, kind, queue, args, attempt, max_attempts, run_lease,
		       coalesce(errors, '[]'::jsonb), dlq
		FROM awa.jobs WHERE id = $1`, id)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (jobSnap, error) {
		var j jobSnap
		var errs []byte
		err := r.Scan(&j.ID, &j.State, &j.Kind, &j.Queue, &j.Args, &j.Attempt, &j.MaxAttempts, &j.RunLease, &errs, &j.DLQ)
		if err == nil {
			err = json.Unmarshal(errs, &j.Errors)
		}
		return j, err
	})
}

// isSerializationFailure reports whether err is PostgreSQL's 40001.
func isSerializationFailure(err error) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && pgErr.Code == "40001"
}

// waitJobState waits until awa.jobs shows id in state (exactly one row) and
// returns that row.
func waitJobState(t *testing.T, db querier, id int64, state string, timeout time.Duration) jobSnap {
	t.Helper()
	var last []jobSnap
	waitFor(t, timeout, fmt.Sprintf("job %d to be %s", id, state), func() (bool, string) {
		last = jobRows(t, db, id)
		return len(last) == 1 && last[0].State == state, fmt.Sprintf("%v", last)
	})
	return last[0]
}

// errorsContain reports whether any recorded error contains s.
func errorsContain(errs []jobError, s string) bool {
	for _, e := range errs {
		if strings.Contains(e.Error, s) {
			return true
		}
	}
	return false
}

// tcpProxy forwards local connections to a PostgreSQL server until Cut,
// which drops every open connection and refuses new ones: the database
// vanishes for the clients behind it, and only for them.
type tcpProxy struct {
	ln       net.Listener
	upstream string
	mu       sync.Mutex
	cut      bool
	conns    map[net.Conn]struct{}
	wg       sync.WaitGroup
}

func newTCPProxy(t *testing.T, upstream string) *tcpProxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("proxy listen: %v", err)
	}
	p := &tcpProxy{ln: ln, upstream: upstream, conns: map[net.Conn]struct{}{}}
	p.wg.Add(1)
	go p.accept()
	t.Cleanup(p.Cut)
	return p
}

func (p *tcpProxy) addr() *net.TCPAddr { return p.ln.Addr().(*net.TCPAddr) }

func (p *tcpProxy) accept() {
	defer p.wg.Done()
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		u, err := net.DialTimeout("tcp", p.upstream, 10*time.Second)
		if err != nil {
			c.Close()
			continue
		}
		p.mu.Lock()
		if p.cut {
			p.mu.Unlock()
			c.Close()
			u.Close()
			return
		}
		p.conns[c], p.conns[u] = struct{}{}, struct{}{}
		p.mu.Unlock()
		pipe := func(dst, src net.Conn) {
			defer p.wg.Done()
			_, _ = io.Copy(dst, src)
			dst.Close()
			src.Close()
		}
		p.wg.Add(2)
		go pipe(c, u)
		go pipe(u, c)
	}
}

// Cut closes the listener and every forwarded connection (idempotent).
func (p *tcpProxy) Cut() {
	p.mu.Lock()
	if p.cut {
		p.mu.Unlock()
		return
	}
	p.cut = true
	p.ln.Close()
	for c := range p.conns {
		c.Close()
	}
	p.mu.Unlock()
	p.wg.Wait()
}

// poolThrough opens a pool on dsn's database that connects through the proxy
// and names its sessions appName (to find its backends in pg_stat_activity).
func poolThrough(t *testing.T, dsn string, p *tcpProxy, appName string) *pgxpool.Pool {
	t.Helper()
	cfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		t.Fatalf("parse DSN: %v", err)
	}
	if p != nil {
		cfg.ConnConfig.Host = "127.0.0.1"
		cfg.ConnConfig.Port = uint16(p.addr().Port)
		cfg.ConnConfig.Fallbacks = nil
	}
	cfg.ConnConfig.ConnectTimeout = 5 * time.Second
	cfg.ConnConfig.RuntimeParams["application_name"] = appName
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		t.Fatalf("open pool %s: %v", appName, err)
	}
	if err := pool.Ping(ctx); err != nil {
		t.Fatalf("ping pool %s: %v", appName, err)
	}
	t.Cleanup(pool.Close)
	return pool
}

// upstreamAddr is host:port of the server dsn names.
func upstreamAddr(t *testing.T, dsn string) string {
	t.Helper()
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		t.Fatalf("parse DSN: %v", err)
	}
	return net.JoinHostPort(cfg.Host, fmt.Sprint(cfg.Port))
}

// parallelDB marks t parallel and returns a context that ends with the test
// or after d (pgtest.Context) and a fresh migrated database.
func parallelDB(t *testing.T, d time.Duration) (context.Context, *pgxpool.Pool) {
	t.Helper()
	t.Parallel()
	return pgtest.Context(t, d), pgtest.NewDB(t)
}

// workersFor returns a worker set with fn as its one worker (of kind T).
func workersFor[T driver.JobArgs](fn func(ctx context.Context, j *driver.Job[T]) error) *driver.Workers {
	workers := driver.NewWorkers()
	driver.AddWorker(workers, driver.WorkFunc(fn))
	return workers
}

// workConfig is the client configuration most tests share: queue worked by
// maxWorkers workers, workers, log, a 50 ms fetch poll and fastMaintenance(),
// on top of cfg (nil for none), which holds what the test sets besides.
func workConfig(queue string, maxWorkers int, workers *driver.Workers, log *slog.Logger, cfg *driver.Config) *driver.Config {
	if cfg == nil {
		cfg = &driver.Config{}
	}
	cfg.Queues = map[string]driver.QueueConfig{queue: {MaxWorkers: maxWorkers}}
	cfg.Workers = workers
	cfg.Logger = log
	cfg.FetchPollInterval = 50 * time.Millisecond
	cfg.Maintenance = fastMaintenance()
	return cfg
}

// countingWorkers returns a worker set whose one worker (of kind T) counts
// its runs and succeeds, and the count.
func countingWorkers[T driver.JobArgs]() (*driver.Workers, *atomic.Int64) {
	var runs atomic.Int64
	return workersFor(func(ctx context.Context, j *driver.Job[T]) error {
		runs.Add(1)
		return nil
	}), &runs
}
