package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/awa-queue/awa/driver"
	"github.com/awa-queue/awa/ui"
)

// uiNote is what awa ui -h says after the flags.
const uiNote = `
Secrets come from the environment, never from flags (which ps shows):
  AWA_UI_PASSWORD  with -user: the basic-auth password
  AWA_UI_TOKEN     a bearer token ("Authorization: Bearer ...") that lets a request in
  AWA_UI_SECRET    the CSRF key (32 bytes or more; default: random per process)
Without -user and AWA_UI_TOKEN anyone who reaches -addr may act: keep the
default loopback address, or pass -read-only. Without them, too, a request
must name the UI by an IP address, localhost or a -host name (so that no web
page can point a name of its own at it). docs/ui.md has the pages, actions,
access and CSRF rules.
`

// cmdUI is `awa ui`: the web admin UI on -addr until SIGINT/SIGTERM.
func cmdUI(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs, dsn := newFlagSet("ui", "[-dsn DSN] [-addr HOST:PORT] [-schema NAME] [-prefix /PATH] [-read-only] [-user NAME] [-host NAME,...] [-sample D]", stderr)
	withNote(fs, uiNote, stderr)
	addr := fs.String("addr", "127.0.0.1:8080", "listen on this address")
	schema := fs.String("schema", driver.DefaultSchema, "schema awa is installed in (awa migrate -schema)")
	prefix := fs.String("prefix", "", "serve under this path, such as /awa (behind a proxy that keeps it)")
	readOnly := fs.Bool("read-only", false, "show, never act: no action links, every POST refused (403)")
	user := fs.String("user", "", "require HTTP basic auth as this user (password: $AWA_UI_PASSWORD)")
	hosts := fs.String("host", "", "without -user or a token: host names (comma-separated) the UI may be reached by, besides IP addresses and localhost")
	sample := fs.Duration("sample", 10*time.Second, "sample queue counts this often for the rates (0: only on page views)")
	if err := parseFlagsOnly(fs, args, dsn); err != nil {
		return err
	}
	cfg := &ui.Config{Prefix: *prefix, ReadOnly: *readOnly, Token: os.Getenv("AWA_UI_TOKEN")}
	if *hosts != "" {
		cfg.Hosts = strings.Split(*hosts, ",")
	}
	if *user != "" {
		cfg.BasicAuthUser, cfg.BasicAuthPassword = *user, os.Getenv("AWA_UI_PASSWORD")
		if cfg.BasicAuthPassword == "" {
			return usageErrorf("-user needs the password in $AWA_UI_PASSWORD")
		}
	}
	if s := os.Getenv("AWA_UI_SECRET"); s != "" {
		cfg.Secret = []byte(s)
	}
	if *sample < 0 {
		return usageErrorf("-sample must not be negative, got %s", *sample)
	}
	d, err := driver.NewSchema(*schema)
	if err != nil {
		return usageErrorf("-schema: %v", err)
	}
	pcfg, err := pgxpool.ParseConfig(*dsn)
	if err != nil {
		return fmt.Errorf("parse DSN: %w", err)
	}
	// No statement outlives its call: the UI works through a
	// transaction-mode pooler too.
	pcfg.ConnConfig.DefaultQueryExecMode = pgx.QueryExecModeExec
	pcfg.MaxConns = 8
	pool, err := pgxpool.NewWithConfig(ctx, pcfg)
	if err != nil {
		return fmt.Errorf("open pool: %w", err)
	}
	defer pool.Close()
	// The Config first: a wrong one is bad usage, whatever the database.
	h, err := ui.New(d, pool, cfg)
	if err != nil {
		return usageErrorf("%v", err)
	}
	if _, err := d.CheckSubstrateVersion(ctx, pool); err != nil {
		return err
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second, WriteTimeout: time.Minute,
		BaseContext: func(net.Listener) context.Context { return ctx }}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	if *sample > 0 {
		go sampleQueues(ctx, h, *sample, stderr)
	}
	fmt.Fprintf(stdout, "awa ui: serving http://%s%s/ (read-only %v); stop with Ctrl-C\n", ln.Addr(), *prefix, *readOnly)
	select {
	case err := <-served:
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil && !errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	return nil
}

// sampleQueues feeds the queues page's rates until ctx ends.
func sampleQueues(ctx context.Context, h *ui.Handler, every time.Duration, stderr io.Writer) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		if err := h.Sample(ctx); err != nil && ctx.Err() == nil {
			fmt.Fprintf(stderr, "awa ui: sample queue counts: %v\n", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}
