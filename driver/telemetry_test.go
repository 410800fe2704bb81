package driver_test

// Metrics and traces, read through the OpenTelemetry SDK's in-memory reader
// and exporter against a real database (docs/observability.md).

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"go.opentelemetry.io/otel/attribute"
	metricnoop "go.opentelemetry.io/otel/metric/noop"
	"go.opentelemetry.io/otel/propagation"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
	tracenoop "go.opentelemetry.io/otel/trace/noop"

	"github.com/awa-queue/awa/driver"
)

type otelArgs struct {
	Do string `json:"do"`
}

func (otelArgs) Kind() string { return "otel_job" }

// metricReader collects the client's metrics on demand.
type metricReader struct {
	t      *testing.T
	reader *sdkmetric.ManualReader
}

func newMetricReader(t *testing.T) (*metricReader, *sdkmetric.MeterProvider) {
	r := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(r))
	t.Cleanup(func() { _ = mp.Shutdown(context.Background()) })
	return &metricReader{t: t, reader: r}, mp
}

// point is one data point: its attributes and its value (a sum, a gauge's
// value, or a histogram's count and sum).
type point struct {
	attrs      attribute.Set
	value      float64
	count      uint64
	hasHistSum bool
}

// points returns every data point of the instrument name.
func (r *metricReader) points(name string) []point {
	r.t.Helper()
	var rm metricdata.ResourceMetrics
	if err := r.reader.Collect(context.Background(), &rm); err != nil {
		r.t.Fatalf("collect: %v", err)
	}
	var out []point
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			if m.Name != name {
				continue
			}
			switch d := m.Data.(type) {
			case metricdata.Sum[int64]:
				for _, p := range d.DataPoints {
					out = append(out, point{attrs: p.Attributes, value: float64(p.Value)})
				}
			case metricdata.Gauge[int64]:
				for _, p := range d.DataPoints {
					out = append(out, point{attrs: p.Attributes, value: float64(p.Value)})
				}
			case metricdata.Gauge[float64]:
				for _, p := range d.DataPoints {
					out = append(out, point{attrs: p.Attributes, value: p.Value})
				}
			case metricdata.Histogram[float64]:
				for _, p := range d.DataPoints {
					out = append(out, point{attrs: p.Attributes, value: p.Sum, count: p.Count, hasHistSum: true})
				}
			case metricdata.Histogram[int64]:
				for _, p := range d.DataPoints {
					out = append(out, point{attrs: p.Attributes, value: float64(p.Sum), count: p.Count, hasHistSum: true})
				}
			default:
				r.t.Fatalf("%s: unexpected data %T", name, m.Data)
			}
		}
	}
	return out
}

// sum adds up the values (histograms: the counts) of name's points whose
// attributes include every pair of want.
func (r *metricReader) sum(name string, want map[string]string) float64 {
	total := 0.0
	for _, p := range r.points(name) {
		if !hasAttrs(p.attrs, want) {
			continue
		}
		if p.hasHistSum {
			total += float64(p.count)
		} else {
			total += p.value
		}
	}
	return total
}

// withKind is attrs with awa.job.kind = kind.
func withKind(attrs map[string]string, kind string) map[string]string {
	out := map[string]string{"awa.job.kind": kind}
	for k, v := range attrs {
		out[k] = v
	}
	return out
}

func hasAttrs(set attribute.Set, want map[string]string) bool {
	for k, v := range want {
		got, ok := set.Value(attribute.Key(k))
		if !ok || got.Emit() != v {
			return false
		}
	}
	return true
}

// TestMetricsFollowAKnownWorkload: every counter moves by what a known
// workload did (inserts, a unique duplicate, claims, each outcome, a job of
// an unknown kind, a stale-process rescue), the
// histograms get one observation per handler run and claim, and the leader
// reports each queue's depth and itself as leader.
func TestMetricsFollowAKnownWorkload(t *testing.T) {
	ctx, pool := parallelDB(t, 2*time.Minute)
	metrics, mp := newMetricReader(t)
	log, _ := testLogger(t, "otel")
	ws := workersFor(func(ctx context.Context, j *driver.Job[otelArgs]) error {
		switch j.Args.Do {
		case "retry_once":
			if j.Attempt == 1 {
				return errors.New("first attempt fails")
			}
		case "fail":
			return driver.JobFail(errors.New("bad input"))
		case "cancel":
			return driver.JobCancel(errors.New("not wanted"))
		case "snooze":
			return driver.JobSnooze(time.Hour)
		}
		return nil
	})
	m := fastMaintenance()
	m.RescueStaleAfter = time.Second
	m.RescueInterval = 100 * time.Millisecond
	m.QueueDepthInterval = 100 * time.Millisecond
	// A job of a kind this client has no worker for fails at once
	// (UnknownKindDelay < 0), counted under the kind "unregistered".
	cfg := workConfig("otel", 4, ws, log, &driver.Config{MeterProvider: mp, HeartbeatInterval: 200 * time.Millisecond,
		UnknownKindDelay: -1})
	cfg.Maintenance = m
	client := startClient(t, pool, cfg)

	opts := &driver.InsertOpts{Queue: "otel"}
	batch := []driver.InsertManyParams{
		{Args: otelArgs{Do: "ok"}, Opts: opts}, {Args: otelArgs{Do: "ok"}, Opts: opts},
		{Args: otelArgs{Do: "ok"}, Opts: opts}, {Args: otelArgs{Do: "retry_once"}, Opts: opts},
		{Args: otelArgs{Do: "fail"}, Opts: opts}, {Args: otelArgs{Do: "cancel"}, Opts: opts},
	}
	if _, err := client.InsertMany(ctx, batch); err != nil {
		t.Fatal(err)
	}
	for _, do := range []string{"ok", "snooze"} {
		if _, err := client.Insert(ctx, otelArgs{Do: do}, opts); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := client.Driver().Insert(ctx, pool, driver.InsertParams{Kind: "mystery", Args: []byte(`{}`),
		Opts: driver.InsertOpts{Queue: "otel"}}); err != nil {
		t.Fatal(err)
	}
	// A unique job inserted twice: the duplicate inserted nothing, and is
	// not counted as sent.
	for i := 0; i < 2; i++ {
		got, err := client.Insert(ctx, otelArgs{Do: "ok"}, &driver.InsertOpts{Queue: "otel_unique",
			Unique: &driver.UniqueOpts{ByQueue: true}})
		if err != nil || got.Duplicate != (i == 1) {
			t.Fatalf("unique insert %d: duplicate %v, %v", i, got.Duplicate, err)
		}
	}
	// Three jobs in a queue nobody works: its depth.
	for i := 0; i < 3; i++ {
		if _, err := client.Insert(ctx, otelArgs{Do: "ok"}, &driver.InsertOpts{Queue: "otel_depth"}); err != nil {
			t.Fatal(err)
		}
	}
	// A job claimed by a process that heartbeats once, then never again:
	// the leader rescues it as stale.
	ghost := [16]byte{0x6f, 0x74, 0x65, 0x6c, 6: 0x40, 8: 0x80, 15: 1}
	if _, err := client.Insert(ctx, otelArgs{Do: "ok"}, &driver.InsertOpts{Queue: "otel_rescue"}); err != nil {
		t.Fatal(err)
	}
	if err := client.Driver().Heartbeat(ctx, pool, ghost); err != nil {
		t.Fatal(err)
	}
	if got, err := client.Driver().Claim(ctx, pool, "otel_rescue", 1, ghost, 0); err != nil || len(got) != 1 {
		t.Fatalf("ghost claim: %d jobs, %v", len(got), err)
	}

	otel := map[string]string{"messaging.destination.name": "otel", "messaging.system": "awa"}
	outcome := func(o string) map[string]string {
		return map[string]string{"messaging.destination.name": "otel", "awa.job.kind": "otel_job", "awa.job.outcome": o}
	}
	want := map[string]float64{"completed": 5, "retried": 1, "failed": 1, "cancelled": 1, "snoozed": 1}
	waitFor(t, 30*time.Second, "every outcome counted and the ghost rescued", func() (bool, string) {
		got := map[string]float64{}
		ok := true
		for o, n := range want {
			got[o] = metrics.sum("awa.jobs.finalized", outcome(o))
			ok = ok && got[o] == n
		}
		rescued := metrics.sum("awa.jobs.rescued", map[string]string{"awa.rescue.reason": "stale_heartbeat"})
		mystery := metrics.sum("awa.jobs.finalized", map[string]string{"awa.job.kind": "unregistered", "awa.job.outcome": "failed"})
		return ok && rescued == 1 && mystery == 1, fmt.Sprintf("finalized %v, unregistered failed %v, rescued %v", got, mystery, rescued)
	})

	checks := []struct {
		name  string
		attrs map[string]string
		want  float64
	}{
		{"messaging.client.sent.messages", map[string]string{"messaging.destination.name": "otel", "awa.job.kind": "otel_job",
			"messaging.operation.name": "insert"}, 8},
		{"messaging.client.sent.messages", map[string]string{"messaging.destination.name": "otel_depth"}, 3},
		{"messaging.client.sent.messages", map[string]string{"messaging.destination.name": "otel_rescue"}, 1},
		{"messaging.client.sent.messages", map[string]string{"messaging.destination.name": "otel_unique"}, 1},
		// 8 jobs, the retried one twice; the ghost's claim was not this client's.
		{"messaging.client.consumed.messages", withKind(otel, "otel_job"), 9},
		{"messaging.client.consumed.messages", withKind(otel, "unregistered"), 1},
		{"messaging.client.consumed.messages", withKind(otel, "mystery"), 0},
		{"messaging.process.duration", otel, 9}, // no handler ran the mystery job
		{"messaging.process.duration", outcome("retried"), 1},
		{"awa.job.wait.duration", otel, 10},
		{"awa.jobs.finalized", outcome("stale"), 0},
		{"awa.completer.failures", nil, 0},
	}
	for _, c := range checks {
		if got := metrics.sum(c.name, c.attrs); got != c.want {
			t.Errorf("%s %v = %v, want %v", c.name, c.attrs, got, c.want)
		}
	}
	// Insert calls: one InsertMany and 8 Inserts (the ghost's claim and the
	// mystery job are the Driver's, not counted); claim calls: at least one
	// that found jobs.
	if got := metrics.sum("messaging.client.operation.duration", map[string]string{"messaging.operation.name": "insert"}); got != 9 {
		t.Errorf("insert call durations: %v observations, want 9", got)
	}
	if got := metrics.sum("messaging.client.operation.duration", map[string]string{"messaging.operation.name": "claim",
		"messaging.destination.name": "otel"}); got < 1 {
		t.Errorf("claim call durations: %v observations, want at least 1", got)
	}
	batched := 0.0
	for _, p := range metrics.points("awa.completer.batch.size") {
		batched += p.value
	}
	if batched != 10 {
		t.Errorf("completer batch sizes add up to %v, want 10 (one per finalized attempt)", batched)
	}
	if got := metrics.sum("awa.ring.operations", map[string]string{"awa.ring": "queue", "awa.ring.action": "rotate"}); got < 1 {
		t.Errorf("awa.ring.operations of the queue ring's rotate: %v, want at least 1 (the leader's first tick)", got)
	}

	// The gauges report the leader's last read (every 100 ms here): the
	// worked queue, every job of it finalized or snoozed, reads 0 once a read
	// follows the last claim.
	waitFor(t, 10*time.Second, "the leader reports the depth of otel_depth and otel", func() (bool, string) {
		depth := metrics.sum("awa.queue.depth", map[string]string{"messaging.destination.name": "otel_depth"})
		worked := metrics.sum("awa.queue.depth", map[string]string{"messaging.destination.name": "otel"})
		reported := false // a series for otel, not just no figure
		for _, p := range metrics.points("awa.queue.depth") {
			reported = reported || hasAttrs(p.attrs, map[string]string{"messaging.destination.name": "otel"})
		}
		leader := metrics.sum("awa.maintenance.leader", nil)
		return depth == 3 && reported && worked == 0 && leader == 1 && client.IsLeader(),
			fmt.Sprintf("depth of otel_depth %v, of otel %v, leader gauge %v", depth, worked, leader)
	})
	for _, p := range metrics.points("awa.queue.oldest.age") {
		if q, _ := p.attrs.Value("messaging.destination.name"); q.AsString() == "otel_depth" && (p.value <= 0 || p.value > 120) {
			t.Errorf("awa.queue.oldest.age of otel_depth = %vs, want the seconds since its first insert", p.value)
		}
	}
	if got := metrics.sum("awa.queue.paused", map[string]string{"messaging.destination.name": "otel_depth"}); got != 0 {
		t.Errorf("awa.queue.paused of otel_depth = %v, want 0", got)
	}
}

// TestTelemetryOffWithTheNoopProviders: with OpenTelemetry's no-op meter
// and tracer providers (instrumentation off altogether) the client runs its
// jobs as before.
func TestTelemetryOffWithTheNoopProviders(t *testing.T) {
	ctx, pool := parallelDB(t, time.Minute)
	ws, runs := countingWorkers[otelArgs]()
	log, _ := testLogger(t, "otel-off")
	client := startClient(t, pool, workConfig("otel_off", 2, ws, log, &driver.Config{
		MeterProvider: metricnoop.NewMeterProvider(), TracerProvider: tracenoop.NewTracerProvider()}))
	for i := 0; i < 3; i++ {
		if _, err := client.Insert(ctx, otelArgs{Do: "ok"}, &driver.InsertOpts{Queue: "otel_off"}); err != nil {
			t.Fatal(err)
		}
	}
	waitFor(t, 20*time.Second, "3 jobs run with the no-op providers", func() (bool, string) {
		return runs.Load() == 3, fmt.Sprint(runs.Load(), " runs")
	})
}

// tracingClient starts a client on queue with an in-memory span exporter
// and the W3C propagator; handler records the span context each handler
// run sees.
func tracingClient(t *testing.T, queue string, seen chan<- trace.SpanContext) (context.Context, *pgxpool.Pool,
	*driver.Client, *tracetest.InMemoryExporter, *sdktrace.TracerProvider) {
	ctx, pool := parallelDB(t, time.Minute)
	exp := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
	t.Cleanup(func() { _ = tp.Shutdown(context.Background()) })
	ws := workersFor(func(ctx context.Context, j *driver.Job[otelArgs]) error {
		seen <- trace.SpanContextFromContext(ctx)
		return nil
	})
	log, _ := testLogger(t, "otel-trace")
	client := startClient(t, pool, workConfig(queue, 2, ws, log, &driver.Config{
		TracerProvider: tp, Propagator: propagation.TraceContext{}}))
	return ctx, pool, client, exp, tp
}

// handlerSpan waits for the handler's run and returns the span context its
// ctx carried.
func handlerSpan(t *testing.T, seen <-chan trace.SpanContext) trace.SpanContext {
	t.Helper()
	select {
	case sc := <-seen:
		return sc
	case <-time.After(20 * time.Second):
		t.Fatal("the handler did not run")
		return trace.SpanContext{}
	}
}

// spanNamed waits for the ended span name and returns it.
func spanNamed(t *testing.T, exp *tracetest.InMemoryExporter, name string) tracetest.SpanStub {
	t.Helper()
	var found tracetest.SpanStub
	waitFor(t, 10*time.Second, "span "+name, func() (bool, string) {
		var names []string
		for _, s := range exp.GetSpans() {
			names = append(names, s.Name)
			if s.Name == name {
				found = s
				return true, ""
			}
		}
		return false, fmt.Sprint(names)
	})
	return found
}

// TestTracesLinkTheProducerToTheHandler: a job inserted under a span
// carries its trace context in its metadata; the insert's producer span is a
// child of the caller's, the handler's span a child of the insert's (same
// trace), linked to the claim's span, and in the handler's context.
func TestTracesLinkTheProducerToTheHandler(t *testing.T) {
	seen := make(chan trace.SpanContext, 1)
	ctx, pool, client, exp, tp := tracingClient(t, "otel_trace", seen)

	pctx, request := tp.Tracer("test").Start(ctx, "request")
	job, err := client.Insert(pctx, otelArgs{Do: "ok"}, &driver.InsertOpts{Queue: "otel_trace",
		Metadata: []byte(`{"tenant": "t1"}`)})
	request.End()
	if err != nil {
		t.Fatal(err)
	}
	handler := handlerSpan(t, seen)
	insert := spanNamed(t, exp, "insert otel_trace")
	process := spanNamed(t, exp, "process otel_trace")
	claim := spanNamed(t, exp, "claim otel_trace")

	traceID := request.SpanContext().TraceID()
	if insert.Parent.SpanID() != request.SpanContext().SpanID() || insert.SpanKind != trace.SpanKindProducer {
		t.Errorf("insert span: parent %s, kind %s; want the request's span %s, producer", insert.Parent.SpanID(),
			insert.SpanKind, request.SpanContext().SpanID())
	}
	if handler.TraceID() != traceID || process.SpanContext.TraceID() != traceID {
		t.Errorf("the handler's trace %s (span %s), want the producer's %s", handler.TraceID(), process.SpanContext.TraceID(), traceID)
	}
	if process.Parent.SpanID() != insert.SpanContext.SpanID() || process.SpanKind != trace.SpanKindConsumer {
		t.Errorf("process span: parent %s, kind %s; want the insert span %s, consumer", process.Parent.SpanID(),
			process.SpanKind, insert.SpanContext.SpanID())
	}
	if handler.SpanID() != process.SpanContext.SpanID() {
		t.Errorf("the handler's context carries span %s, want the process span %s", handler.SpanID(), process.SpanContext.SpanID())
	}
	if len(process.Links) != 1 || process.Links[0].SpanContext.SpanID() != claim.SpanContext.SpanID() {
		t.Errorf("process span links %v, want the claim span %s", process.Links, claim.SpanContext.SpanID())
	}
	got, err := client.Driver().GetJob(ctx, pool, job.ID)
	if err != nil {
		t.Fatal(err)
	}
	var meta map[string]string
	if err := json.Unmarshal(got.Metadata, &meta); err != nil {
		t.Fatalf("job metadata %s: %v", got.Metadata, err)
	}
	if meta["tenant"] != "t1" || meta["traceparent"] != fmt.Sprintf("00-%s-%s-01", traceID, insert.SpanContext.SpanID()) {
		t.Errorf("job metadata %v: want the caller's tenant kept and the insert span's traceparent", meta)
	}
}

// TestTracesContinueATraceparentInsertedFromSQL: a job inserted from plain
// SQL with a W3C traceparent (and tracestate) in its metadata runs in a
// handler span that continues that trace, as a child of the producer's span.
func TestTracesContinueATraceparentInsertedFromSQL(t *testing.T) {
	seen := make(chan trace.SpanContext, 1)
	ctx, pool, _, exp, _ := tracingClient(t, "otel_sql", seen)
	const traceID, spanID = "4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7"
	if _, err := pool.Exec(ctx, `SELECT * FROM awa.insert_job('otel_job', '{"do": "ok"}',
		jsonb_build_object('queue', 'otel_sql', 'metadata', jsonb_build_object(
			'traceparent', '00-' || $1::text || '-' || $2::text || '-01', 'tracestate', 'vendor=x')))`, traceID, spanID); err != nil {
		t.Fatal(err)
	}
	handler := handlerSpan(t, seen)
	process := spanNamed(t, exp, "process otel_sql")
	if handler.TraceID().String() != traceID || process.Parent.SpanID().String() != spanID || !process.Parent.IsRemote() {
		t.Errorf("handler trace %s, process span parent %s (remote %v); want trace %s, remote parent %s",
			handler.TraceID(), process.Parent.SpanID(), process.Parent.IsRemote(), traceID, spanID)
	}
	if got := handler.TraceState().Get("vendor"); got != "x" {
		t.Errorf("the handler's trace state vendor=%q, want x (from the job's tracestate)", got)
	}
}
