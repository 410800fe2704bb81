// Command prometheus is a runnable example, not a library: a worker service
// that exports awa's OpenTelemetry metrics in the Prometheus format on
// /metrics, beside the client's health checks on /livez and /readyz
// (docs/observability.md).
//
//	go run ./examples/prometheus -dsn "$DATABASE_URL" -addr :9464
//
// It works the queue "mail" (kind send_email) and inserts one job a second,
// so the counters move; scrape http://localhost:9464/metrics. The database
// must hold schema awa (`awa migrate up`).
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"go.opentelemetry.io/otel/exporters/prometheus"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"

	prom "github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/awa-queue/awa/driver"
)

// SendEmail is the example's job kind.
type SendEmail struct {
	To string `json:"to"`
}

func (SendEmail) Kind() string { return "send_email" }

func main() {
	dsn := flag.String("dsn", os.Getenv("DATABASE_URL"), "PostgreSQL DSN of a database holding schema awa")
	addr := flag.String("addr", ":9464", "listen address of /metrics, /livez and /readyz")
	every := flag.Duration("every", time.Second, "insert one job this often (0: none)")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		log.Fatal(err)
	}
	if err := run(ctx, *dsn, ln, *every); err != nil {
		log.Fatal(err)
	}
}

// run serves /metrics, /livez and /readyz on ln and runs a client on dsn
// until ctx ends, inserting a job every interval.
func run(ctx context.Context, dsn string, ln net.Listener, every time.Duration) error {
	// The exporter is a metric reader: it collects at each scrape. A
	// registry of its own keeps the process's default collectors out.
	registry := prom.NewRegistry()
	exporter, err := prometheus.New(prometheus.WithRegisterer(registry))
	if err != nil {
		return err
	}
	meters := sdkmetric.NewMeterProvider(sdkmetric.WithReader(exporter))
	defer func() { _ = meters.Shutdown(context.Background()) }()

	pool, err := pgxpool.New(ctx, dsn)
	if err != nil {
		return err
	}
	defer pool.Close()
	workers := driver.NewWorkers()
	driver.AddWorker(workers, driver.WorkFunc(func(ctx context.Context, job *driver.Job[SendEmail]) error {
		return nil // your work here
	}))
	client, err := driver.NewClient(pool, &driver.Config{
		Queues:        map[string]driver.QueueConfig{"mail": {MaxWorkers: 10}},
		Workers:       workers,
		Logger:        slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})),
		MeterProvider: meters, // or otel.SetMeterProvider(meters) and leave this nil
	})
	if err != nil {
		return err
	}
	// A first job before Start, so the leader's first queue-depth read
	// (at its election) already sees the queue.
	if _, err := client.Insert(ctx, SendEmail{To: "first@example.com"}, &driver.InsertOpts{Queue: "mail"}); err != nil {
		return err
	}
	if err := client.Start(ctx); err != nil {
		return err
	}
	defer func() { _ = client.Stop(context.Background()) }()

	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(registry, promhttp.HandlerOpts{}))
	mux.Handle("/livez", client.HealthHandler())
	mux.Handle("/readyz", client.HealthHandler())
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	defer func() { _ = srv.Shutdown(context.Background()) }()

	var tick <-chan time.Time
	if every > 0 {
		t := time.NewTicker(every)
		defer t.Stop()
		tick = t.C
	}
	for n := 0; ; n++ {
		select {
		case <-ctx.Done():
			return nil
		case err := <-served:
			if errors.Is(err, http.ErrServerClosed) {
				return nil
			}
			return err
		case <-tick:
			if _, err := client.Insert(ctx, SendEmail{To: fmt.Sprintf("user%d@example.com", n)},
				&driver.InsertOpts{Queue: "mail"}); err != nil && ctx.Err() == nil {
				return err
			}
		}
	}
}
