package driver_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/awa-queue/awa/driver"
)

// planeCounts is how many rows the callback planes and the terminal history
// hold, and the job's state: what a refused request must leave as it was.
func planeCounts(t *testing.T, db querier, id int64) string {
	t.Helper()
	rows, err := db.Query(context.Background(), `SELECT
		(SELECT count(*) FROM awa.external_waits), (SELECT count(*) FROM awa.callbacks),
		(SELECT count(*) FROM awa.done_entries), (SELECT count(*) FROM awa.deferred_jobs),
		(SELECT string_agg(state::text, ',') FROM awa.jobs WHERE id = $1)`, id)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	if !rows.Next() {
		t.Fatal("no row")
	}
	v, err := rows.Values()
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// TestCallbackHandlerVerifiesTheSignatureBeforeResolving: the HTTP receiver
// in front of a parked job. Unsigned, signed with another secret, a
// signature of another body, or a malformed header: 401, and the job and
// every callback plane are as they were. Signed but not a resolution (bad
// JSON, unknown action, unknown field, a token that is not a UUID): 400, as
// unchanged. Signed and valid: 200 with the applied outcome, the job
// completed with the payload; the same request replayed: 409, stale. A GET is
// 405 and an empty secret is refused.
func TestCallbackHandlerVerifiesTheSignatureBeforeResolving(t *testing.T) {
	ctx, pool := parallelDB(t, time.Minute)
	if _, err := driver.CallbackHandler(driver.New().CallbackResolver(pool), nil); !errors.Is(err, driver.ErrInvalidConfig) {
		t.Fatalf("CallbackHandler with an empty secret = %v, want ErrInvalidConfig", err)
	}
	runs := make(chan parkRun, 4)
	client := startClient(t, pool, workConfig("parkq", 1, parkingWorkers(time.Hour, runs), nil, nil))
	job, err := client.Insert(ctx, parkArgs{}, &driver.InsertOpts{Queue: "parkq"})
	if err != nil {
		t.Fatal(err)
	}
	token := nextRun(t, runs).Token
	waitJobState(t, pool, job.ID, "waiting_external", 10*time.Second)

	secret := []byte("s3cret shared with the vendor")
	h, err := driver.CallbackHandler(client, secret)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	defer srv.Close()
	post := func(body []byte, sig string) (int, []byte) {
		t.Helper()
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, srv.URL, bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		if sig != "" {
			req.Header.Set(driver.SignatureHeader, sig)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		out, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, out
	}

	valid := []byte(`{"token": "` + token + `", "action": "complete", "payload": {"paid": 12}}`)
	other := []byte(`{"token": "` + token + `", "action": "fail", "error": "forged"}`)
	before := planeCounts(t, pool, job.ID)
	for name, tc := range map[string]struct {
		body   []byte
		sig    string
		status int
	}{
		"unsigned":            {valid, "", http.StatusUnauthorized},
		"another secret":      {valid, driver.SignCallback([]byte("guess"), valid), http.StatusUnauthorized},
		"another body's":      {valid, driver.SignCallback(secret, other), http.StatusUnauthorized},
		"no sha256= prefix":   {valid, driver.SignCallback(secret, valid)[len("sha256="):], http.StatusUnauthorized},
		"not hex":             {valid, "sha256=zz", http.StatusUnauthorized},
		"bad JSON":            {[]byte(`{"token":`), driver.SignCallback(secret, []byte(`{"token":`)), http.StatusBadRequest},
		"unknown action":      {[]byte(`{"token":"` + token + `","action":"approve"}`), "", http.StatusBadRequest},
		"unknown field":       {[]byte(`{"token":"` + token + `","action":"complete","extra":1}`), "", http.StatusBadRequest},
		"token not a UUID":    {[]byte(`{"token":"abc","action":"complete"}`), "", http.StatusBadRequest},
		"two JSON values":     {[]byte(`{"token":"` + token + `","action":"complete"} {}`), "", http.StatusBadRequest},
		"payload over 64 KiB": {[]byte(`{"token":"` + token + `","action":"complete","payload":"` + string(bytes.Repeat([]byte("x"), 70000)) + `"}`), "", http.StatusBadRequest},
	} {
		sig := tc.sig
		if sig == "" && tc.status == http.StatusBadRequest {
			sig = driver.SignCallback(secret, tc.body)
		}
		if status, out := post(tc.body, sig); status != tc.status {
			t.Fatalf("%s: status %d (%s), want %d", name, status, out, tc.status)
		}
		if after := planeCounts(t, pool, job.ID); after != before {
			t.Fatalf("%s: planes and state changed from %s to %s", name, before, after)
		}
	}
	if resp, err := http.Get(srv.URL); err != nil || resp.StatusCode != http.StatusMethodNotAllowed {
		t.Fatalf("GET = %v, %v; want 405", resp, err)
	}

	status, out := post(valid, driver.SignCallback(secret, valid))
	var got driver.CallbackOutcome
	if err := json.Unmarshal(out, &got); err != nil || status != http.StatusOK || got.Outcome != driver.Applied ||
		got.State != driver.StateCompleted || got.JobID != job.ID || got.Token != token {
		t.Fatalf("signed complete: %d %s (%v), want 200 applied completed for job %d", status, out, err, job.ID)
	}
	waitJobState(t, pool, job.ID, "completed", 5*time.Second)
	if r := callbackResult(t, pool, job.ID); r != `{"paid": 12}` {
		t.Fatalf("completed job's callback_result = %q", r)
	}
	if status, out := post(valid, driver.SignCallback(secret, valid)); status != http.StatusConflict ||
		!bytes.Contains(out, []byte(`"outcome":"stale"`)) {
		t.Fatalf("replayed request: %d %s, want 409 stale", status, out)
	}
}
