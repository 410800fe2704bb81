package driver

import (
	"crypto/rand"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"

	"github.com/awa-queue/awa/internal/sqlschema"
)

// QueueConfig configures how a client works one queue.
type QueueConfig struct {
	// MaxWorkers is how many jobs of the queue run at once in this process,
	// in slots: a job of weight w (InsertOpts.Weight) takes min(w,
	// MaxWorkers) of them.
	// Required (at least 1).
	MaxWorkers int
}

// Config configures a Client. A nil *Config, or zero fields, take defaults;
// NewClient rejects a field outside its documented range with
// ErrInvalidConfig (it never silently changes a value).
type Config struct {
	// Schema is the schema awa is installed in (db.SchemaProvider, `awa
	// migrate -schema`): every call, notification channel and COPY stage of
	// the client is that install's, and installs side by side in one
	// database never see each other's jobs. Defaults to "awa".
	Schema string
	// Queues to work, by name. Leave empty for an insert-only client.
	Queues map[string]QueueConfig
	// Workers runs claimed jobs by kind. Required when Queues is not empty.
	Workers *Workers
	// Logger receives the client's logs. Defaults to slog.Default().
	Logger *slog.Logger
	// FetchBatchSize caps the jobs claimed in one call (1..1024). Defaults to
	// each queue's MaxWorkers, at most 1024: a queue claims for all its free
	// slots in one call. One claim call is in flight per queue, so the cap
	// bounds a busy queue's jobs/s by cap / claim round trip (100 held a
	// 2,000-worker burn-down to about half of what 1,024 gives).
	FetchBatchSize int
	// FetchPollInterval is how often the client polls for work that came
	// without a notification (notifications can be lost, e.g. behind a
	// transaction-mode pooler): one statement per interval for all its
	// queues together (awa.queues_ready), which wakes only the queues that
	// hold work. Defaults to 1s.
	FetchPollInterval time.Duration
	// JobTimeout bounds each job's run through its context; a Worker can
	// override it with WorkerTimeout. Negative means no timeout of its own
	// (RescueStuckAfter still bounds every attempt). Defaults to 1 minute.
	JobTimeout time.Duration
	// UnknownKindDelay is how long a job whose kind this client has no worker
	// for waits before it is offered again: the client hands it back
	// untouched, its attempt not counted (a snooze), so that a process that
	// knows the kind runs it, as during a rolling deploy where old and new
	// processes know different kinds. Negative fails such a job at once
	// instead (the behaviour before). Defaults to 5s.
	UnknownKindDelay time.Duration
	// JobTimeoutGrace is how long a handler may keep running after its
	// context ended (its timeout, its attempt deadline or StopAndCancel)
	// before the runtime abandons it: the attempt is then retried at once
	// ("did not return within its timeout"), the handler's slot stays taken
	// until it really returns, and its late result is dropped. Must not be
	// negative. Defaults to 10s.
	JobTimeoutGrace time.Duration
	// RescueStuckAfter is how long after its claim an attempt is closed (and
	// retried) by the maintenance leader even though its process still
	// heartbeats: the bound for an attempt whose result cannot be finalized
	// or whose handler never returns. Every claim carries as its attempt
	// deadline the longer of RescueStuckAfter and the longest WorkerTimeout
	// of the client's workers (as known at NewClient) plus JobTimeoutGrace;
	// a queue's shorter deadline_seconds wins. A job whose own timeout (its
	// WorkerTimeout for its args) outlasts that gets a deadline of its own
	// before it runs, and a handler may move its attempt's deadline
	// (JobRow.SetDeadline). The handler's context ends at the deadline too.
	// Must exceed JobTimeout. Defaults to 1 hour.
	RescueStuckAfter time.Duration
	// CompleterBatchSize caps the jobs finalized in one SQL call. Defaults to 500.
	CompleterBatchSize int
	// CompleterFlushInterval is how long a finished job may wait for others
	// to share its finalizer call. Defaults to 2ms.
	CompleterFlushInterval time.Duration
	// CompleterRetryInterval is how often results whose finalizer calls kept
	// failing through the fast retries (about 5s) are tried again, one
	// result per call, until applied or stale. Defaults to 5s.
	CompleterRetryInterval time.Duration
	// CallbackPollInterval is how often JobRow.WaitForCallback asks whether
	// its callback was resumed; a resume's notification wakes it at once
	// (unless DisableListen). Defaults to 1s.
	CallbackPollInterval time.Duration
	// HeartbeatInterval is how often the process refreshes its heartbeat,
	// which keeps its running jobs from stale rescue. Defaults to 5s.
	HeartbeatInterval time.Duration
	// DisableListen turns LISTEN/NOTIFY off; queues are then polled only.
	DisableListen bool
	// ListenDSN is a connection string for the one connection that LISTENs
	// for new jobs. Behind a transaction-mode pooler (PgBouncer with
	// pool_mode = transaction) LISTEN receives nothing, so point it at
	// PostgreSQL directly (or at a session-mode pooler). Defaults to a
	// connection taken from the pool.
	ListenDSN string
	// ListenWatchWindow: when no notification arrives for a whole window
	// while at least 3 claims woken by the poll find jobs, the client logs a
	// warning and sends EventNotificationsMissing. At least 3 x
	// FetchPollInterval. Defaults to 1 minute, or 3 x FetchPollInterval when
	// that is longer.
	ListenWatchWindow time.Duration
	// Maintenance configures the maintenance services the elected leader
	// runs. Defaults to DefaultMaintenance().
	Maintenance *MaintenanceConfig
	// DisableMaintenance keeps this client out of leader election.
	DisableMaintenance bool
	// PeriodicJobs declares periodic (cron) jobs. The client stores them
	// (awa.upsert_periodic_job) each time it becomes maintenance leader, and
	// while it leads it fires them; a schedule removed from this list stays
	// in the database until deleted (Driver.DeletePeriodicJob). Needs
	// maintenance: must be empty with DisableMaintenance.
	PeriodicJobs []*PeriodicJob
	// InstanceID names this process in heartbeats and claims. Defaults to a
	// random id.
	InstanceID [16]byte
	// MeterProvider provides the client's metrics (docs/observability.md);
	// OpenTelemetry's no-op provider (go.opentelemetry.io/otel/metric/noop)
	// turns them off altogether. Defaults to otel.GetMeterProvider(), the
	// application's global provider, which records nothing until the
	// application sets one.
	MeterProvider metric.MeterProvider
	// TracerProvider provides the client's spans: one per insert call, per
	// claim call that took jobs, and per handler run, in the handler's
	// context. The no-op provider (go.opentelemetry.io/otel/trace/noop) turns
	// them off. Defaults to otel.GetTracerProvider(): no span until the
	// application sets a global provider.
	TracerProvider trace.TracerProvider
	// Propagator writes an insert's trace context into its job's metadata
	// (keys traceparent and tracestate, W3C Trace Context) and reads it back
	// for the handler's span, so it must handle those keys
	// (propagation.TraceContext, alone or in a composite). Defaults to
	// otel.GetTextMapPropagator(), which carries nothing until the
	// application sets one.
	Propagator propagation.TextMapPropagator

	// periodic is PeriodicJobs checked, as the leader upserts them.
	periodic []PeriodicJobParams
}

// MaintenanceConfig configures leader election and the maintenance services
// the leader runs. Zero fields take the defaults of DefaultMaintenance.
type MaintenanceConfig struct {
	// LeaderTTL is how long leadership lasts without renewal; a dead leader is
	// replaced within about this long. Defaults to 5s.
	LeaderTTL time.Duration
	// ElectInterval is how often every process tries to take or renew
	// leadership; at most LeaderTTL/4, so a leader renews well within its
	// TTL. Defaults to 1s, or LeaderTTL/4 when that is shorter.
	ElectInterval time.Duration
	// ServiceTimeout bounds each maintenance call. Defaults to 10s.
	ServiceTimeout time.Duration
	// PromoteInterval caps the promoter's sleep. The promoter makes due
	// scheduled, retried and snoozed jobs available when the next one falls
	// due (awa.next_promotion), woken early by a job written due sooner
	// (through the listener, awa:+promote), passes at least 10ms apart; it
	// looks again at least this often, which bounds a job's wait when a
	// wake-up is missed or the client has no listener. Defaults to 1s.
	PromoteInterval time.Duration
	// RescueInterval: stale-heartbeat rescue. Defaults to 5s.
	RescueInterval time.Duration
	// RescueStaleAfter: a process whose heartbeat is older than this has its
	// running jobs rescued. Keep it several HeartbeatIntervals. Defaults to 90s.
	RescueStaleAfter time.Duration
	// DeadlineInterval: rescue of attempts past their queue deadline. Defaults to 1s.
	DeadlineInterval time.Duration
	// CallbackInterval: rescue of callbacks past their timeout
	// (awa.rescue_expired_callbacks): their jobs are retried. Defaults to 1s.
	CallbackInterval time.Duration
	// QueueRingInterval, ClaimRingInterval, LeaseRingInterval: one rotate then
	// one prune per tick. A rotation is skipped when the ring's last rotation
	// (by any leader) is younger than the interval, so a leader change does
	// not rotate early. A prune that carried available jobs out of a slot
	// (up to BatchSize per call) is repeated in the same tick, for at most a
	// quarter of the interval. Default to 5s, 2s and 5s.
	QueueRingInterval, ClaimRingInterval, LeaseRingInterval time.Duration
	// CursorRingInterval: one prune then one rotate of the cursor ring (the
	// claim marks) per tick. With its 2 slots a rotation needs the other slot
	// pruned first, so a mark lives at most about 2 intervals; a lane idle
	// for a whole interval gets its cursor floor raised (one row update).
	// Defaults to 2s.
	CursorRingInterval time.Duration
	// KeepSealedQueueSlots is how many recently sealed queue-ring slots prune
	// leaves alone: terminal history stays readable in awa.jobs for about
	// KeepSealedQueueSlots x QueueRingInterval. Capped by the substrate at
	// slot count - 2 (14 with the default 16 slots), which is the default;
	// negative keeps none.
	KeepSealedQueueSlots int
	// PruneLockTimeout bounds prune's wait for a slot's locks; at least 1ms.
	// Defaults to 50ms.
	PruneLockTimeout time.Duration
	// DLQRetention: DLQ jobs older than this are purged. Defaults to 30 days;
	// negative keeps them forever.
	DLQRetention time.Duration
	// DLQCleanupInterval is also the interval of the process-row cleanup.
	// Defaults to 1 minute.
	DLQCleanupInterval time.Duration
	// ArchiveInterval: one pass of awa.maintain_archive (create the archive's
	// cohort partitions ahead, drain its DEFAULT partition, drop cohorts
	// whose retention has passed, each lock waited for at most
	// PruneLockTimeout), of awa.cleanup_unique_keys (the unique key rows
	// of jobs history no longer has, BatchSize at most) and of
	// awa.retire_idle_key_lanes (key lanes drained and listed for a minute
	// leave the claims' rotation, BatchSize at most). Defaults to 1 minute.
	ArchiveInterval time.Duration
	// QueueDepthInterval is how often the leader reads awa.queue_depths for
	// the queue gauges of the client's metrics (docs/observability.md); it
	// reads nothing when Config.MeterProvider is the no-op provider. Defaults
	// to 10s.
	QueueDepthInterval time.Duration
	// BatchSize caps the jobs one promotion, rescue or prune call moves (a
	// prune call at most 100000). Defaults to 1000.
	BatchSize int
	// PeriodicInterval: evaluation of the periodic jobs; a job fires at most
	// this long after its fire time, and a schedule more frequent fires at
	// most once per tick (docs/periodic.md). Defaults to 1s.
	PeriodicInterval time.Duration
	// InstanceRetention: rows of processes silent for longer are deleted
	// (their claims were rescued long before); at least a minute and
	// 2 x RescueStaleAfter. Defaults to 1 hour, or 2 x RescueStaleAfter when
	// that is longer.
	InstanceRetention time.Duration
}

// DefaultMaintenance returns the default maintenance configuration.
func DefaultMaintenance() *MaintenanceConfig {
	m := (&MaintenanceConfig{}).withDefaults(&configCheck{})
	return &m
}

// configCheck collects the invalid fields of a configuration.
type configCheck struct {
	errs []error
}

// reject records that field's value breaks rule ("must <rule>").
func (c *configCheck) reject(field string, value any, rule string) {
	c.errs = append(c.errs, fmt.Errorf("%w: %s must %s, got %v", ErrInvalidConfig, field, rule, value))
}

// duration fills a zero *d with def and rejects a negative one.
func (c *configCheck) duration(field string, d *time.Duration, def time.Duration) {
	switch {
	case *d == 0:
		*d = def
	case *d < 0:
		c.reject(field, *d, "not be negative")
	}
}

// count fills a zero *n with def and rejects one outside 1..max (max 0: no upper bound).
func (c *configCheck) count(field string, n *int, def, max int) {
	switch {
	case *n == 0:
		*n = def
	case *n < 0 || max > 0 && *n > max:
		rule := "be positive"
		if max > 0 {
			rule = fmt.Sprintf("be between 1 and %d", max)
		}
		c.reject(field, *n, rule)
	}
}

func (c *configCheck) err() error {
	if len(c.errs) == 1 {
		return c.errs[0]
	}
	return errors.Join(c.errs...)
}

// withDefaults returns the configuration with defaults in its zero fields, or
// ErrInvalidConfig errors naming every invalid field and its value.
func (c *Config) withDefaults() (Config, error) {
	var cfg Config
	if c != nil {
		cfg = *c
	}
	var chk configCheck
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.Schema == "" {
		cfg.Schema = DefaultSchema
	} else if err := sqlschema.Check(cfg.Schema); err != nil {
		chk.reject("Config.Schema", cfg.Schema, fmt.Sprintf("be 1 to %d characters of [a-z0-9_], not starting with a digit or pg_", sqlschema.MaxLen))
	}
	if len(cfg.Queues) > 0 && cfg.Workers == nil {
		chk.reject("Config.Workers", "nil", "be set to work queues")
	}
	for name, q := range cfg.Queues {
		if q.MaxWorkers < 1 {
			chk.reject(fmt.Sprintf("Config.Queues[%q].MaxWorkers", name), q.MaxWorkers, "be at least 1")
		}
	}
	chk.count("Config.FetchBatchSize", &cfg.FetchBatchSize, 0, 1024) // 0: per queue (queueRunner.fetchBatch)
	chk.duration("Config.FetchPollInterval", &cfg.FetchPollInterval, time.Second)
	chk.duration("Config.ListenWatchWindow", &cfg.ListenWatchWindow, max(time.Minute, 3*cfg.FetchPollInterval))
	if cfg.ListenWatchWindow > 0 && cfg.FetchPollInterval > 0 && cfg.ListenWatchWindow < 3*cfg.FetchPollInterval {
		chk.reject("Config.ListenWatchWindow", cfg.ListenWatchWindow,
			fmt.Sprintf("be at least 3 x FetchPollInterval (%s)", 3*cfg.FetchPollInterval))
	}
	if cfg.ListenDSN != "" {
		if _, err := pgx.ParseConfig(cfg.ListenDSN); err != nil {
			chk.reject("Config.ListenDSN", "(not shown)", fmt.Sprintf("be a valid connection string (%v)", err))
		}
	}
	if cfg.JobTimeout == 0 { // negative: no timeout of its own
		cfg.JobTimeout = time.Minute
	}
	chk.duration("Config.JobTimeoutGrace", &cfg.JobTimeoutGrace, 10*time.Second)
	if cfg.UnknownKindDelay == 0 {
		cfg.UnknownKindDelay = 5 * time.Second
	}
	switch {
	case cfg.RescueStuckAfter == 0:
		cfg.RescueStuckAfter = time.Hour
	case cfg.RescueStuckAfter < 0:
		chk.reject("Config.RescueStuckAfter", cfg.RescueStuckAfter, "be positive")
	}
	if cfg.JobTimeout > 0 && cfg.RescueStuckAfter > 0 && cfg.RescueStuckAfter <= cfg.JobTimeout {
		chk.reject("Config.RescueStuckAfter", cfg.RescueStuckAfter, fmt.Sprintf("exceed JobTimeout (%s)", cfg.JobTimeout))
	}
	chk.count("Config.CompleterBatchSize", &cfg.CompleterBatchSize, 500, 0)
	chk.duration("Config.CompleterFlushInterval", &cfg.CompleterFlushInterval, 2*time.Millisecond)
	chk.duration("Config.CompleterRetryInterval", &cfg.CompleterRetryInterval, 5*time.Second)
	chk.duration("Config.HeartbeatInterval", &cfg.HeartbeatInterval, 5*time.Second)
	chk.duration("Config.CallbackPollInterval", &cfg.CallbackPollInterval, time.Second)
	var m MaintenanceConfig
	if cfg.Maintenance != nil {
		m = *cfg.Maintenance
	}
	m = m.withDefaults(&chk)
	cfg.Maintenance = &m
	if cfg.DisableMaintenance && len(cfg.PeriodicJobs) > 0 {
		chk.reject("Config.PeriodicJobs", fmt.Sprintf("%d jobs", len(cfg.PeriodicJobs)),
			"be empty with DisableMaintenance (only a maintenance leader declares and fires them)")
	}
	cfg.periodic = periodicDeclarations(cfg.PeriodicJobs, &chk)
	if cfg.InstanceID == [16]byte{} {
		_, _ = rand.Read(cfg.InstanceID[:])
		cfg.InstanceID[6] = cfg.InstanceID[6]&0x0f | 0x40 // UUID v4
		cfg.InstanceID[8] = cfg.InstanceID[8]&0x3f | 0x80
	}
	if len(chk.errs) > 0 {
		return Config{}, chk.err()
	}
	return cfg, nil
}

// withDefaults fills m's zero fields and records its invalid ones in chk.
func (m *MaintenanceConfig) withDefaults(chk *configCheck) MaintenanceConfig {
	c := *m
	const p = "Config.Maintenance."
	chk.duration(p+"LeaderTTL", &c.LeaderTTL, 5*time.Second)
	// Renew well within the TTL: a leader that cannot renew steps down after
	// TTL/2, before anyone else can take the lease.
	chk.duration(p+"ElectInterval", &c.ElectInterval, min(time.Second, c.LeaderTTL/4))
	if c.LeaderTTL > 0 && c.ElectInterval > c.LeaderTTL/4 {
		chk.reject(p+"ElectInterval", c.ElectInterval, fmt.Sprintf("be at most LeaderTTL/4 (%s)", c.LeaderTTL/4))
	}
	chk.duration(p+"ServiceTimeout", &c.ServiceTimeout, 10*time.Second)
	chk.duration(p+"PromoteInterval", &c.PromoteInterval, time.Second)
	chk.duration(p+"RescueInterval", &c.RescueInterval, 5*time.Second)
	chk.duration(p+"RescueStaleAfter", &c.RescueStaleAfter, 90*time.Second)
	chk.duration(p+"DeadlineInterval", &c.DeadlineInterval, time.Second)
	chk.duration(p+"CallbackInterval", &c.CallbackInterval, time.Second)
	chk.duration(p+"QueueRingInterval", &c.QueueRingInterval, 5*time.Second)
	chk.duration(p+"ClaimRingInterval", &c.ClaimRingInterval, 2*time.Second)
	chk.duration(p+"LeaseRingInterval", &c.LeaseRingInterval, 5*time.Second)
	chk.duration(p+"CursorRingInterval", &c.CursorRingInterval, 2*time.Second)
	chk.duration(p+"PruneLockTimeout", &c.PruneLockTimeout, 50*time.Millisecond)
	if c.PruneLockTimeout > 0 && c.PruneLockTimeout < time.Millisecond {
		chk.reject(p+"PruneLockTimeout", c.PruneLockTimeout, "be at least 1ms")
	}
	if c.DLQRetention == 0 { // negative: keep for ever
		c.DLQRetention = 30 * 24 * time.Hour
	}
	chk.duration(p+"DLQCleanupInterval", &c.DLQCleanupInterval, time.Minute)
	chk.duration(p+"ArchiveInterval", &c.ArchiveInterval, time.Minute)
	chk.duration(p+"PeriodicInterval", &c.PeriodicInterval, time.Second)
	chk.duration(p+"QueueDepthInterval", &c.QueueDepthInterval, 10*time.Second)
	floor := max(time.Minute, 2*c.RescueStaleAfter)
	chk.duration(p+"InstanceRetention", &c.InstanceRetention, max(time.Hour, floor))
	if c.InstanceRetention > 0 && c.InstanceRetention < floor {
		chk.reject(p+"InstanceRetention", c.InstanceRetention,
			fmt.Sprintf("be at least a minute and 2 x RescueStaleAfter (%s)", floor))
	}
	chk.count(p+"BatchSize", &c.BatchSize, 1000, 0)
	switch {
	case c.KeepSealedQueueSlots == 0:
		c.KeepSealedQueueSlots = 14
	case c.KeepSealedQueueSlots < 0: // documented: keep none
		c.KeepSealedQueueSlots = 0
	}
	return c
}
