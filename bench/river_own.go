package main

import (
	"fmt"
	"runtime"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
)

// River's own benchmark command (`river bench`, cmd/river in
// riverqueue/river) configures its client so; read from
// cmd/river/riverbench/river_bench.go and cmd/river/rivercli/command.go at
// commit 7afc913bc1892894fb63f1642cbbc0e0dc020b6b (the client settings are the
// same in the older stored version, 007f941b; cmd/river is a module of its
// own, so the River v0.51.2 pinned in go.mod does not carry it):
//
//   - one queue, the default, with MaxWorkers 2,000;
//   - FetchCooldown 2 ms and FetchPollInterval 20 ms (riverFetchCooldown,
//     riverFetchPollInterval: the settings every River run here uses);
//   - every other client setting at River's default (maintenance on,
//     completed jobs kept 24 h);
//   - one pgx pool for the client and its inserts, from pgxpool.ParseConfig
//     of the database URL with nothing but session parameters set: its size
//     is pgxpool's default, max(4, runtime.NumCPU()) connections, and each
//     session gets application_name "river CLI", statement_timeout 10 s and
//     idle_in_transaction_session_timeout 11 s.
//
// riverOwnSystem is River at that configuration: the settings are ours,
// written from those facts.
const (
	riverOwnWorkers          = 2_000
	riverOwnStatementTimeout = 10 * time.Second
	riverOwnIdleInTxTimeout  = 11 * time.Second
)

// riverOwnConns is pgxpool's default pool size on this machine.
func riverOwnConns() int { return max(4, runtime.NumCPU()) }

// riverOwnSystem runs River as its own bench command configures its client
// (-river-config own): always riverOwnWorkers workers on a pool of
// riverOwnConns connections, whatever the sweep.
type riverOwnSystem struct{ riverSystem }

func (riverOwnSystem) Config() string { return "own" }

func (riverOwnSystem) Fixed() (workers, conns int) { return riverOwnWorkers, riverOwnConns() }

func (riverOwnSystem) TunePool(cfg *pgxpool.Config) {
	p := cfg.ConnConfig.RuntimeParams
	p["application_name"] = "river CLI"
	p["statement_timeout"] = fmt.Sprint(riverOwnStatementTimeout.Milliseconds())
	p["idle_in_transaction_session_timeout"] = fmt.Sprint(riverOwnIdleInTxTimeout.Milliseconds())
}

func (r riverOwnSystem) Settings(w int) map[string]string {
	s := r.riverSystem.Settings(w)
	s["MaxWorkers"] = fmt.Sprint(riverOwnWorkers) + " (as River's bench command)"
	s["Pool"] = fmt.Sprintf("%d conns: pgxpool's default, max(4, CPUs), as River's bench command", riverOwnConns())
	s["Session"] = fmt.Sprintf("statement_timeout %s, idle_in_transaction_session_timeout %s (as River's bench command)",
		riverOwnStatementTimeout, riverOwnIdleInTxTimeout)
	return s
}
