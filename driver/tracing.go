package driver

import (
	"bytes"
	"context"
	"encoding/json"
	"reflect"
	"strconv"
	"sync/atomic"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"
	"go.opentelemetry.io/otel/trace"
	tracenoop "go.opentelemetry.io/otel/trace/noop"
)

// Metadata keys of the W3C trace context a job carries from its producer to
// its handler (docs/observability.md): any producer, SQL included, may set
// them.
const (
	metaTraceparent = "traceparent"
	metaTracestate  = "tracestate"
)

// unsetGlobalTracerProvider is the global tracer provider as the process
// started: a no-op that delegates once the application sets one. While it is
// still the global one, a client that follows the global makes no span: one
// would record nothing and still cost allocations per job.
var unsetGlobalTracerProvider = otel.GetTracerProvider()

// tracing makes the client's spans: one per insert call (producer), per
// claim call that took jobs or failed, and per handler run (consumer, in the
// handler's context), the handler's a child of the trace context in its job's
// metadata. A nil *tracing makes none.
type tracing struct {
	tp   trace.TracerProvider          // nil: follow the global provider
	prop propagation.TextMapPropagator // nil: follow the global propagator
	// last caches the tracer of the global provider last seen.
	last atomic.Pointer[tracerOf]
}

type tracerOf struct {
	tp trace.TracerProvider
	t  trace.Tracer
}

// newTracing returns the tracing of tp and prop (nil: the globals'), or nil
// for the no-op provider.
func newTracing(tp trace.TracerProvider, prop propagation.TextMapPropagator) *tracing {
	if _, off := tp.(tracenoop.TracerProvider); off {
		return nil
	}
	t := &tracing{tp: tp, prop: prop}
	if tp != nil {
		t.last.Store(&tracerOf{tp: tp, t: newTracer(tp)})
	}
	return t
}

func newTracer(tp trace.TracerProvider) trace.Tracer {
	return tp.Tracer(instrumentationName, trace.WithInstrumentationVersion(SubstrateVersion))
}

// tracer returns the tracer to use now, nil when there is none.
func (t *tracing) tracer() trace.Tracer {
	if t == nil {
		return nil
	}
	if t.tp != nil {
		return t.last.Load().t
	}
	tp := otel.GetTracerProvider()
	if tp == unsetGlobalTracerProvider {
		return nil
	}
	if c := t.last.Load(); c != nil && c.tp == tp {
		return c.t
	}
	tr := newTracer(tp)
	// Interface comparison panics on an incomparable dynamic type: such a
	// provider is asked for its tracer each time instead.
	if reflect.TypeOf(tp).Comparable() {
		t.last.Store(&tracerOf{tp: tp, t: tr})
	}
	return tr
}

func (t *tracing) propagator() propagation.TextMapPropagator {
	if t.prop != nil {
		return t.prop
	}
	return otel.GetTextMapPropagator()
}

// startInsert starts the producer span of an insert call of n jobs into
// queue ("" when they go to several); nil span when tracing is off.
func (t *tracing) startInsert(ctx context.Context, queue string, n int) (context.Context, trace.Span) {
	tr := t.tracer()
	if tr == nil {
		return ctx, nil
	}
	name := "insert"
	attrs := []attribute.KeyValue{messagingSystem, semconv.MessagingOperationName("insert"),
		semconv.MessagingOperationTypeSend}
	if queue != "" {
		name += " " + queue
		attrs = append(attrs, semconv.MessagingDestinationName(queue))
	}
	if n != 1 {
		attrs = append(attrs, semconv.MessagingBatchMessageCount(n))
	}
	return tr.Start(ctx, name, trace.WithSpanKind(trace.SpanKindProducer), trace.WithAttributes(attrs...))
}

// traceContext returns the W3C trace context of ctx's span as the propagator
// writes it (traceparent, and tracestate when there is one), or nil when ctx
// carries no span or the propagator writes no traceparent.
func (t *tracing) traceContext(ctx context.Context) map[string]json.RawMessage {
	if t == nil || !trace.SpanContextFromContext(ctx).IsValid() {
		return nil
	}
	carrier := propagation.MapCarrier{}
	t.propagator().Inject(ctx, carrier)
	if carrier[metaTraceparent] == "" {
		return nil
	}
	out := map[string]json.RawMessage{metaTraceparent: jsonString(carrier[metaTraceparent])}
	if s := carrier[metaTracestate]; s != "" {
		out[metaTracestate] = jsonString(s)
	}
	return out
}

func jsonString(s string) json.RawMessage {
	raw, _ := json.Marshal(s) // a string always encodes
	return raw
}

// withTraceContext returns meta with tc's keys added. Metadata that already
// names a traceparent keeps its own trace context, and metadata that is not a
// JSON object is left for the substrate to refuse (AW005).
func withTraceContext(meta json.RawMessage, tc map[string]json.RawMessage) json.RawMessage {
	if tc == nil {
		return meta
	}
	obj := map[string]json.RawMessage{}
	if len(bytes.TrimSpace(meta)) > 0 && string(bytes.TrimSpace(meta)) != "null" {
		if err := json.Unmarshal(meta, &obj); err != nil {
			return meta
		}
	}
	if _, own := obj[metaTraceparent]; own {
		return meta
	}
	for k, v := range tc {
		obj[k] = v
	}
	raw, err := json.Marshal(obj)
	if err != nil {
		return meta
	}
	return raw
}

// claimSpan records the span of a claim call of queue that took jobs (or
// failed) from began to now, and returns its context for the handler spans'
// links. Claims that find nothing make no span: an idle queue's polls would
// flood the traces.
func (t *tracing) claimSpan(queue string, began time.Time, jobs int, err error) trace.SpanContext {
	if jobs == 0 && err == nil {
		return trace.SpanContext{}
	}
	tr := t.tracer()
	if tr == nil {
		return trace.SpanContext{}
	}
	_, span := tr.Start(context.Background(), "claim "+queue, trace.WithSpanKind(trace.SpanKindClient),
		trace.WithTimestamp(began), trace.WithAttributes(messagingSystem, semconv.MessagingOperationName("claim"),
			semconv.MessagingOperationTypeReceive, semconv.MessagingDestinationName(queue),
			semconv.MessagingBatchMessageCount(jobs)))
	if err != nil {
		span.RecordError(err)
		span.SetStatus(codes.Error, err.Error())
	}
	span.End()
	return span.SpanContext()
}

// startProcess starts the consumer span of one handler run, named name: a
// child of the trace context in the job's metadata (its producer's insert
// span, or a traceparent a SQL producer stored), linked to its claim's span.
// The returned context carries it to the handler. Nil span when tracing is
// off.
func (t *tracing) startProcess(ctx context.Context, name string, j *ClaimedJob, claim trace.SpanContext) (context.Context, trace.Span) {
	tr := t.tracer()
	if tr == nil {
		return ctx, nil
	}
	parent := ctx
	if bytes.Contains(j.Metadata, []byte(`"`+metaTraceparent+`"`)) {
		var tc struct {
			Traceparent string `json:"traceparent"`
			Tracestate  string `json:"tracestate"`
		}
		if json.Unmarshal(j.Metadata, &tc) == nil && tc.Traceparent != "" {
			carrier := propagation.MapCarrier{metaTraceparent: tc.Traceparent}
			if tc.Tracestate != "" {
				carrier[metaTracestate] = tc.Tracestate
			}
			parent = t.propagator().Extract(ctx, carrier)
		}
	}
	opts := []trace.SpanStartOption{trace.WithSpanKind(trace.SpanKindConsumer)}
	if claim.IsValid() {
		opts = append(opts, trace.WithLinks(trace.Link{SpanContext: claim}))
	}
	ctx, span := tr.Start(parent, name, opts...)
	if span.IsRecording() {
		span.SetAttributes(messagingSystem, semconv.MessagingOperationName("process"),
			semconv.MessagingOperationTypeProcess, semconv.MessagingDestinationName(j.Queue),
			semconv.MessagingMessageID(strconv.FormatInt(j.JobID, 10)), attrJobKind.String(j.Kind),
			attribute.Int("awa.job.attempt", j.Attempt), attribute.Int64("awa.job.run_lease", j.RunLease))
	}
	return ctx, span
}

// endProcess ends a handler's span with what the handler asked for: an
// error status for a retry or a failure.
func endProcess(span trace.Span, r *finishReq) {
	if span == nil {
		return
	}
	if span.IsRecording() {
		span.SetAttributes(attrJobOutcome.String(outcomeNames[r.action]))
		if r.action == actionRetry || r.action == actionFail {
			span.SetStatus(codes.Error, r.msg)
		}
	}
	span.End()
}

// endSpan ends an insert's span, with err as its error.
func endSpan(span trace.Span, err error) {
	if span == nil {
		return
	}
	if err != nil {
		span.RecordError(err)
		span.SetStatus(codes.Error, err.Error())
	}
	span.End()
}
