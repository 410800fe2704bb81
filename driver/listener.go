package driver

import (
	"context"
	"log/slog"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
)

// listener holds one dedicated connection LISTENing on every worked queue's
// channel and wakes the queue's fetch loop on each notification. When the
// connection fails it reconnects with backoff; polling covers the gap.
type listener struct {
	pool   *pgxpool.Pool
	log    *slog.Logger
	queues map[string]*queueRunner
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

func (l *listener) listen(ctx context.Context) error {
	pc, err := l.pool.Acquire(ctx)
	if err != nil {
		return err
	}
	// The connection carries LISTEN state: take it out of the pool for good.
	conn := pc.Hijack()
	defer conn.Close(context.WithoutCancel(ctx))

	names := make([]string, 0, len(l.queues))
	for name := range l.queues {
		names = append(names, name)
	}
	var d Driver
	if err := d.q.ListenQueues(ctx, conn, names); err != nil {
		return mapError(err)
	}
	// Work may have arrived before we listened.
	for _, q := range l.queues {
		q.notify()
	}
	for {
		n, err := conn.WaitForNotification(ctx)
		if err != nil {
			return err
		}
		if q, ok := l.queues[strings.TrimPrefix(n.Channel, "awa:")]; ok {
			q.notify()
		}
	}
}
