package driver_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/awa-queue/awa/driver"
	"github.com/awa-queue/awa/internal/pgtest"
)

// getHealth GETs path from h and decodes the report.
func getHealth(t *testing.T, h http.Handler, path string) (int, driver.HealthReport) {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
	var rep driver.HealthReport
	if rec.Code != http.StatusNotFound {
		if err := json.Unmarshal(rec.Body.Bytes(), &rep); err != nil {
			t.Fatalf("GET %s: %d %q: %v", path, rec.Code, rec.Body.String(), err)
		}
	}
	return rec.Code, rep
}

// check returns the report's check name.
func check(rep driver.HealthReport, name string) driver.HealthCheck {
	for _, c := range rep.Checks {
		if c.Name == name {
			return c
		}
	}
	return driver.HealthCheck{}
}

// TestHealthHandlerReportsReadyThenTheDatabaseGone: a started client is live
// and, once it knows a leader, ready (200, every check ok); when its
// database connection is cut, /readyz answers 503 with the database check
// failed while /livez stays 200 (the runtime is not wedged: restarting it
// would not bring the database back).
func TestHealthHandlerReportsReadyThenTheDatabaseGone(t *testing.T) {
	t.Parallel()
	dsn := pgtest.NewDBDSN(t)
	proxy := newTCPProxy(t, upstreamAddr(t, dsn))
	pool := poolThrough(t, dsn, proxy, "awa-test-health")
	ws, _ := countingWorkers[otelArgs]()
	log, _ := testLogger(t, "health")
	client := startClient(t, pool, workConfig("health", 1, ws, log, nil))
	h := client.HealthHandler()

	waitFor(t, 20*time.Second, "ready", func() (bool, string) {
		code, rep := getHealth(t, h, "/readyz")
		return code == http.StatusOK, fmt.Sprint(code, rep)
	})
	_, rep := getHealth(t, h, "/healthz/readyz")
	for _, name := range []string{"database", "heartbeat", "leader"} {
		if c := check(rep, name); c.Status != driver.HealthOK {
			t.Errorf("ready: check %s = %+v, want ok", name, c)
		}
	}
	if c := check(rep, "leader"); c.Detail != "this client leads" {
		t.Errorf("leader check detail %q, want this client leads (the only client)", c.Detail)
	}
	if code, rep := getHealth(t, h, "/livez"); code != http.StatusOK || !rep.OK() {
		t.Errorf("/livez of a running client: %d %+v, want 200 ok", code, rep)
	}
	if code, _ := getHealth(t, h, "/metrics"); code != http.StatusNotFound {
		t.Errorf("/metrics: %d, want 404", code)
	}

	proxy.Cut()
	code, rep := getHealth(t, h, "/readyz")
	if code != http.StatusServiceUnavailable || rep.Status != driver.HealthFail || check(rep, "database").Status != driver.HealthFail {
		t.Errorf("/readyz with the database cut off: %d %+v, want 503 with the database check failed", code, rep)
	}
	if code, rep := getHealth(t, h, "/livez"); code != http.StatusOK {
		t.Errorf("/livez with the database cut off: %d %+v, want 200", code, rep)
	}
}

// TestHealthOfAClientNotRunning: a worker client that is not started is not
// ready (503) but live; over a closed pool the database check fails too; an
// insert-only client that is not started skips the heartbeat and leader
// checks and is ready while its database answers.
func TestHealthOfAClientNotRunning(t *testing.T) {
	ctx, pool := parallelDB(t, time.Minute)
	ws, _ := countingWorkers[otelArgs]()
	worker, err := driver.NewClient(pool, &driver.Config{Queues: map[string]driver.QueueConfig{"h": {MaxWorkers: 1}}, Workers: ws})
	if err != nil {
		t.Fatal(err)
	}
	rep := worker.Readiness(ctx)
	if rep.OK() || check(rep, "database").Status != driver.HealthOK || check(rep, "heartbeat").Status != driver.HealthFail {
		t.Errorf("readiness of a worker client not started: %+v, want the database ok and the heartbeat failed", rep)
	}
	if rep := worker.Liveness(ctx); !rep.OK() {
		t.Errorf("liveness of a client not started: %+v, want ok", rep)
	}

	producer, err := driver.NewClient(pool, nil)
	if err != nil {
		t.Fatal(err)
	}
	code, rep := getHealth(t, producer.HealthHandler(), "/readyz")
	if code != http.StatusOK || check(rep, "heartbeat").Status != driver.HealthSkipped || check(rep, "leader").Status != driver.HealthSkipped {
		t.Errorf("/readyz of an insert-only client: %d %+v, want 200 with heartbeat and leader skipped", code, rep)
	}

	closed := pgtest.NewDB(t)
	gone, err := driver.NewClient(closed, nil)
	if err != nil {
		t.Fatal(err)
	}
	closed.Close()
	code, rep = getHealth(t, gone.HealthHandler(), "/readyz")
	if code != http.StatusServiceUnavailable || check(rep, "database").Status != driver.HealthFail {
		t.Errorf("/readyz over a closed pool: %d %+v, want 503 with the database check failed", code, rep)
	}
}
