package driver

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"time"
)

// Health check statuses.
const (
	HealthOK      = "ok"
	HealthFail    = "fail"
	HealthSkipped = "skipped" // the check does not apply to this client
)

// HealthCheck is one check of a HealthReport.
type HealthCheck struct {
	Name   string `json:"name"`
	Status string `json:"status"` // HealthOK, HealthFail or HealthSkipped
	Detail string `json:"detail,omitempty"`
}

// HealthReport is what Client.Liveness and Client.Readiness found: Status
// is HealthOK when no check failed.
type HealthReport struct {
	Status string        `json:"status"`
	Checks []HealthCheck `json:"checks"`
}

// OK reports whether no check failed.
func (r HealthReport) OK() bool { return r.Status == HealthOK }

func report(checks ...HealthCheck) HealthReport {
	r := HealthReport{Status: HealthOK, Checks: checks}
	for _, c := range checks {
		if c.Status == HealthFail {
			r.Status = HealthFail
		}
	}
	return r
}

// healthState is what the runtime records for the health checks.
type healthState struct {
	// heartbeatTried and heartbeatOK: unix nanoseconds of the heartbeat
	// loop's last call and last successful one (Start's registration counts).
	heartbeatTried, heartbeatOK atomic.Int64
	// elected: unix nanoseconds of the last election call that succeeded
	// (leading or not: either way a live lease is known).
	elected atomic.Int64
}

func since(unixNano int64) time.Duration {
	if unixNano == 0 {
		return -1
	}
	return time.Since(time.Unix(0, unixNano))
}

// heartbeatWindow is how old the last heartbeat may be: three intervals, and
// at most half the stale-rescue age, well before the leader would rescue this
// process's jobs.
func (c *Client) heartbeatWindow() time.Duration {
	return min(3*c.cfg.HeartbeatInterval, c.cfg.Maintenance.RescueStaleAfter/2)
}

// running reports whether the client is started and not stopping.
func (c *Client) running() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.started && !c.stopping
}

// Liveness checks that the client's runtime is not wedged: while it runs, its
// heartbeat loop has called the database (successfully or not) within the
// heartbeat window (3 x HeartbeatInterval, at most half of
// Maintenance.RescueStaleAfter) plus a HeartbeatInterval for the call
// itself. It makes no database call: a database outage makes a client
// unready, not dead (restarting it would not help). A client that is not
// started is live.
func (c *Client) Liveness(context.Context) HealthReport {
	if !c.running() {
		return report(HealthCheck{Name: "runtime", Status: HealthOK, Detail: "client not started"})
	}
	limit := c.heartbeatWindow() + c.cfg.HeartbeatInterval
	if age := since(c.health.heartbeatTried.Load()); age < 0 || age > limit {
		return report(HealthCheck{Name: "runtime", Status: HealthFail,
			Detail: fmt.Sprintf("heartbeat loop silent for %s (limit %s)", age.Round(time.Millisecond), limit)})
	}
	return report(HealthCheck{Name: "runtime", Status: HealthOK})
}

// Readiness checks that the client can work: "database", the database
// answers (awa.substrate_version(), on the client's pool, within 5s or ctx's
// deadline) with a substrate this driver works against; "heartbeat", the
// process's last successful heartbeat is within the heartbeat window (3 x
// HeartbeatInterval, at most half of Maintenance.RescueStaleAfter), so its
// running jobs are safe from stale rescue; "leader", an election call
// succeeded within Maintenance.LeaderTTL, so a live maintenance leader is
// known (this client or another). A client that is not started fails the
// last two, unless it has no queues (an insert-only client: skipped); with
// DisableMaintenance the leader check is skipped.
func (c *Client) Readiness(ctx context.Context) HealthReport {
	db := HealthCheck{Name: "database", Status: HealthOK}
	cctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if _, err := c.driver.CheckSubstrateVersion(cctx, c.pool); err != nil {
		db.Status, db.Detail = HealthFail, err.Error()
	}
	hb := HealthCheck{Name: "heartbeat", Status: HealthOK}
	leader := HealthCheck{Name: "leader", Status: HealthOK}
	switch {
	case !c.running() && len(c.cfg.Queues) == 0:
		hb.Status, hb.Detail = HealthSkipped, "insert-only client not started"
		leader.Status, leader.Detail = HealthSkipped, "insert-only client not started"
		return report(db, hb, leader)
	case !c.running():
		hb.Status, hb.Detail = HealthFail, "client not started"
		leader.Status, leader.Detail = HealthFail, "client not started"
		return report(db, hb, leader)
	}
	if age, window := since(c.health.heartbeatOK.Load()), c.heartbeatWindow(); age < 0 || age > window {
		hb.Status, hb.Detail = HealthFail, fmt.Sprintf("last heartbeat %s ago (window %s)", age.Round(time.Millisecond), window)
	}
	switch ttl := c.cfg.Maintenance.LeaderTTL; {
	case c.cfg.DisableMaintenance:
		leader.Status, leader.Detail = HealthSkipped, "maintenance disabled"
	case since(c.health.elected.Load()) < 0 || since(c.health.elected.Load()) > ttl:
		leader.Status, leader.Detail = HealthFail, fmt.Sprintf("no successful leader election within %s", ttl)
	case c.IsLeader():
		leader.Detail = "this client leads"
	default:
		leader.Detail = "another client leads"
	}
	return report(db, hb, leader)
}

// HealthHandler serves the health checks as JSON (a HealthReport): a request
// whose path ends in /livez runs Liveness, one ending in /readyz runs
// Readiness; 200 when the report is ok, 503 otherwise, 404 for other paths.
// Mount it anywhere, for example mux.Handle("/healthz/", client.HealthHandler()).
func (c *Client) HealthHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var rep HealthReport
		switch {
		case strings.HasSuffix(r.URL.Path, "/livez"):
			rep = c.Liveness(r.Context())
		case strings.HasSuffix(r.URL.Path, "/readyz"):
			rep = c.Readiness(r.Context())
		default:
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Cache-Control", "no-store")
		if !rep.OK() {
			w.WriteHeader(http.StatusServiceUnavailable)
		}
		_ = json.NewEncoder(w).Encode(rep)
	})
}
