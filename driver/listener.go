package driver

import (
	"context"
	"log/slog"
	"strings"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/awa-queue/awa/internal/sqlschema"
)

// listener holds one dedicated connection LISTENing on every worked queue's
// channel (one LISTEN per queue, on one connection, whatever their number)
// and wakes the queue's fetch loop on each notification. When the connection
// fails it reconnects with backoff; the shared poll covers the gap.
type listener struct {
	pool *pgxpool.Pool
	// direct is Config.ListenDSN parsed: connect with it instead of taking
	// a connection from the pool (nil).
	direct *pgx.ConnConfig
	log    *slog.Logger
	driver *Driver
	queues map[string]*queueRunner
	// attempts gets the control channel's notifications (name "" after the
	// prefix): awa.cancel_job closed a running attempt, or
	// awa.resume_external resumed its callback.
	attempts *attemptSet
	// subscribed is called once LISTEN took effect, on every (re)connect:
	// work committed before it sent notifications nobody heard, so the
	// client polls at once (Client.pollSoon).
	subscribed func()
	// promote gets a value (never blocking) on each notification of the
	// promotion channel: the maintenance leader's promoter waits on it.
	promote chan<- struct{}
	// received counts notifications since the watch last looked.
	received atomic.Int64
}

func (l *listener) run(ctx context.Context) {
	delay := 100 * time.Millisecond
	for ctx.Err() == nil {
		err := l.listen(ctx)
		if ctx.Err() != nil {
			return
		}
		l.log.Warn("awa: Listener lost its connection; polling until it reconnects",
			slog.String("error", err.Error()))
		select {
		case <-ctx.Done():
			return
		case <-time.After(delay):
		}
		delay = min(delay*2, 10*time.Second)
	}
}

// connect returns the listener's own connection: a direct one with
// Config.ListenDSN, else one taken out of the pool for good (it carries
// LISTEN state).
func (l *listener) connect(ctx context.Context) (*pgx.Conn, error) {
	if l.direct != nil {
		return pgx.ConnectConfig(ctx, l.direct)
	}
	pc, err := l.pool.Acquire(ctx)
	if err != nil {
		return nil, err
	}
	return pc.Hijack(), nil
}

func (l *listener) listen(ctx context.Context) error {
	conn, err := l.connect(ctx)
	if err != nil {
		return err
	}
	defer conn.Close(context.WithoutCancel(ctx))

	names := make([]string, 0, len(l.queues))
	for name := range l.queues {
		names = append(names, name)
	}
	d := l.driver
	if err := d.q.ListenQueues(ctx, d.on(conn), names); err != nil {
		return mapError(err)
	}
	prefix := sqlschema.ChannelPrefix(d.Schema())
	// Work may have arrived before we listened: one shared poll finds it,
	// not a claim per queue.
	l.subscribed()
	for {
		n, err := conn.WaitForNotification(ctx)
		if err != nil {
			return err
		}
		l.received.Add(1)
		// Only this schema's channels are listened on; the prefix check
		// keeps it so should a caller LISTEN on the same connection.
		if name, ok := strings.CutPrefix(n.Channel, prefix); ok {
			if name == "" && l.attempts != nil {
				l.attempts.controlNotified(n.Payload, l.log)
			} else if name == promoteChannel {
				select {
				case l.promote <- struct{}{}:
				default:
				}
			} else if q, ok := l.queues[name]; ok {
				q.notify()
			}
		}
	}
}

// silentListenerClaims is how many claims woken by the poll must find jobs
// in a window without notifications before the watch warns.
const silentListenerClaims = 3

// watch warns (log and EventNotificationsMissing) when a whole window passes
// without a notification while claims woken by the poll keep finding jobs: a
// LISTEN that silently receives nothing, as through a transaction-mode
// pooler. It warns once per silence.
func (l *listener) watch(ctx context.Context, c *Client) {
	window := c.cfg.ListenWatchWindow
	t := time.NewTicker(window)
	defer t.Stop()
	c.polledClaims.Store(0)
	silent := false
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		got, polled := l.received.Swap(0), c.polledClaims.Swap(0)
		switch {
		case got > 0:
			silent = false
		case polled >= silentListenerClaims && !silent:
			silent = true
			c.log.WarnContext(ctx, "awa: No notification arrived while claims woken by polling found jobs; "+
				"is LISTEN going through a transaction-mode pooler? Set Config.ListenDSN to a direct DSN (docs/poolers.md)",
				slog.Duration("window", window), slog.Int64("polled_claims", polled))
			c.events.emit(&Event{Kind: EventNotificationsMissing, Notifications: &NotificationsMissing{
				Reason: MissingSilentListener, Window: window, PolledClaims: int(polled)}})
		}
	}
}
