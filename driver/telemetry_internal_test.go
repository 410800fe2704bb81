package driver

import (
	"context"
	"testing"
	"time"

	"go.opentelemetry.io/otel"
	metricnoop "go.opentelemetry.io/otel/metric/noop"
	tracenoop "go.opentelemetry.io/otel/trace/noop"
)

// TestTelemetryCostsNoAllocationPerJobWhenOff: with the no-op providers the
// client has no instruments and no tracer; with the global providers the
// application never set (this test binary sets none) it has instruments that
// report themselves disabled and still no tracer. Either way the per-job
// calls of the hot path (insert, claim, handler span, handler duration,
// finalizer result) allocate nothing.
func TestTelemetryCostsNoAllocationPerJobWhenOff(t *testing.T) {
	ws := NewWorkers()
	off, err := newMetrics(metricnoop.NewMeterProvider(), ws)
	if err != nil || off != nil {
		t.Fatalf("newMetrics(no-op provider) = %v, %v; want nil, nil", off, err)
	}
	if tr := newTracing(tracenoop.NewTracerProvider(), nil); tr != nil {
		t.Fatalf("newTracing(no-op provider) = %v, want nil", tr)
	}
	global, err := newMetrics(otel.GetMeterProvider(), ws)
	if err != nil || global == nil {
		t.Fatalf("newMetrics(global provider) = %v, %v; want instruments", global, err)
	}
	unset := newTracing(nil, nil)
	if unset.tracer() != nil {
		t.Fatal("a client following the unset global tracer provider has a tracer, want none")
	}
	ctx := context.Background()
	jobs := []ClaimedJob{{Kind: "k", Queue: "q", Metadata: []byte(`{"traceparent": "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"}`)}}
	req := finishReq{action: actionComplete, kind: "k", queue: "q", took: time.Millisecond}
	for name, m := range map[string]*metrics{"no-op providers": off, "unset global providers": global} {
		tr := unset
		if m == nil {
			tr = nil
		}
		allocs := testing.AllocsPerRun(100, func() {
			ictx, span := tr.startInsert(ctx, "q", 1)
			meta := withTraceContext(nil, tr.traceContext(ictx))
			m.inserted(ictx, []InsertedJob{{Queue: "q", Kind: "k"}}, time.Time{}, nil)
			endSpan(span, nil)
			if meta != nil {
				t.Fatalf("metadata %s written with tracing off", meta)
			}
			m.claimed(ctx, "q", jobs, time.Time{}, nil)
			_, span = tr.startProcess(ctx, "process q", &jobs[0], tr.claimSpan("q", time.Time{}, 1, nil))
			endProcess(span, &req)
			m.processed(ctx, &req)
			if m.counting(ctx) {
				m.finalizedOne(ctx, actionComplete, &req, Result{Outcome: Applied, State: StateCompleted})
			}
		})
		if allocs != 0 {
			t.Errorf("%s: %v allocations per job, want 0", name, allocs)
		}
	}
}
