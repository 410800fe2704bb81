package driver

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	metricnoop "go.opentelemetry.io/otel/metric/noop"
	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"
)

// instrumentationName is the scope of the client's meter and tracer.
const instrumentationName = "github.com/awa-queue/awa/driver"

// Attribute keys of awa's own, where the semantic conventions have none.
const (
	attrJobKind         = attribute.Key("awa.job.kind")
	attrJobOutcome      = attribute.Key("awa.job.outcome")
	attrRescueReason    = attribute.Key("awa.rescue.reason")
	attrRing            = attribute.Key("awa.ring")
	attrRingAction      = attribute.Key("awa.ring.action")
	attrRingOutcome     = attribute.Key("awa.ring.outcome")
	attrCompleterAction = attribute.Key("awa.completer.action")
)

// messagingSystem is messaging.system on every messaging instrument and span.
var messagingSystem = semconv.MessagingSystemKey.String("awa")

// unregisteredKind is awa.job.kind for a claimed job whose kind this client
// has no worker for: such kinds come from the database, not from the code,
// so they are not let into attributes (bounded cardinality).
const unregisteredKind = "unregistered"

// outcomeNames are awa.job.outcome for each finalizer action applied; a
// retry that exhausted the attempts is "failed", a stale result "stale".
var outcomeNames = [...]string{actionComplete: "completed", actionRetry: "retried", actionSnooze: "snoozed",
	actionCancel: "cancelled", actionFail: "failed", actionPark: "parked"}

// Rescue reasons (awa.rescue.reason), one per rescue service.
const (
	rescueStaleHeartbeat  = "stale_heartbeat"
	rescueDeadline        = "deadline"
	rescueCallbackTimeout = "callback_timeout"
)

// Histogram boundaries: the messaging conventions' for durations (seconds),
// and powers of about 2 up to the largest completer batch for batch sizes.
var (
	durationBuckets  = []float64{0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10, 30, 60, 300}
	batchSizeBuckets = []float64{1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000}
)

// metrics holds the client's instruments (docs/observability.md). A nil
// *metrics records nothing: Config.MeterProvider is OpenTelemetry's no-op
// provider. Every recording first asks the instrument whether it is enabled,
// so that under the global provider before the application sets one (a no-op
// that delegates later) a job costs an atomic load per instrument, and no
// attribute set is built.
type metrics struct {
	sent, consumed, finalized, rescued, promoted, ringOps, callFailures metric.Int64Counter
	opDuration, processDuration, waitDuration                           metric.Float64Histogram
	batchSize                                                           metric.Int64Histogram

	workers *Workers // kinds a claimed job may name in an attribute

	meter metric.Meter
	mu    sync.RWMutex
	attrs map[jobAttrKey]*jobAttrs
}

// jobAttrs is one attribute set of the per-job instruments as the options
// their calls take: slices built once, so a call allocates none.
type jobAttrs struct {
	add []metric.AddOption
	rec []metric.RecordOption
}

// jobAttrKey names one attribute set of the per-job instruments.
type jobAttrKey struct{ op, queue, kind, outcome string }

// newMetrics creates the instruments on mp's meter; nil for the no-op provider.
func newMetrics(mp metric.MeterProvider, workers *Workers) (*metrics, error) {
	if _, off := mp.(metricnoop.MeterProvider); off {
		return nil, nil
	}
	meter := mp.Meter(instrumentationName, metric.WithInstrumentationVersion(SubstrateVersion))
	m := &metrics{workers: workers, meter: meter, attrs: map[jobAttrKey]*jobAttrs{}}
	var errs []error
	counter := func(name, unit, desc string) metric.Int64Counter {
		c, err := meter.Int64Counter(name, metric.WithUnit(unit), metric.WithDescription(desc))
		errs = append(errs, err)
		return c
	}
	seconds := func(name, desc string) metric.Float64Histogram {
		h, err := meter.Float64Histogram(name, metric.WithUnit("s"), metric.WithDescription(desc),
			metric.WithExplicitBucketBoundaries(durationBuckets...))
		errs = append(errs, err)
		return h
	}
	m.sent = counter("messaging.client.sent.messages", "{message}", "Jobs inserted by this client.")
	m.consumed = counter("messaging.client.consumed.messages", "{message}", "Jobs claimed by this client.")
	m.finalized = counter("awa.jobs.finalized", "{job}",
		"Attempts finalized by this client, by outcome (completed, retried, snoozed, cancelled, failed, parked, stale).")
	m.rescued = counter("awa.jobs.rescued", "{job}", "Attempts closed and retried by the maintenance leader, by reason.")
	m.promoted = counter("awa.jobs.promoted", "{job}", "Scheduled and retryable jobs made available by the maintenance leader.")
	m.ringOps = counter("awa.ring.operations", "{operation}", "Ring rotations and prunes by the maintenance leader, by outcome.")
	m.callFailures = counter("awa.completer.failures", "{call}", "Finalizer calls of the completer that failed (each is retried).")
	m.opDuration = seconds("messaging.client.operation.duration", "Duration of insert and claim calls.")
	m.processDuration = seconds("messaging.process.duration", "Duration of job handlers.")
	m.waitDuration = seconds("awa.job.wait.duration", "Time from a job becoming due (its run_at) to its claim.")
	var err error
	m.batchSize, err = meter.Int64Histogram("awa.completer.batch.size", metric.WithUnit("{job}"),
		metric.WithDescription("Attempts finalized by one completer call."),
		metric.WithExplicitBucketBoundaries(batchSizeBuckets...))
	errs = append(errs, err)
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return m, nil
}

// jobAttrs returns one attribute set of the per-job instruments, built once.
func (m *metrics) jobAttrs(op, queue, kind, outcome string) *jobAttrs {
	k := jobAttrKey{op, queue, kind, outcome}
	m.mu.RLock()
	a, ok := m.attrs[k]
	m.mu.RUnlock()
	if ok {
		return a
	}
	kv := []attribute.KeyValue{messagingSystem, semconv.MessagingDestinationName(queue), attrJobKind.String(kind)}
	if op != "" {
		kv = append(kv, semconv.MessagingOperationName(op))
	}
	if outcome != "" {
		kv = append(kv, attrJobOutcome.String(outcome))
	}
	opt := metric.WithAttributeSet(attribute.NewSet(kv...))
	a = &jobAttrs{add: []metric.AddOption{opt}, rec: []metric.RecordOption{opt}}
	m.mu.Lock()
	m.attrs[k] = a
	m.mu.Unlock()
	return a
}

// claimedKind is a claimed job's kind as an attribute: unregisteredKind when
// the client has no worker for it.
func (m *metrics) claimedKind(kind string) string {
	if _, ok := m.workers.lookup(kind); ok {
		return kind
	}
	return unregisteredKind
}

// inserted counts jobs inserted by one call and records its duration.
func (m *metrics) inserted(ctx context.Context, jobs []InsertedJob, began time.Time, err error) {
	if m == nil {
		return
	}
	if m.opDuration.Enabled(ctx) {
		m.opDuration.Record(ctx, time.Since(began).Seconds(), callAttrs("insert", "", err))
	}
	if len(jobs) == 0 || !m.sent.Enabled(ctx) {
		return
	}
	// Runs of one queue and kind are counted in one Add (a batch mostly is
	// one). A duplicate of a unique job inserted nothing: not counted.
	for i := 0; i < len(jobs); {
		n, sent := 1, 0
		for i+n < len(jobs) && jobs[i+n].Queue == jobs[i].Queue && jobs[i+n].Kind == jobs[i].Kind {
			n++
		}
		for _, j := range jobs[i : i+n] {
			if !j.Duplicate {
				sent++
			}
		}
		if sent > 0 {
			m.sent.Add(ctx, int64(sent), m.jobAttrs("insert", jobs[i].Queue, jobs[i].Kind, "").add...)
		}
		i += n
	}
}

// claimed counts the jobs one claim call of queue took, and its duration.
func (m *metrics) claimed(ctx context.Context, queue string, jobs []ClaimedJob, began time.Time, err error) {
	if m == nil {
		return
	}
	if m.opDuration.Enabled(ctx) {
		m.opDuration.Record(ctx, time.Since(began).Seconds(), callAttrs("claim", queue, err))
	}
	counting, waiting := m.consumed.Enabled(ctx), m.waitDuration.Enabled(ctx)
	if !counting && !waiting {
		return
	}
	for _, j := range jobs {
		kind := m.claimedKind(j.Kind)
		if counting {
			m.consumed.Add(ctx, 1, m.jobAttrs("claim", queue, kind, "").add...)
		}
		if waiting {
			// Both times are the database's: no clock skew.
			m.waitDuration.Record(ctx, max(j.ClaimedAt.Sub(j.RunAt), 0).Seconds(), m.jobAttrs("", queue, kind, "").rec...)
		}
	}
}

// processed records how long a handler ran and what it asked for.
func (m *metrics) processed(ctx context.Context, r *finishReq) {
	if m == nil || !m.processDuration.Enabled(ctx) {
		return
	}
	m.processDuration.Record(ctx, r.took.Seconds(),
		m.jobAttrs("process", r.queue, m.claimedKind(r.kind), outcomeNames[r.action]).rec...)
}

// counting reports whether finalizer results are counted.
func (m *metrics) counting(ctx context.Context) bool {
	return m != nil && m.finalized.Enabled(ctx)
}

// finalizedOne counts one finalizer result of action for r.
func (m *metrics) finalizedOne(ctx context.Context, action finishAction, r *finishReq, res Result) {
	outcome := outcomeNames[action]
	switch {
	case res.Outcome == Stale:
		outcome = "stale"
	case res.State == StateFailed:
		outcome = "failed"
	}
	m.finalized.Add(ctx, 1, m.jobAttrs("", r.queue, m.claimedKind(r.kind), outcome).add...)
}

// completerCall records one finalizer call of n attempts.
func (m *metrics) completerCall(ctx context.Context, action finishAction, n int, err error) {
	if m == nil {
		return
	}
	attrs := metric.WithAttributes(attrCompleterAction.String(action.String()))
	if err != nil {
		if m.callFailures.Enabled(ctx) {
			m.callFailures.Add(ctx, 1, attrs)
		}
		return
	}
	if m.batchSize.Enabled(ctx) {
		m.batchSize.Record(ctx, int64(n), attrs)
	}
}

// rescuedJobs counts attempts a rescue service closed.
func (m *metrics) rescuedJobs(ctx context.Context, reason string, n int) {
	if m == nil || n == 0 {
		return
	}
	m.rescued.Add(ctx, int64(n), metric.WithAttributes(attrRescueReason.String(reason)))
}

// promotedJobs counts promoted jobs by queue.
func (m *metrics) promotedJobs(ctx context.Context, jobs []InsertedJob) {
	if m == nil || len(jobs) == 0 {
		return
	}
	by := map[string]int64{}
	for _, j := range jobs {
		by[j.Queue]++
	}
	for q, n := range by {
		m.promoted.Add(ctx, n, metric.WithAttributes(semconv.MessagingDestinationName(q)))
	}
}

// ringOutcome counts one rotate or prune outcome.
func (m *metrics) ringOutcome(ctx context.Context, o RingOutcome) {
	if m == nil {
		return
	}
	m.ringOps.Add(ctx, 1, metric.WithAttributes(attrRing.String(o.Ring), attrRingAction.String(o.Action),
		attrRingOutcome.String(o.Outcome)))
}

// callAttrs are the attributes of an insert or claim call: error.type is the
// SQLSTATE of a failed call (or _OTHER).
func callAttrs(op, queue string, err error) metric.RecordOption {
	kv := []attribute.KeyValue{messagingSystem, semconv.MessagingOperationName(op)}
	if queue != "" {
		kv = append(kv, semconv.MessagingDestinationName(queue))
	}
	if err != nil {
		kv = append(kv, semconv.ErrorTypeKey.String(errorType(err)))
	}
	return metric.WithAttributes(kv...)
}

// errorType is error.type for err: its SQLSTATE when PostgreSQL raised it.
func errorType(err error) string {
	var pg *pgconn.PgError
	if errors.As(err, &pg) {
		return pg.Code
	}
	return "_OTHER"
}

// meterProvider is cfg's provider, or the global one.
func meterProvider(mp metric.MeterProvider) metric.MeterProvider {
	if mp == nil {
		return otel.GetMeterProvider()
	}
	return mp
}

// depthSnapshot is the maintenance leader's last read of awa.queue_depths,
// which the queue gauges report: a collection makes no database call.
type depthSnapshot struct {
	mu   sync.Mutex
	at   time.Time
	rows []QueueDepth
}

func (s *depthSnapshot) store(rows []QueueDepth) {
	s.mu.Lock()
	s.at, s.rows = time.Now(), rows
	s.mu.Unlock()
}

// fresh returns the last read when it is younger than maxAge.
func (s *depthSnapshot) fresh(maxAge time.Duration) []QueueDepth {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.at.IsZero() || time.Since(s.at) > maxAge {
		return nil
	}
	return s.rows
}

// registerGauges registers the observable gauges: the leader state (when
// leading is not nil: the client takes part in election) and, while it leads,
// each queue's depth, oldest age and pause state from depths (reads older
// than maxAge are not reported: a leader whose polls fail reports nothing
// rather than old figures).
func (m *metrics) registerGauges(leading func() bool, depths *depthSnapshot, maxAge time.Duration) (metric.Registration, error) {
	if m == nil || leading == nil {
		return nil, nil
	}
	leader, err1 := m.meter.Int64ObservableGauge("awa.maintenance.leader", metric.WithUnit("{leader}"),
		metric.WithDescription("1 while this client is the maintenance leader, else 0."))
	depth, err2 := m.meter.Int64ObservableGauge("awa.queue.depth", metric.WithUnit("{job}"),
		metric.WithDescription("Available jobs of a queue (reported by the maintenance leader; each lane counted up to 10000)."))
	age, err3 := m.meter.Float64ObservableGauge("awa.queue.oldest.age", metric.WithUnit("s"),
		metric.WithDescription("How long the longest-waiting available job of the queue has been due (reported by the maintenance leader)."))
	paused, err4 := m.meter.Int64ObservableGauge("awa.queue.paused", metric.WithUnit("{queue}"),
		metric.WithDescription("1 while the queue is paused, else 0."))
	if err := errors.Join(err1, err2, err3, err4); err != nil {
		return nil, err
	}
	return m.meter.RegisterCallback(func(_ context.Context, o metric.Observer) error {
		lead := leading()
		o.ObserveInt64(leader, map[bool]int64{true: 1}[lead])
		if !lead {
			return nil
		}
		now := time.Now()
		for _, d := range depths.fresh(maxAge) {
			attrs := metric.WithAttributes(messagingSystem, semconv.MessagingDestinationName(d.Queue))
			o.ObserveInt64(depth, d.Available, attrs)
			o.ObserveInt64(paused, map[bool]int64{true: 1}[d.Paused], attrs)
			if !d.OldestRunAt.IsZero() {
				o.ObserveFloat64(age, max(now.Sub(d.OldestRunAt), 0).Seconds(), attrs)
			} else {
				o.ObserveFloat64(age, 0, attrs)
			}
		}
		return nil
	}, leader, depth, age, paused)
}

// queueDepthCountLimit is the count limit per lane of the leader's
// awa.queue_depths reads (the gauge's description says it).
const queueDepthCountLimit = 10000
