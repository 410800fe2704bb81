// Command uishots seeds a demo data set into an awa database and writes
// screenshots of the web UI's main pages (queues, jobs, a job, the DLQ,
// storage) as PNGs, for the README and docs/ui.md. `make screenshots` runs
// it in a fresh database:
//
//	uishots -dsn DSN [-out docs/img]
//
// The database must hold the migrated schema and nothing else. It drives
// the same headless Chromium as the browser test (internal/headless).
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net/http/httptest"
	"os"
	"path/filepath"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/awa-queue/awa/driver"
	"github.com/awa-queue/awa/internal/headless"
	"github.com/awa-queue/awa/ui"
)

func main() {
	dsn := flag.String("dsn", os.Getenv("DATABASE_URL"), "a database holding the migrated awa schema and no job")
	out := flag.String("out", "docs/img", "directory the PNGs go to")
	flag.Parse()
	if err := run(context.Background(), *dsn, *out); err != nil {
		fmt.Fprintln(os.Stderr, "uishots:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, dsn, out string) error {
	if dsn == "" {
		return errors.New("no database: pass -dsn or set DATABASE_URL")
	}
	ctx, cancel := context.WithTimeout(ctx, 3*time.Minute)
	defer cancel()
	pool, err := pgxpool.New(ctx, dsn)
	if err != nil {
		return err
	}
	defer pool.Close()
	d := driver.New()
	h, err := ui.New(d, pool, &ui.Config{PageSize: 14, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		return err
	}
	s := &seeder{ctx: ctx, d: d, db: pool}
	shown, err := s.seed(h)
	if err != nil {
		return fmt.Errorf("seed: %w", err)
	}
	srv := httptest.NewServer(h)
	defer srv.Close()
	path, err := headless.ExecPath()
	if err != nil {
		return err
	}
	tab, stop, err := headless.Start(ctx, path, 1280, 820)
	if err != nil {
		return fmt.Errorf("start %s: %w", path, err)
	}
	defer stop()
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	for _, p := range []struct{ file, path, ready string }{
		{"ui-queues.png", "/queues", "#queues"},
		{"ui-jobs.png", "/jobs", "#jobs"},
		{"ui-job.png", fmt.Sprintf("/jobs/%d", shown), "#job"},
		{"ui-dlq.png", "/dlq", "#jobs"},
		{"ui-storage.png", "/storage", "#storage"},
	} {
		err := chromedp.Do(tab, chromedp.Navigate(srv.URL+p.path), chromedp.WaitVisible(chromedp.CSS(p.ready)))
		var png []byte
		if err == nil {
			png, err = chromedp.Run(tab, chromedp.CaptureScreenshot())
		}
		if err != nil {
			return fmt.Errorf("screenshot %s: %w", p.path, err)
		}
		if err := os.WriteFile(filepath.Join(out, p.file), png, 0o644); err != nil {
			return err
		}
		fmt.Println("wrote", filepath.Join(out, p.file))
	}
	return nil
}

// seeder fills the demo database through the driver, as workers and
// operators would.
type seeder struct {
	ctx context.Context
	d   *driver.Driver
	db  *pgxpool.Pool
}

func (s *seeder) insert(queue, kind string, n int, args func(i int) string, opts driver.InsertOpts) error {
	opts.Queue = queue
	ps := make([]driver.InsertParams, n)
	for i := range ps {
		ps[i] = driver.InsertParams{Kind: kind, Args: []byte(args(i)), Opts: opts}
	}
	_, err := s.d.InsertMany(s.ctx, s.db, ps)
	return err
}

func (s *seeder) claim(queue string, n int) ([]driver.ClaimedJob, error) {
	return s.d.Claim(s.ctx, s.db, queue, n, [16]byte{0xde, 0x40}, 0)
}

func (s *seeder) complete(queue string, n int) error {
	jobs, err := s.claim(queue, n)
	if err != nil {
		return err
	}
	rs := make([]driver.Receipt, len(jobs))
	for i, j := range jobs {
		rs[i] = j.Receipt
	}
	_, err = s.d.Complete(s.ctx, s.db, rs)
	return err
}

func (s *seeder) rotate(rings ...driver.Ring) error {
	for _, r := range rings {
		if _, err := s.d.RotateRing(s.ctx, s.db, r, 0); err != nil {
			return err
		}
	}
	return nil
}

// seed writes the demo jobs and returns the id of the job to show whole.
func (s *seeder) seed(h *ui.Handler) (int64, error) {
	on := true
	if err := s.d.ConfigureQueue(s.ctx, s.db, "mail", driver.QueueOptions{DLQ: &on}); err != nil {
		return 0, err
	}
	mail := func(i int) string {
		return fmt.Sprintf(`{"to": "user%d@example.com", "template": "welcome", "locale": "en"}`, i)
	}
	report := func(i int) string { return fmt.Sprintf(`{"account": %d, "month": "2026-11", "format": "pdf"}`, 1000+i) }
	charge := func(i int) string {
		return fmt.Sprintf(`{"invoice": "INV-%05d", "amount_cents": %d}`, 4200+i, 1999+i*100)
	}
	steps := []func() error{
		func() error {
			return s.insert("mail", "mail.send", 60, mail, driver.InsertOpts{Tags: []string{"signup"},
				Metadata: json.RawMessage(`{"request_id": "7f3c9a1e"}`)})
		},
		func() error { return s.insert("reports", "report.build", 24, report, driver.InsertOpts{Priority: 3}) },
		func() error {
			return s.insert("reports", "report.build", 6, report, driver.InsertOpts{RunAt: time.Now().Add(2 * time.Hour)})
		},
		func() error {
			return s.insert("billing", "billing.charge", 18, charge, driver.InsertOpts{MaxAttempts: 5})
		},
		func() error {
			return s.insert("default", "cache.warm", 9, func(int) string { return `{}` }, driver.InsertOpts{})
		},
		func() error { return s.complete("mail", 20) },
		func() error { return s.rotate(driver.RingQueue, driver.RingClaim) }, // the jobs so far in sealed slots
		func() error { return s.complete("billing", 6) },
		func() error { return h.Sample(s.ctx) }, // the rates' first sample
	}
	for _, step := range steps {
		if err := step(); err != nil {
			return 0, err
		}
	}
	// mail: four fail for good into the DLQ, a few retry later.
	failing, err := s.claim("mail", 7)
	if err != nil {
		return 0, err
	}
	var fails []driver.ReasonItem
	var retries []driver.RetryItem
	for i, j := range failing {
		if i < 4 {
			fails = append(fails, driver.ReasonItem{Receipt: j.Receipt,
				Reason: "smtp: 550 5.1.1 mailbox unavailable: user" + fmt.Sprint(i) + "@example.com"})
		} else {
			retries = append(retries, driver.RetryItem{Receipt: j.Receipt, Error: "smtp: dial tcp 10.0.4.2:25: i/o timeout",
				RetryAt: time.Now().Add(10 * time.Minute)})
		}
	}
	if _, err := s.d.Fail(s.ctx, s.db, fails); err != nil {
		return 0, err
	}
	if _, err := s.d.Retry(s.ctx, s.db, retries); err != nil {
		return 0, err
	}
	// billing: two declined for good, one cancelled, three running (one with
	// progress).
	billing, err := s.claim("billing", 6)
	if err != nil {
		return 0, err
	}
	if _, err := s.d.Fail(s.ctx, s.db, []driver.ReasonItem{{Receipt: billing[0].Receipt, Reason: "card declined: insufficient funds"},
		{Receipt: billing[1].Receipt, Reason: "card declined: expired card"}}); err != nil {
		return 0, err
	}
	if _, err := s.d.Cancel(s.ctx, s.db, []driver.ReasonItem{{Receipt: billing[2].Receipt, Reason: "customer closed the account"}}); err != nil {
		return 0, err
	}
	if err := s.d.SetProgress(s.ctx, s.db, billing[3].Receipt, json.RawMessage(`{"step": "capture", "retries": 1}`)); err != nil {
		return 0, err
	}
	// reports: a few running, the queue paused for a deploy.
	if _, err := s.claim("reports", 3); err != nil {
		return 0, err
	}
	if _, err := s.d.PauseQueue(s.ctx, s.db, "reports"); err != nil {
		return 0, err
	}
	if _, err := s.d.UpsertPeriodicJob(s.ctx, s.db, driver.PeriodicJobParams{Name: "monthly-reports",
		Schedule: "0 3 1 * *", Kind: "report.build", Args: []byte(`{"month": "previous"}`)}); err != nil {
		return 0, err
	}
	// Work goes on for a few seconds, so that the queues page has rates.
	for range 6 {
		time.Sleep(time.Second)
		if err := s.complete("mail", 3); err != nil {
			return 0, err
		}
		if err := s.complete("default", 1); err != nil {
			return 0, err
		}
	}
	return failing[0].JobID, nil
}
