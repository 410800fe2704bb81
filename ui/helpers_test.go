package ui_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/awa-queue/awa/driver"
	"github.com/awa-queue/awa/internal/pgtest"
	"github.com/awa-queue/awa/ui"
)

// fixture is a database holding a few jobs in known states, and the ids of
// those jobs.
type fixture struct {
	ctx  context.Context
	d    *driver.Driver
	pool *pgxpool.Pool
	// dlq is a mail.send job in the DLQ of queue mail; failed a
	// billing.charge job that ended failed (billing has no DLQ); scheduled a
	// report.build job due in an hour; reports the available report.build
	// jobs of queue reports, oldest first.
	dlq, failed, scheduled int64
	reports                []int64
}

// newFixture seeds a fresh database: queue mail (DLQ on) with one DLQ job,
// queue billing with one failed job, queue reports with a scheduled job and
// nReports available ones.
func newFixture(t *testing.T, nReports int) *fixture {
	t.Helper()
	f := &fixture{ctx: pgtest.Context(t, 2*time.Minute), d: driver.New(), pool: pgtest.NewDB(t)}
	on := true
	if err := f.d.ConfigureQueue(f.ctx, f.pool, "mail", driver.QueueOptions{DLQ: &on}); err != nil {
		t.Fatal(err)
	}
	f.dlq = f.failJob(t, "mail", "mail.send", `{"to": "ada@example.com"}`, "smtp: connection refused")
	f.failed = f.failJob(t, "billing", "billing.charge", `{"invoice": 42}`, "card declined")
	f.scheduled = f.insert(t, "reports", "report.build", `{"month": "2026-11"}`, time.Now().Add(time.Hour))
	for i := range nReports {
		f.reports = append(f.reports, f.insert(t, "reports", "report.build", fmt.Sprintf(`{"n": %d}`, i), time.Time{}))
	}
	return f
}

func (f *fixture) insert(t *testing.T, queue, kind, args string, runAt time.Time) int64 {
	t.Helper()
	j, err := f.d.Insert(f.ctx, f.pool, driver.InsertParams{Kind: kind, Args: []byte(args),
		Opts: driver.InsertOpts{Queue: queue, RunAt: runAt, MaxAttempts: 1, Tags: []string{"fixture"}}})
	if err != nil {
		t.Fatal(err)
	}
	return j.ID
}

// failJob inserts a job of one attempt, claims it and fails it with msg.
func (f *fixture) failJob(t *testing.T, queue, kind, args, msg string) int64 {
	t.Helper()
	id := f.insert(t, queue, kind, args, time.Time{})
	claimed, err := f.d.Claim(f.ctx, f.pool, queue, 1, [16]byte{1}, 0)
	if err != nil || len(claimed) != 1 || claimed[0].JobID != id {
		t.Fatalf("claim job %d of %s: %v, %+v", id, queue, err, claimed)
	}
	res, err := f.d.Fail(f.ctx, f.pool, []driver.ReasonItem{{Receipt: claimed[0].Receipt, Reason: msg}})
	if err != nil || len(res) != 1 || res[0].Outcome != driver.Applied {
		t.Fatalf("fail job %d: %v, %+v", id, err, res)
	}
	return id
}

// job reads a job back from the database.
func (f *fixture) job(t *testing.T, id int64) driver.JobListing {
	t.Helper()
	j, err := f.d.GetJob(f.ctx, f.pool, id)
	if err != nil {
		t.Fatal(err)
	}
	return j
}

// paused reports whether queue is paused in the database.
func (f *fixture) paused(t *testing.T, queue string) bool {
	t.Helper()
	p, err := f.d.PausedQueues(f.ctx, f.pool)
	if err != nil {
		t.Fatal(err)
	}
	_, ok := p[queue]
	return ok
}

// serve starts the UI of f on a test server with cfg.
func (f *fixture) serve(t *testing.T, cfg *ui.Config) *httptest.Server {
	t.Helper()
	if cfg == nil {
		cfg = &ui.Config{}
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	h, err := ui.New(f.d, f.pool, cfg)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv
}

// browserless is an HTTP client with a cookie jar that does not follow
// redirects, and optional credentials.
type browserless struct {
	t      *testing.T
	base   string
	c      *http.Client
	header http.Header
}

func newBrowserless(t *testing.T, base string) *browserless {
	t.Helper()
	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	return &browserless{t: t, base: base, header: http.Header{}, c: &http.Client{Jar: jar, Timeout: 30 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
}

// do sends a request and returns the status, the Location header and the body.
func (b *browserless) do(method, path string, form url.Values) (int, string, string) {
	b.t.Helper()
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req, err := http.NewRequest(method, b.base+path, body)
	if err != nil {
		b.t.Fatal(err)
	}
	for k, v := range b.header {
		req.Header[k] = v
	}
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	resp, err := b.c.Do(req)
	if err != nil {
		b.t.Fatal(err)
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	if err != nil {
		b.t.Fatal(err)
	}
	return resp.StatusCode, resp.Header.Get("Location"), string(out)
}

func (b *browserless) get(path string) (int, string) {
	b.t.Helper()
	code, _, body := b.do(http.MethodGet, path, nil)
	return code, body
}

var tokenField = regexp.MustCompile(`name="csrf_token" value="([^"]+)"`)

// confirmToken opens an action's confirmation page and returns the CSRF
// token of its form.
func (b *browserless) confirmToken(path string) string {
	b.t.Helper()
	code, body := b.get(path)
	m := tokenField.FindStringSubmatch(body)
	if code != http.StatusOK || m == nil {
		b.t.Fatalf("GET %s: %d, want 200 and a form with a CSRF token; body:\n%s", path, code, body)
	}
	return m[1]
}

// mustContain fails unless body holds each of want.
func mustContain(t *testing.T, what, body string, want ...string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(body, w) {
			t.Fatalf("%s: want %q in the page; got:\n%s", what, w, body)
		}
	}
}

func jsonString(t *testing.T, raw json.RawMessage) string {
	t.Helper()
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatal(err)
	}
	return fmt.Sprint(v)
}
