package ui_test

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/awa-queue/awa/driver"
	"github.com/awa-queue/awa/internal/pgtest"
	"github.com/awa-queue/awa/ui"
)

// TestNewRejectsAWrongConfig: a Config that is wrong is an error, never
// corrected.
func TestNewRejectsAWrongConfig(t *testing.T) {
	t.Parallel()
	pool := pgtest.NewDB(t)
	for name, cfg := range map[string]ui.Config{
		"prefix without a leading slash": {Prefix: "awa"},
		"prefix with a trailing slash":   {Prefix: "/awa/"},
		"user without a password":        {BasicAuthUser: "ops"},
		"password without a user":        {BasicAuthPassword: "pw"},
		"user holding a colon":           {BasicAuthUser: "a:b", BasicAuthPassword: "pw"},
		"short secret":                   {Secret: []byte("too short")},
		"page size over 1000":            {PageSize: 1001},
		"negative page size":             {PageSize: -1},
		"host with a port":               {Hosts: []string{"awa.internal:8080"}},
		"empty host":                     {Hosts: []string{""}},
	} {
		if _, err := ui.New(driver.New(), pool, &cfg); err == nil {
			t.Errorf("%s: ui.New accepted %+v", name, cfg)
		}
	}
	if _, err := ui.New(nil, pool, nil); err == nil {
		t.Error("ui.New accepted a nil driver")
	}
	if _, err := ui.New(driver.New(), pool, nil); err != nil {
		t.Errorf("ui.New with a nil Config: %v", err)
	}
}

// TestPagesShowTheDatabase: each page, under a prefix, shows what the
// database holds; a bad parameter is 400, an unknown job 404.
func TestPagesShowTheDatabase(t *testing.T) {
	t.Parallel()
	f := newFixture(t, 3)
	srv := f.serve(t, &ui.Config{Prefix: "/admin"})
	b := newBrowserless(t, srv.URL)

	code, loc, _ := b.do(http.MethodGet, "/admin/", nil)
	if code != http.StatusSeeOther || loc != "/admin/queues" {
		t.Fatalf("GET /admin/: %d to %q, want 303 to /admin/queues", code, loc)
	}
	code, body := b.get("/admin/queues")
	if code != http.StatusOK {
		t.Fatalf("queues page: %d", code)
	}
	mustContain(t, "queues page", body, `data-queue="mail"`, `data-queue="billing"`, `data-queue="reports"`,
		`href="/admin/dlq?queue=mail"`, `href="/admin/queues/pause?queue=reports"`, `href="/admin/static/style.css"`)

	code, body = b.get("/admin/jobs?queue=reports&state=available")
	if code != http.StatusOK {
		t.Fatalf("jobs page: %d", code)
	}
	for _, id := range f.reports {
		mustContain(t, "jobs of reports", body, `data-job="`+strconv.FormatInt(id, 10)+`"`)
	}
	for _, id := range []int64{f.dlq, f.failed, f.scheduled} {
		if strings.Contains(body, `data-job="`+strconv.FormatInt(id, 10)+`"`) {
			t.Fatalf("jobs of reports, available: job %d shows", id)
		}
	}

	code, body = b.get("/admin/jobs/" + strconv.FormatInt(f.failed, 10))
	if code != http.StatusOK {
		t.Fatalf("job page: %d", code)
	}
	mustContain(t, "failed job's page", body, "billing.charge", `&#34;invoice&#34;: 42`, "card declined",
		`id="retry"`, `/admin/jobs/`+strconv.FormatInt(f.failed, 10)+`/retry`)
	if strings.Contains(body, `id="cancel"`) {
		t.Fatal("a failed job's page offers to cancel it")
	}
	code, body = b.get("/admin/jobs/" + strconv.FormatInt(f.dlq, 10))
	if code != http.StatusOK {
		t.Fatalf("DLQ job's page: %d", code)
	}
	mustContain(t, "DLQ job's page", body, "smtp: connection refused", `id="dlq-retry"`, `id="dlq-purge"`)

	code, body = b.get("/admin/dlq")
	if code != http.StatusOK {
		t.Fatalf("DLQ page: %d", code)
	}
	mustContain(t, "DLQ page", body, `data-job="`+strconv.FormatInt(f.dlq, 10)+`"`)
	if strings.Contains(body, `data-job="`+strconv.FormatInt(f.failed, 10)+`"`) {
		t.Fatal("the DLQ page lists a failed job the DLQ does not hold")
	}

	code, body = b.get("/admin/storage")
	if code != http.StatusOK {
		t.Fatalf("storage page: %d", code)
	}
	mustContain(t, "storage page", body, `data-ring="queue"`, `data-ring="claim"`)
	code, body = b.get("/admin/periodic")
	if code != http.StatusOK {
		t.Fatalf("periodic page: %d", code)
	}
	mustContain(t, "periodic page", body, "No periodic job is declared")

	for path, want := range map[string]int{
		"/admin/jobs/0":                           http.StatusBadRequest,
		"/admin/jobs/x":                           http.StatusBadRequest,
		"/admin/jobs/999999":                      http.StatusNotFound,
		"/admin/jobs?state=nope":                  http.StatusBadRequest,
		"/admin/jobs?queue=bad%20name":            http.StatusBadRequest,
		"/admin/jobs?after=-4":                    http.StatusBadRequest,
		"/admin/queues?refresh=1":                 http.StatusBadRequest,
		"/admin/nowhere":                          http.StatusNotFound,
		"/queues":                                 http.StatusNotFound,
		"/admin/dlq/" + itoa(f.failed) + "/retry": http.StatusNotFound,
	} {
		if code, _ := b.get(path); code != want {
			t.Errorf("GET %s: %d, want %d", path, code, want)
		}
	}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// TestActionsActThroughTheirConfirmation: each action's POST, with the
// token of its confirmation page, changes the database and redirects to the
// result; an action the job's state does not allow is 409, nothing changed.
func TestActionsActThroughTheirConfirmation(t *testing.T) {
	t.Parallel()
	f := newFixture(t, 2)
	srv := f.serve(t, nil)
	b := newBrowserless(t, srv.URL)
	post := func(path string, form url.Values) (int, string) {
		t.Helper()
		form.Set("csrf_token", b.confirmToken(path+"?"+form.Encode()))
		code, loc, _ := b.do(http.MethodPost, path, form)
		return code, loc
	}

	if code, loc := post("/jobs/"+itoa(f.failed)+"/retry", url.Values{}); code != http.StatusSeeOther ||
		loc != "/jobs/"+itoa(f.failed)+"?done=retried" {
		t.Fatalf("retry a failed job: %d to %q", code, loc)
	}
	if j := f.job(t, f.failed); j.State != driver.StateAvailable || j.Attempt != 0 {
		t.Fatalf("after the retry the job is %s at attempt %d, want available at 0", j.State, j.Attempt)
	}
	_, body := b.get("/jobs/" + itoa(f.failed) + "?done=retried")
	mustContain(t, "job page after a retry", body, `id="flash"`, "Retried")

	if code, _ := post("/jobs/"+itoa(f.reports[0])+"/retry", url.Values{}); code != http.StatusConflict {
		t.Fatalf("retry an available job: %d, want 409", code)
	}
	if code, loc := post("/jobs/"+itoa(f.reports[0])+"/cancel", url.Values{}); code != http.StatusSeeOther ||
		!strings.HasSuffix(loc, "?done=cancelled") {
		t.Fatalf("cancel an available job: %d to %q", code, loc)
	}
	if j := f.job(t, f.reports[0]); j.State != driver.StateCancelled {
		t.Fatalf("after the cancel the job is %s", j.State)
	}

	if code, loc := post("/dlq/"+itoa(f.dlq)+"/purge", url.Values{}); code != http.StatusSeeOther ||
		loc != "/dlq?done=purged&n=1" {
		t.Fatalf("purge a DLQ job: %d to %q", code, loc)
	}
	if left, _, err := f.d.ListDLQJobs(f.ctx, f.pool, driver.ListDLQJobsParams{}); err != nil || len(left) != 0 {
		t.Fatalf("the DLQ after the purge: %v, %+v; want it empty", err, left)
	}

	if code, _ := post("/queues/pause", url.Values{"queue": {"reports"}}); code != http.StatusSeeOther ||
		!f.paused(t, "reports") {
		t.Fatalf("pause: %d, paused %v", code, f.paused(t, "reports"))
	}
	_, body = b.get("/queues")
	mustContain(t, "queues page of a paused queue", body, `href="/queues/resume?queue=reports"`)
	if code, _ := post("/queues/resume", url.Values{"queue": {"reports"}}); code != http.StatusSeeOther ||
		f.paused(t, "reports") {
		t.Fatalf("resume: %d, paused %v", code, f.paused(t, "reports"))
	}
	if code, _ := post("/queues/pause", url.Values{"queue": {"no such queue!"}}); code != http.StatusBadRequest {
		t.Fatalf("pause a queue of a bad name: %d, want 400", code)
	}
}

// TestActionsRejectAMissingOrBadCSRFToken: a POST without the token, with a
// token unlike the cookie, with a cookie this handler did not sign (a forged
// pair, or another secret's) is 403, and nothing changes.
func TestActionsRejectAMissingOrBadCSRFToken(t *testing.T) {
	t.Parallel()
	f := newFixture(t, 1)
	srv := f.serve(t, &ui.Config{Secret: []byte(strings.Repeat("s", 32))})
	other := f.serve(t, &ui.Config{Secret: []byte(strings.Repeat("o", 32))})
	form := func(token string) url.Values {
		v := url.Values{"queue": {"reports"}}
		if token != "" {
			v.Set("csrf_token", token)
		}
		return v
	}
	forbidden := func(what string, b *browserless, token string) {
		t.Helper()
		code, _, body := b.do(http.MethodPost, "/queues/pause", form(token))
		if code != http.StatusForbidden || !strings.Contains(body, "CSRF") {
			t.Fatalf("%s: %d %q, want 403 naming CSRF", what, code, body)
		}
		if f.paused(t, "reports") {
			t.Fatalf("%s: the queue was paused", what)
		}
	}

	fresh := newBrowserless(t, srv.URL)
	forbidden("no cookie, no token", fresh, "")
	forbidden("no cookie, a made-up token", fresh, "abc.def")

	b := newBrowserless(t, srv.URL)
	token := b.confirmToken("/queues/pause?queue=reports")
	forbidden("the cookie, no token", b, "")
	forbidden("the cookie, another token", b, token+"x")

	forged := newBrowserless(t, srv.URL)
	u, _ := url.Parse(srv.URL)
	forged.c.Jar.SetCookies(u, []*http.Cookie{{Name: "awa_ui_csrf", Value: "nonce.mac"}})
	forbidden("a forged cookie and the same token", forged, "nonce.mac")

	theirs := newBrowserless(t, other.URL)
	otherToken := theirs.confirmToken("/queues/pause?queue=reports")
	planted := newBrowserless(t, srv.URL)
	planted.c.Jar.SetCookies(u, []*http.Cookie{{Name: "awa_ui_csrf", Value: otherToken}})
	forbidden("another secret's cookie and token", planted, otherToken)

	if code, _, _ := b.do(http.MethodPost, "/queues/pause", form(token)); code != http.StatusSeeOther ||
		!f.paused(t, "reports") {
		t.Fatalf("the right token: %d, paused %v; want 303 and the queue paused", code, f.paused(t, "reports"))
	}
}

// TestReadOnlyHidesActionsAndRejectsThem: in read-only mode no page links
// to an action, a confirmation page is 403, and a POST (even with a token
// the handler signed) is 403 with nothing changed.
func TestReadOnlyHidesActionsAndRejectsThem(t *testing.T) {
	t.Parallel()
	f := newFixture(t, 1)
	secret := []byte(strings.Repeat("k", 32))
	srv := f.serve(t, &ui.Config{ReadOnly: true, Secret: secret})
	rw := f.serve(t, &ui.Config{Secret: secret})
	b := newBrowserless(t, srv.URL)
	for _, path := range []string{"/queues", "/jobs", "/dlq", "/jobs/" + itoa(f.dlq), "/jobs/" + itoa(f.failed)} {
		code, body := b.get(path)
		if code != http.StatusOK {
			t.Fatalf("GET %s: %d", path, code)
		}
		mustContain(t, path, body, `id="read-only"`)
		for _, action := range []string{"/retry", "/cancel", "/purge", "/pause", "/resume", "csrf_token"} {
			if strings.Contains(body, action) {
				t.Fatalf("read-only %s offers %s:\n%s", path, action, body)
			}
		}
	}
	for _, path := range []string{"/queues/pause?queue=reports", "/jobs/" + itoa(f.failed) + "/retry",
		"/dlq/" + itoa(f.dlq) + "/retry"} {
		if code, _ := b.get(path); code != http.StatusForbidden {
			t.Fatalf("read-only confirmation %s: %d, want 403", path, code)
		}
	}
	// A token the same secret signed, taken from a writable handler.
	w := newBrowserless(t, rw.URL)
	token := w.confirmToken("/dlq/" + itoa(f.dlq) + "/retry")
	u, _ := url.Parse(srv.URL)
	b.c.Jar.SetCookies(u, []*http.Cookie{{Name: "awa_ui_csrf", Value: token}})
	for path, form := range map[string]url.Values{
		"/queues/pause":                  {"queue": {"reports"}, "csrf_token": {token}},
		"/dlq/" + itoa(f.dlq) + "/retry": {"csrf_token": {token}},
	} {
		if code, _, _ := b.do(http.MethodPost, path, form); code != http.StatusForbidden {
			t.Fatalf("read-only POST %s: %d, want 403", path, code)
		}
	}
	if f.paused(t, "reports") || !f.job(t, f.dlq).DLQ {
		t.Fatal("a read-only POST changed the database")
	}
}

// TestAccessNeedsTheConfiguredCredentials: with basic auth and a token set,
// a request without either (the stylesheet too) is 401 and names the
// scheme, a wrong one 401, either right one 200; a CSRF token is bound to
// the credentials it was issued for.
func TestAccessNeedsTheConfiguredCredentials(t *testing.T) {
	t.Parallel()
	f := newFixture(t, 1)
	srv := f.serve(t, &ui.Config{BasicAuthUser: "ops", BasicAuthPassword: "hunter2-hunter2", Token: "t0ken-t0ken"})
	for _, path := range []string{"/queues", "/static/style.css", "/queues/pause?queue=reports"} {
		resp, err := http.Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusUnauthorized || !strings.HasPrefix(resp.Header.Get("WWW-Authenticate"), "Basic ") {
			t.Fatalf("GET %s without credentials: %d %q, want 401 asking for basic auth", path, resp.StatusCode,
				resp.Header.Get("WWW-Authenticate"))
		}
	}
	for name, set := range map[string]func(h http.Header){
		"wrong password": func(h http.Header) { h.Set("Authorization", basic("ops", "nope")) },
		"wrong user":     func(h http.Header) { h.Set("Authorization", basic("root", "hunter2-hunter2")) },
		"wrong token":    func(h http.Header) { h.Set("Authorization", "Bearer t0ken-t0keN") },
	} {
		b := newBrowserless(t, srv.URL)
		set(b.header)
		if code, _ := b.get("/queues"); code != http.StatusUnauthorized {
			t.Fatalf("%s: %d, want 401", name, code)
		}
	}
	user := newBrowserless(t, srv.URL)
	user.header.Set("Authorization", basic("ops", "hunter2-hunter2"))
	if code, _ := user.get("/queues"); code != http.StatusOK {
		t.Fatalf("basic auth: %d, want 200", code)
	}
	token := user.confirmToken("/queues/pause?queue=reports")

	bearer := newBrowserless(t, srv.URL)
	bearer.header.Set("Authorization", "Bearer t0ken-t0ken")
	if code, _ := bearer.get("/queues"); code != http.StatusOK {
		t.Fatalf("bearer token: %d, want 200", code)
	}
	// The basic-auth user's token does not work for the bearer.
	u, _ := url.Parse(srv.URL)
	bearer.c.Jar.SetCookies(u, []*http.Cookie{{Name: "awa_ui_csrf", Value: token}})
	if code, _, _ := bearer.do(http.MethodPost, "/queues/pause", url.Values{"queue": {"reports"}, "csrf_token": {token}}); code != http.StatusForbidden {
		t.Fatalf("another principal's CSRF token: %d, want 403", code)
	}
	if code, _, _ := user.do(http.MethodPost, "/queues/pause", url.Values{"queue": {"reports"}, "csrf_token": {token}}); code != http.StatusSeeOther ||
		!f.paused(t, "reports") {
		t.Fatalf("the user's own token: %d, want 303 and the queue paused", code)
	}
}

func basic(user, pw string) string {
	r, _ := http.NewRequest(http.MethodGet, "/", nil)
	r.SetBasicAuth(user, pw)
	return r.Header.Get("Authorization")
}

// TestPagesSendASecurityPolicyAndNoScript: pages forbid scripts, frames and
// other origins, and hold no <script>.
func TestPagesSendASecurityPolicyAndNoScript(t *testing.T) {
	t.Parallel()
	f := newFixture(t, 1)
	srv := f.serve(t, nil)
	resp, err := http.Get(srv.URL + "/queues")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	csp := resp.Header.Get("Content-Security-Policy")
	for _, want := range []string{"default-src 'none'", "style-src 'self'", "frame-ancestors 'none'", "form-action 'self'"} {
		if !strings.Contains(csp, want) {
			t.Fatalf("Content-Security-Policy %q lacks %q", csp, want)
		}
	}
	b := newBrowserless(t, srv.URL)
	for _, p := range []string{"/queues", "/jobs", "/dlq", "/storage", "/periodic", "/jobs/" + itoa(f.failed)} {
		if _, body := b.get(p); strings.Contains(strings.ToLower(body), "<script") {
			t.Fatalf("%s holds a script", p)
		}
	}
	if code, _, _ := b.do(http.MethodDelete, "/queues", nil); code != http.StatusMethodNotAllowed {
		t.Fatalf("DELETE /queues: %d, want 405", code)
	}
}

// hostStatus sends method path to srv naming host in the Host header (as a
// browser does for a name it resolved to the server's address) and returns
// the status.
func hostStatus(t *testing.T, srv string, method, path, host string, set func(h http.Header)) int {
	t.Helper()
	req, err := http.NewRequest(method, srv+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Host = host
	if set != nil {
		set(req.Header)
	}
	resp, err := http.DefaultTransport.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// TestWithoutCredentialsOnlyLoopbackOrListedHostsAreServed: a page on
// another site can point its own domain at the UI's address (DNS
// rebinding); the browser then treats the UI as that site's origin, so its
// script could read every page, CSRF token included, and post actions.
// Without credentials the UI therefore serves only requests naming it by
// an IP address, localhost, or a host of Config.Hosts; with credentials the
// browser has none to send to that origin, and any host is served.
func TestWithoutCredentialsOnlyLoopbackOrListedHostsAreServed(t *testing.T) {
	t.Parallel()
	f := newFixture(t, 1)
	open := f.serve(t, &ui.Config{Hosts: []string{"awa.internal"}})
	for _, c := range []struct {
		method, path, host string
		want               int
	}{
		{http.MethodGet, "/queues", "evil.example", http.StatusForbidden},
		{http.MethodGet, "/queues/pause?queue=reports", "evil.example:8080", http.StatusForbidden},
		{http.MethodPost, "/queues/pause", "rebound.evil.example.", http.StatusForbidden},
		{http.MethodGet, "/static/style.css", "evil.example", http.StatusForbidden},
		{http.MethodGet, "/queues", "127.0.0.1:8080", http.StatusOK},
		{http.MethodGet, "/queues", "[::1]:8080", http.StatusOK},
		{http.MethodGet, "/queues", "10.1.2.3", http.StatusOK},
		{http.MethodGet, "/queues", "localhost:8080", http.StatusOK},
		{http.MethodGet, "/queues", "ui.localhost", http.StatusOK},
		{http.MethodGet, "/queues", "AWA.internal:443", http.StatusOK},
	} {
		if got := hostStatus(t, open.URL, c.method, c.path, c.host, nil); got != c.want {
			t.Errorf("no credentials, %s %s as host %q: %d, want %d", c.method, c.path, c.host, got, c.want)
		}
	}
	if f.paused(t, "reports") {
		t.Fatal("a request naming another host paused the queue")
	}
	locked := f.serve(t, &ui.Config{Token: "t0ken-t0ken"})
	withToken := func(h http.Header) { h.Set("Authorization", "Bearer t0ken-t0ken") }
	if got := hostStatus(t, locked.URL, http.MethodGet, "/queues", "awa.example.com", withToken); got != http.StatusOK {
		t.Fatalf("with a token, any host: %d, want 200", got)
	}
	if got := hostStatus(t, locked.URL, http.MethodGet, "/queues", "awa.example.com", nil); got != http.StatusUnauthorized {
		t.Fatalf("with a token configured and none sent: %d, want 401", got)
	}
}

// TestTheQueuesNoteNamesOnlyAQueueItLists: the note after a pause or resume
// names the queue of the redirect's link only when the page lists it, so a
// link from elsewhere cannot make the UI show text of its choosing.
func TestTheQueuesNoteNamesOnlyAQueueItLists(t *testing.T) {
	t.Parallel()
	f := newFixture(t, 1)
	b := newBrowserless(t, f.serve(t, nil).URL)
	spoof := "reports paused. Security notice: your session expired, sign in again at evil.example; queue x"
	code, body := b.get("/queues?" + url.Values{"done": {"paused"}, "queue": {spoof}}.Encode())
	if code != http.StatusOK || strings.Contains(body, "evil.example") {
		t.Fatalf("a note naming no listed queue: %d, want 200 without its text; got:\n%s", code, body)
	}
	mustContain(t, "a note naming no listed queue", body, "Queue paused")
	code, body = b.get("/queues?done=resumed&queue=reports")
	if code != http.StatusOK {
		t.Fatalf("a note naming a listed queue: %d, want 200", code)
	}
	mustContain(t, "a note naming a listed queue", body, "Queue reports resumed.")
}
