package main

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestUIServesUntilItsContextEnds: awa ui listens where -addr says, prints
// its URL, serves the pages under -prefix, and returns 0 once stopped.
func TestUIServesUntilItsContextEnds(t *testing.T) {
	t.Parallel()
	dsn, ctx, _ := cliDB(t)
	ctx, stop := context.WithCancel(ctx)
	defer stop()
	out, w := io.Pipe()
	done := make(chan int, 1)
	go func() {
		var errb strings.Builder
		code := run(ctx, []string{"ui", "-dsn", dsn, "-addr", "127.0.0.1:0", "-prefix", "/awa", "-read-only", "-sample", "0"},
			w, &errb)
		w.Close()
		if code != 0 {
			t.Errorf("awa ui: exit %d, %s", code, errb.String())
		}
		done <- code
	}()
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatalf("awa ui printed no address: %v", err)
	}
	go func() { _, _ = io.Copy(io.Discard, out) }()
	m := regexp.MustCompile(`http://\S+/awa/`).FindString(line)
	if m == "" {
		t.Fatalf("awa ui printed %q, want its URL", line)
	}
	resp, err := http.Get(m + "queues")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), `id="read-only"`) {
		t.Fatalf("GET %squeues: %d, want 200 and a read-only page", m, resp.StatusCode)
	}
	stop()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("awa ui did not stop within 10 s of its context ending")
	}
}

// TestUIRejectsBadUsage: a half-set basic auth, a bad prefix and a -host
// with a port are usage errors (exit 2), before anything listens.
func TestUIRejectsBadUsage(t *testing.T) {
	t.Setenv("AWA_UI_PASSWORD", "")
	for _, args := range [][]string{
		{"ui", "-dsn", "postgres://nowhere/x", "-user", "ops"},
		{"ui", "-dsn", "postgres://nowhere/x", "-sample", "-1s"},
		{"ui", "-dsn", "postgres://nowhere/x", "stray"},
		{"ui", "-dsn", "postgres://nowhere/x", "-host", "awa.internal:8080"},
	} {
		var out, errb strings.Builder
		if code := run(context.Background(), args, &out, &errb); code != 2 {
			t.Errorf("awa %v: exit %d (%s), want 2", args, code, errb.String())
		}
	}
}
