package driver

import (
	"context"
	"fmt"
	"log/slog"
	"runtime"
	"strings"
	"sync"
	"time"
	"weak"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

// poolerProbeRounds is how many times the probe looks for a server
// connection shared between client connections (docs/poolers.md).
const poolerProbeRounds = 3

// poolerProbeTimeout bounds the probe's own connections: when they cannot
// connect and answer within it, the probe cannot tell.
const poolerProbeTimeout = 5 * time.Second

// poolerProbes holds each pool's probe, shared by every client on the pool;
// an entry goes when its pool is garbage collected.
var poolerProbes struct {
	mu sync.Mutex
	m  map[weak.Pointer[pgxpool.Pool]]*poolerProbe
}

// poolerProbe is one pool's probe outcome, found once.
type poolerProbe struct {
	mu        sync.Mutex
	done      bool
	pooled    bool
	tentative bool // could not tell, probed in the caller's transaction
}

// probeOf returns pool's probe.
func probeOf(pool *pgxpool.Pool) *poolerProbe {
	k := weak.Make(pool)
	poolerProbes.mu.Lock()
	defer poolerProbes.mu.Unlock()
	if p := poolerProbes.m[k]; p != nil {
		return p
	}
	if poolerProbes.m == nil {
		poolerProbes.m = map[weak.Pointer[pgxpool.Pool]]*poolerProbe{}
	}
	p := &poolerProbe{}
	poolerProbes.m[k] = p
	runtime.AddCleanup(pool, func(k weak.Pointer[pgxpool.Pool]) {
		poolerProbes.mu.Lock()
		delete(poolerProbes.m, k)
		poolerProbes.mu.Unlock()
	}, k)
	return p
}

// behindTransactionPooler reports whether pool reaches PostgreSQL through a
// transaction-mode pooler (detectTransactionPooler), probing on the first
// call only; db is the pool or a transaction of the caller's on it. Callers
// probing at once wait for one probe; an error is not remembered. A probe
// that could not tell while the caller's transaction held a server
// connection (it may hold the pooler's only one, which the probe's own
// connections then wait for until they give up) holds for later calls in a
// transaction, and the first call outside one probes again.
func behindTransactionPooler(ctx context.Context, pool *pgxpool.Pool, db DBTX) (bool, error) {
	p := probeOf(pool)
	p.mu.Lock()
	defer p.mu.Unlock()
	_, inTx := db.(pgx.Tx)
	if !p.done || (p.tentative && !inTx) {
		pooled, sure, err := detectTransactionPooler(ctx, pool, db)
		if err != nil {
			return false, err
		}
		p.done, p.pooled, p.tentative = true, pooled, !sure && inTx
	}
	return p.pooled, nil
}

// settled reports whether the probe's outcome holds for every later call (it
// is not one that could not tell in the caller's transaction).
func (p *poolerProbe) settled() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return !p.tentative
}

// detectTransactionPooler reports whether pool reaches PostgreSQL through a
// transaction-mode (or statement-mode) pooler, as far as a probe can tell:
// true only on proof, false when connected directly or when it cannot tell
// (then sure is false).
//
// A direct connection's BackendKeyData carries the backend's own pid; a
// pooler sends a key of its own, so a match on db's connection (the caller's
// transaction, or one from the pool) ends the probe after one statement.
// Otherwise two client connections of the probe's own, opened with the
// pool's settings (so a pool of one connection, or one the caller holds,
// is probed all the same), each read pg_backend_pid() in turn: in session
// mode each keeps its own server, while a transaction pooler hands the server
// one client just released to the next (PgBouncer reuses the most recently
// released one), so a pid seen on both clients, or a pid that changes on one
// client, proves it. The probe runs in the simple protocol, which works
// whatever the pool's exec mode.
func detectTransactionPooler(ctx context.Context, pool *pgxpool.Pool, db DBTX) (pooled, sure bool, err error) {
	var d Driver
	var conn *pgx.Conn
	if tx, ok := db.(pgx.Tx); ok {
		conn = tx.Conn()
	} else {
		a, err := pool.Acquire(ctx)
		if err != nil {
			return false, false, err
		}
		defer a.Release()
		conn = a.Conn()
	}
	pid, err := d.q.BackendPID(ctx, simpleProtocol{conn})
	if err != nil {
		return false, false, err
	}
	if uint32(pid) == conn.PgConn().PID() {
		return false, true, nil
	}
	pctx, cancel := context.WithTimeout(ctx, poolerProbeTimeout)
	defer cancel()
	var probe [2]*pgx.Conn
	for i := range probe {
		if probe[i], err = connectLike(pctx, pool); err != nil {
			return false, false, nil // cannot tell
		}
		defer probe[i].Close(context.WithoutCancel(ctx))
	}
	a, b := simpleProtocol{probe[0]}, simpleProtocol{probe[1]}
	pidA, err := d.q.BackendPID(pctx, a)
	if err != nil {
		return false, false, nil
	}
	for range poolerProbeRounds {
		pidB, err := d.q.BackendPID(pctx, b)
		if err != nil {
			return false, false, nil
		}
		again, err := d.q.BackendPID(pctx, a)
		if err != nil {
			return false, false, nil
		}
		if pidB == pidA || pidB == again || again != pidA {
			return true, true, nil
		}
	}
	return false, true, nil
}

// connectLike opens a connection outside pool with pool's settings (its
// BeforeConnect hook included).
func connectLike(ctx context.Context, pool *pgxpool.Pool) (*pgx.Conn, error) {
	cfg := pool.Config()
	cc := cfg.ConnConfig.Copy()
	if cfg.BeforeConnect != nil {
		if err := cfg.BeforeConnect(ctx, cc); err != nil {
			return nil, err
		}
	}
	return pgx.ConnectConfig(ctx, cc)
}

// simpleProtocol runs statements on conn in the simple protocol, whatever
// its default exec mode.
type simpleProtocol struct{ conn *pgx.Conn }

func (s simpleProtocol) Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error) {
	return s.conn.Exec(ctx, sql, append([]any{pgx.QueryExecModeSimpleProtocol}, args...)...)
}

func (s simpleProtocol) Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error) {
	return s.conn.Query(ctx, sql, append([]any{pgx.QueryExecModeSimpleProtocol}, args...)...)
}

func (s simpleProtocol) QueryRow(ctx context.Context, sql string, args ...any) pgx.Row {
	return s.conn.QueryRow(ctx, sql, append([]any{pgx.QueryExecModeSimpleProtocol}, args...)...)
}

// execModeName is mode as default_query_exec_mode spells it in a DSN.
func execModeName(mode pgx.QueryExecMode) string {
	return strings.ReplaceAll(mode.String(), " ", "_")
}

// needsSessionState reports whether the pool's exec mode needs a statement
// to stay on one server connection across round trips: the modes a
// transaction pooler cannot serve.
func (c *Client) needsSessionState() bool {
	switch c.pool.Config().ConnConfig.DefaultQueryExecMode {
	case pgx.QueryExecModeCacheStatement, pgx.QueryExecModeDescribeExec:
		return true
	}
	return false
}

// refuseTransactionPooler returns ErrTransactionPooler when the pool goes
// through a transaction pooler in an exec mode it cannot serve; db is the
// pool or the caller's transaction on it. It reports whether the pool goes
// through a transaction pooler (probed only when the mode needs it, or when
// always is set).
func (c *Client) refuseTransactionPooler(ctx context.Context, db DBTX, always bool) (bool, error) {
	refuse := c.needsSessionState()
	if !refuse && !always {
		return false, nil
	}
	pooled, err := behindTransactionPooler(ctx, c.pool, db)
	if err != nil {
		return false, fmt.Errorf("awa: probe for a connection pooler: %w", mapError(err))
	}
	if pooled && refuse {
		mode := execModeName(c.pool.Config().ConnConfig.DefaultQueryExecMode)
		return true, fmt.Errorf("%w: the pool uses default_query_exec_mode=%s, which needs a statement prepared on one "+
			"server connection to run on the same one; set default_query_exec_mode to exec, simple_protocol or "+
			"cache_describe in the DSN (docs/poolers.md)", ErrTransactionPooler, mode)
	}
	return pooled, nil
}

// checkPooler refuses a pool that goes through a transaction pooler in an
// exec mode that needs one server connection across round trips, and warns
// when LISTEN would go through such a pooler.
func (c *Client) checkPooler(ctx context.Context) error {
	pooled, err := c.refuseTransactionPooler(ctx, c.pool, c.listensThroughPool())
	if err != nil || !pooled || !c.listensThroughPool() {
		return err
	}
	c.log.WarnContext(ctx, "awa: The pool goes through a transaction-mode pooler, where LISTEN receives no "+
		"notification; queues wake by polling only. Set Config.ListenDSN to a direct DSN (docs/poolers.md)",
		slog.String("exec_mode", execModeName(c.pool.Config().ConnConfig.DefaultQueryExecMode)))
	c.events.emit(&Event{Kind: EventNotificationsMissing,
		Notifications: &NotificationsMissing{Reason: MissingBehindTransactionPooler}})
	return nil
}

// listensThroughPool reports whether the client's listener takes its
// connection from the pool.
func (c *Client) listensThroughPool() bool {
	return !c.cfg.DisableListen && len(c.cfg.Queues) > 0 && c.cfg.ListenDSN == ""
}
