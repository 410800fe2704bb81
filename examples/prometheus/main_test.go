package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/awa-queue/awa/internal/pgtest"
)

// TestServesMetricsAndHealth runs the example against a fresh database: its
// /metrics page shows awa's instruments in the Prometheus format once jobs
// ran, and /readyz answers 200.
func TestServesMetricsAndHealth(t *testing.T) {
	dsn := pgtest.NewDBDSN(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(pgtest.Context(t, time.Minute))
	done := make(chan error, 1)
	go func() { done <- run(ctx, dsn, ln, 20*time.Millisecond) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("run: %v", err)
		}
	})
	base := "http://" + ln.Addr().String()
	get := func(path string) (int, string) {
		resp, err := http.Get(base + path)
		if err != nil {
			return 0, err.Error()
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(body)
	}
	want := []string{
		`messaging_client_sent_messages_total{awa_job_kind="send_email",messaging_destination_name="mail"`,
		`messaging_client_consumed_messages_total{awa_job_kind="send_email",messaging_destination_name="mail"`,
		`messaging_process_duration_seconds_bucket{awa_job_kind="send_email",awa_job_outcome="completed"`,
		`awa_jobs_finalized_total{awa_job_kind="send_email",awa_job_outcome="completed"`,
		`awa_maintenance_leader{`,
		`awa_queue_depth{`,
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		code, body := get("/metrics")
		var missing []string
		for _, w := range want {
			if !strings.Contains(body, w) {
				missing = append(missing, w)
			}
		}
		if code == http.StatusOK && len(missing) == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("/metrics: %d, missing %q in:\n%s", code, missing, body)
		}
		time.Sleep(100 * time.Millisecond)
	}
	if code, body := get("/readyz"); code != http.StatusOK || !strings.Contains(body, `"status":"ok"`) {
		t.Errorf("/readyz: %d %s, want 200 ok", code, body)
	}
	if code, body := get("/livez"); code != http.StatusOK {
		t.Errorf("/livez: %d %s, want 200", code, fmt.Sprint(body))
	}
}
