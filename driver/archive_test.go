package driver_test

import (
	"errors"
	"testing"
	"time"

	"github.com/awa-queue/awa/driver"
)

// TestConfigureArchiveAndMaintainArchive: ConfigureArchive sets a queue's
// retention (a negative one removes the override) and maps bad input to its
// sentinel, writing nothing; MaintainArchive creates the cohorts ahead that
// the retentions need, once, and reports each step.
func TestConfigureArchiveAndMaintainArchive(t *testing.T) {
	ctx, pool := parallelDB(t, time.Minute)
	d := driver.New()
	hour, none, tooLong := time.Hour, time.Duration(-1), 11*365*24*time.Hour
	if err := d.ConfigureArchive(ctx, pool, "mail", driver.ArchiveOptions{Completed: &hour}); err != nil {
		t.Fatalf("ConfigureArchive(mail, Completed 1h): %v", err)
	}
	var n int
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM awa.archive_retention
	                               WHERE queue = 'mail' AND state = 'completed' AND retention = '1 hour'`).Scan(&n); err != nil || n != 1 {
		t.Fatalf("mail's completed retention: %d rows of 1 hour, %v; want 1", n, err)
	}
	err := d.ConfigureArchive(ctx, pool, "mail", driver.ArchiveOptions{Failed: &tooLong})
	if !errors.Is(err, driver.ErrOptionOutOfRange) {
		t.Fatalf("ConfigureArchive(Failed 11 years) = %v, want ErrOptionOutOfRange", err)
	}
	bad := "no_such_function"
	if err := d.ConfigureArchive(ctx, pool, "", driver.ArchiveOptions{ExportFunction: &bad}); !errors.Is(err, driver.ErrInvalidArgument) {
		t.Fatalf("ConfigureArchive(ExportFunction %q) = %v, want ErrInvalidArgument", bad, err)
	}
	if err := d.ConfigureArchive(ctx, pool, "mail", driver.ArchiveOptions{Completed: &none}); err != nil {
		t.Fatalf("ConfigureArchive(mail, Completed removed): %v", err)
	}
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM awa.archive_retention WHERE queue = 'mail'`).Scan(&n); err != nil || n != 0 {
		t.Fatalf("mail's overrides after removal: %d, %v; want 0", n, err)
	}

	outs, err := d.MaintainArchive(ctx, pool, 50*time.Millisecond, 16)
	if err != nil {
		t.Fatal(err)
	}
	// Two retentions in use (24 h; 7 days for failed and cancelled): five
	// cohorts around each.
	if len(outs) != 10 || outs[0].Action != "create" || outs[0].Outcome != "created" || outs[0].CohortStart.IsZero() {
		t.Fatalf("MaintainArchive on a fresh install = %+v; want 10 cohorts created", outs)
	}
	if outs, err = d.MaintainArchive(ctx, pool, 50*time.Millisecond, 16); err != nil || len(outs) != 0 {
		t.Fatalf("a second MaintainArchive = %+v, %v; want nothing to do", outs, err)
	}
}
