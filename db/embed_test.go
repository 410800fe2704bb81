package db_test

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/pressly/goose/v3"

	"github.com/awa-queue/awa/db"
	"github.com/awa-queue/awa/internal/pgtest"
)

// TestEmbeddedMigrations needs no server: it checks what the binary carries.
func TestEmbeddedMigrations(t *testing.T) {
	p, closeDB, err := pgtest.OpenProvider("postgres://unused.invalid/x") // never connected
	if err != nil {
		t.Fatal(err)
	}
	defer closeDB()
	src := p.ListSources()
	if len(src) == 0 || src[0].Version != 1 || src[0].Path != "00001_awa_substrate.sql" {
		t.Fatalf("embedded migrations = %+v, want 00001_awa_substrate.sql first", src)
	}
	for i, s := range src {
		if s.Version != int64(i+1) {
			t.Fatalf("embedded migration %d is %s: want versions 1, 2, ... without a gap", i, s.Path)
		}
	}
	version, last, err := db.LatestRelease()
	if err != nil || version == "" || last < 1 || last > int64(len(src)) || last < int64(len(src)-1) {
		t.Fatalf("LatestRelease() = %q, %d, %v; want a version whose migrations are all embedded, "+
			"with at most one unreleased migration after them (%d embedded)", version, last, err, len(src))
	}
	body, err := db.Migrations.ReadFile("migrations/00001_awa_substrate.sql")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(body), "SELECT awa.install_queue_storage_substrate();") {
		t.Fatal("migration does not call awa.install_queue_storage_substrate()")
	}
}

// TestProviderUpDown applies the migration through goose + pgx (the goose CLI's
// path too) in a fresh database: up, up again (no-op), down-to 0, up again.
func TestProviderUpDown(t *testing.T) {
	sqlDB := freshDatabase(t)
	ctx := context.Background()
	p, err := db.Provider(sqlDB)
	if err != nil {
		t.Fatal(err)
	}

	head := int64(len(p.ListSources()))
	res, err := p.Up(ctx)
	if err != nil {
		t.Fatalf("up: %v", err)
	}
	if int64(len(res)) != head {
		t.Fatalf("up applied %d migrations, want all %d", len(res), head)
	}
	assertSchema(t, sqlDB, true)

	res, err = p.Up(ctx)
	if err != nil || len(res) != 0 {
		t.Fatalf("second up = %d results, %v; want a no-op", len(res), err)
	}
	if v, err := p.GetDBVersion(ctx); err != nil || v != head {
		t.Fatalf("db version = %d, %v; want %d", v, err, head)
	}

	if _, err := p.DownTo(ctx, 0); err != nil {
		t.Fatalf("down-to 0: %v", err)
	}
	assertSchema(t, sqlDB, false)
	if v, err := p.GetDBVersion(ctx); err != nil || v != 0 {
		t.Fatalf("db version after down = %d, %v; want 0", v, err)
	}

	if _, err := p.Up(ctx); err != nil {
		t.Fatalf("up after down: %v", err)
	}
	assertSchema(t, sqlDB, true)
}

// TestInstallsBesideAnAppsOwnGooseMigrations: the application's own goose
// migrations (versions 1..3, goose's default goose_db_version table) are
// applied first. awa's Provider still installs schema awa (it records its
// versions in db.VersionTable), leaves the app's table as it was, and removes
// only its own objects on DownTo(0); the app's goose sees its 3 versions
// throughout. With one shared table awa read the app's version 3 as its own
// and installed nothing.
func TestInstallsBesideAnAppsOwnGooseMigrations(t *testing.T) {
	sqlDB := freshDatabase(t)
	ctx := context.Background()
	app := fstest.MapFS{}
	for v := 1; v <= 3; v++ {
		app[fmt.Sprintf("%05d_app_%d.sql", v, v)] = &fstest.MapFile{Data: []byte(fmt.Sprintf(
			"-- +goose Up\nCREATE TABLE app_table_%d (id int);\n-- +goose Down\nDROP TABLE app_table_%d;\n", v, v))}
	}
	appGoose, err := goose.NewProvider(goose.DialectPostgres, sqlDB, app)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := appGoose.Up(ctx); err != nil {
		t.Fatalf("the app's migrations: %v", err)
	}
	appVersion := func() int64 {
		t.Helper()
		v, err := appGoose.GetDBVersion(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}

	p, err := db.Provider(sqlDB)
	if err != nil {
		t.Fatal(err)
	}
	head := int64(len(p.ListSources()))
	res, err := p.Up(ctx)
	if err != nil || int64(len(res)) != head {
		t.Fatalf("awa up beside the app's version 3: %d applied, %v; want %d", len(res), err, head)
	}
	assertSchema(t, sqlDB, true)
	if v, err := p.GetDBVersion(ctx); err != nil || v != head {
		t.Fatalf("awa's version = %d, %v; want %d", v, err, head)
	}
	var appRows, awaRows int
	if err := sqlDB.QueryRow(`SELECT (SELECT count(*) FROM goose_db_version WHERE version_id > 0),
	                                  (SELECT count(*) FROM `+db.VersionTable+` WHERE version_id > 0)`).
		Scan(&appRows, &awaRows); err != nil {
		t.Fatal(err)
	}
	if appRows != 3 || int64(awaRows) != head {
		t.Fatalf("version rows: app %d, awa %d; want 3 and %d (each in its own table)", appRows, awaRows, head)
	}
	if v := appVersion(); v != 3 {
		t.Fatalf("the app's version after awa's install = %d, want 3", v)
	}

	if _, err := p.DownTo(ctx, 0); err != nil {
		t.Fatalf("awa down-to 0: %v", err)
	}
	assertSchema(t, sqlDB, false)
	var appTables int
	if err := sqlDB.QueryRow(`SELECT count(*) FROM pg_tables WHERE tablename LIKE 'app_table_%'`).Scan(&appTables); err != nil || appTables != 3 {
		t.Fatalf("the app's tables after awa's down-to 0: %d (err %v), want 3", appTables, err)
	}
	if v := appVersion(); v != 3 {
		t.Fatalf("the app's version after awa's down-to 0 = %d, want 3", v)
	}
}

func assertSchema(t *testing.T, sqlDB *sql.DB, want bool) {
	t.Helper()
	var have bool
	if err := sqlDB.QueryRow(`SELECT to_regnamespace('awa') IS NOT NULL`).Scan(&have); err != nil {
		t.Fatal(err)
	}
	if have != want {
		t.Fatalf("schema awa exists = %v, want %v", have, want)
	}
}

// freshDatabase creates an empty database on the AWA_TEST_DSN server (dropped
// at the end of the test) and returns a handle to it. Fails without a server:
// a missing database never passes for a green run.
func freshDatabase(t *testing.T) *sql.DB {
	t.Helper()
	sqlDB, _ := freshDatabaseDSN(t)
	return sqlDB
}

// freshDatabaseDSN is freshDatabase that also returns the database's DSN.
func freshDatabaseDSN(t *testing.T) (*sql.DB, string) {
	t.Helper()
	dsn := os.Getenv("AWA_TEST_DSN")
	if dsn == "" {
		t.Fatal("AWA_TEST_DSN is not set: run `make test` (or `make test/go`), which starts a PostgreSQL server")
	}
	admin, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { admin.Close() })
	name := fmt.Sprintf("awa_gotest_%d_%d", os.Getpid(), time.Now().UnixNano())
	if _, err := admin.Exec("CREATE DATABASE " + name); err != nil {
		t.Fatal(err)
	}
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Database = name
	sqlDB := stdlib.OpenDB(*cfg)
	t.Cleanup(func() {
		sqlDB.Close()
		if _, err := admin.Exec("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)"); err != nil {
			t.Error(err)
		}
	})
	return sqlDB, pgtest.WithDatabase(dsn, name)
}

// TestConcurrentUpsInstallOnce: several instances of an application that
// migrate at start run Up at the same moment on a fresh database. Each must
// succeed, and the schema must be installed once (without the lock table, the
// loser failed with a raw 23505 on pg_type's unique index).
func TestConcurrentUpsInstallOnce(t *testing.T) {
	sqlDB := freshDatabase(t)
	ctx := context.Background()
	const n = 6
	errs := make(chan error, n)
	applied := make(chan int, n)
	start := make(chan struct{})
	for i := 0; i < n; i++ {
		go func() {
			p, err := db.Provider(sqlDB)
			if err != nil {
				errs <- err
				return
			}
			<-start
			res, err := p.Up(ctx)
			applied <- len(res)
			errs <- err
		}()
	}
	close(start)
	total := 0
	for i := 0; i < n; i++ {
		if err := <-errs; err != nil {
			t.Fatalf("a concurrent up: %v", err)
		}
		total += <-applied
	}
	p, err := db.Provider(sqlDB)
	if err != nil {
		t.Fatal(err)
	}
	head := int64(len(p.ListSources()))
	if int64(total) != head {
		t.Fatalf("the concurrent ups applied %d migrations between them, want each of the %d once", total, head)
	}
	if v, err := p.GetDBVersion(ctx); err != nil || v != head {
		t.Fatalf("db version = %d, %v; want %d", v, err, head)
	}
	assertSchema(t, sqlDB, true)
}
