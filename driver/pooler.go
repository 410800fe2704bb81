package driver

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

// poolerProbeRounds is how many times the probe looks for a server
// connection shared between client connections (docs/poolers.md).
const poolerProbeRounds = 3

// detectTransactionPooler reports whether pool reaches PostgreSQL through a
// transaction-mode (or statement-mode) pooler, as far as a probe can tell:
// true only on proof, false when connected directly or when it cannot tell.
//
// A direct connection's BackendKeyData carries the backend's own pid; a
// pooler sends a key of its own, so a match ends the probe after one
// statement. Otherwise two client connections, both held, each read
// pg_backend_pid() in turn: in session mode each keeps its own server, while
// a transaction pooler hands the server one client just released to the
// next (PgBouncer reuses the most recently released one), so a pid seen on
// both clients, or a pid that changes on one client, proves it. The probe
// runs in the simple protocol, which works whatever the pool's exec mode.
func detectTransactionPooler(ctx context.Context, pool *pgxpool.Pool) (bool, error) {
	var d Driver
	a, err := pool.Acquire(ctx)
	if err != nil {
		return false, err
	}
	defer a.Release()
	pidA, err := d.q.BackendPID(ctx, simpleProtocol{a.Conn()})
	if err != nil {
		return false, err
	}
	if uint32(pidA) == a.Conn().PgConn().PID() || pool.Config().MaxConns < 2 {
		return false, nil
	}
	bctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	b, err := pool.Acquire(bctx)
	if err != nil {
		return false, nil // the pool is busy: cannot tell
	}
	defer b.Release()
	for range poolerProbeRounds {
		pidB, err := d.q.BackendPID(ctx, simpleProtocol{b.Conn()})
		if err != nil {
			return false, err
		}
		again, err := d.q.BackendPID(ctx, simpleProtocol{a.Conn()})
		if err != nil {
			return false, err
		}
		if pidB == pidA || pidB == again || again != pidA {
			return true, nil
		}
	}
	return false, nil
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

// checkPooler refuses a pool that goes through a transaction pooler in an
// exec mode that needs one server connection across round trips, and warns
// when LISTEN would go through such a pooler.
func (c *Client) checkPooler(ctx context.Context) error {
	pooled, err := detectTransactionPooler(ctx, c.pool)
	if err != nil {
		return fmt.Errorf("awa: probe for a connection pooler: %w", mapError(err))
	}
	if !pooled {
		return nil
	}
	mode := c.pool.Config().ConnConfig.DefaultQueryExecMode
	switch mode {
	case pgx.QueryExecModeCacheStatement, pgx.QueryExecModeDescribeExec:
		return fmt.Errorf("%w: the pool uses default_query_exec_mode=%s, which needs a statement prepared on one "+
			"server connection to run on the same one; set default_query_exec_mode to exec, simple_protocol or "+
			"cache_describe in the DSN (docs/poolers.md)", ErrTransactionPooler, execModeName(mode))
	}
	if c.listensThroughPool() {
		c.log.WarnContext(ctx, "awa: The pool goes through a transaction-mode pooler, where LISTEN receives no "+
			"notification; queues wake by polling only. Set Config.ListenDSN to a direct DSN (docs/poolers.md)",
			slog.String("exec_mode", execModeName(mode)))
		c.events.emit(&Event{Kind: EventNotificationsMissing,
			Notifications: &NotificationsMissing{Reason: MissingBehindTransactionPooler}})
	}
	return nil
}

// listensThroughPool reports whether the client's listener takes its
// connection from the pool.
func (c *Client) listensThroughPool() bool {
	return !c.cfg.DisableListen && len(c.cfg.Queues) > 0 && c.cfg.ListenDSN == ""
}
