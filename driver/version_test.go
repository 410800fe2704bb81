package driver_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/awa-queue/awa/db"
	"github.com/awa-queue/awa/driver"
	"github.com/awa-queue/awa/internal/pgtest"
)

// The driver's versions follow the migrations: the head migrations install
// SubstrateVersion, and PreviousSubstrateVersion is the newest release (or,
// once the head is itself released, the one before; then SubstrateVersion is
// that release).
func TestSubstrateVersionsMatchTheMigrations(t *testing.T) {
	pool := pgtest.NewDB(t)
	var head string
	if err := pool.QueryRow(context.Background(), `SELECT awa.substrate_version()`).Scan(&head); err != nil {
		t.Fatal(err)
	}
	if head != driver.SubstrateVersion {
		t.Fatalf("the head migrations install substrate %q, driver.SubstrateVersion is %q", head, driver.SubstrateVersion)
	}
	released, _, err := db.LatestRelease()
	if err != nil {
		t.Fatal(err)
	}
	if released != driver.PreviousSubstrateVersion && released != driver.SubstrateVersion {
		t.Fatalf("newest release marker is v%s: driver.PreviousSubstrateVersion (%s) or SubstrateVersion (%s) must be it",
			released, driver.PreviousSubstrateVersion, driver.SubstrateVersion)
	}
}

// A client starts against the substrate of its release and of the release
// before: the head migrations, and the newest release's migrations alone.
func TestClientStartsAgainstItsReleaseAndThePrevious(t *testing.T) {
	_, last, err := db.LatestRelease()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		pool *pgxpool.Pool
		want string
	}{
		{"head", pgtest.NewDB(t), driver.SubstrateVersion},
		{"previous release", openPool(t, pgtest.NewDBAtDSN(t, last)), driver.PreviousSubstrateVersion},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v, err := driver.New().CheckSubstrateVersion(context.Background(), tc.pool)
			if err != nil || v != tc.want {
				t.Fatalf("CheckSubstrateVersion = %q, %v; want %q", v, err, tc.want)
			}
			startClient(t, tc.pool, &driver.Config{Queues: map[string]driver.QueueConfig{"q": {MaxWorkers: 1}},
				Workers: driver.NewWorkers(), DisableMaintenance: true})
		})
	}
}

// Any other substrate makes Start (and a producer's first insert) fail with
// ErrSubstrateVersion, naming both versions and what to run, before it
// registers the process or writes a job.
func TestClientRefusesOtherSubstrateVersions(t *testing.T) {
	setVersion := func(v string) string {
		return `CREATE OR REPLACE FUNCTION awa.substrate_version() RETURNS text LANGUAGE sql AS $$ SELECT '` + v + `'::text $$`
	}
	release := strings.TrimSuffix(driver.SubstrateVersion, "-dev")
	for _, tc := range []struct {
		name, setup string
		want        []string // in the error message
	}{
		{"next minor", setVersion("0.3.0"), []string{"0.3.0", "newer than", driver.SubstrateVersion, "client of release 0.3.0"}},
		{"next major", setVersion("1.0.0"), []string{"1.0.0", "newer than", "client of release 1.0.0"}},
		{"too old", setVersion("0.0.9"), []string{"0.0.9", driver.SubstrateVersion, driver.PreviousSubstrateVersion, "awa migrate up"}},
		{"malformed", setVersion("banana"), []string{"banana", "awa migrate up"}},
		{"without the function", `DROP FUNCTION awa.substrate_version()`, []string{"no awa.substrate_version()", driver.SubstrateVersion, "awa migrate up"}},
		{"without schema awa", `DROP SCHEMA awa CASCADE`, []string{"no awa.substrate_version()", "awa migrate up"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if strings.HasSuffix(driver.SubstrateVersion, "-dev") && tc.name == "next minor" {
				// the release of this -dev version is newer than it too
				tc.setup, tc.want = setVersion(release), []string{release, "newer than", "client of release " + release}
			}
			pool := pgtest.NewDB(t)
			ctx := context.Background()
			if _, err := pool.Exec(ctx, tc.setup); err != nil {
				t.Fatal(err)
			}
			_, checkErr := driver.New().CheckSubstrateVersion(ctx, pool)
			c, err := driver.NewClient(pool, &driver.Config{Queues: map[string]driver.QueueConfig{"q": {MaxWorkers: 1}},
				Workers: driver.NewWorkers()})
			if err != nil {
				t.Fatal(err)
			}
			sctx, cancel := context.WithTimeout(ctx, 10*time.Second)
			defer cancel()
			startErr := c.Start(sctx)
			_, insertErr := c.Insert(sctx, insertArgs{}, nil) // a client that only produces checks on its first insert
			for _, err := range []error{checkErr, startErr, insertErr} {
				if !errors.Is(err, driver.ErrSubstrateVersion) {
					t.Fatalf("error = %v, want ErrSubstrateVersion", err)
				}
				for _, w := range tc.want {
					if !strings.Contains(err.Error(), w) {
						t.Errorf("error %q does not say %q", err, w)
					}
				}
			}
			if tc.name != "without schema awa" {
				var n, jobs int
				if err := pool.QueryRow(ctx, `SELECT (SELECT count(*) FROM awa.runtime_instances), (SELECT count(*) FROM awa.jobs)`).
					Scan(&n, &jobs); err != nil || n != 0 || jobs != 0 {
					t.Fatalf("processes registered by the refused Start: %d, jobs inserted: %d (%v); want none", n, jobs, err)
				}
			}
		})
	}
}
