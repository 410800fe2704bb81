package db_test

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"

	"github.com/awa-queue/awa/db"
)

// TestEmbeddedMigrations needs no server: it checks what the binary carries.
func TestEmbeddedMigrations(t *testing.T) {
	sqlDB, err := sql.Open("pgx", "postgres://unused.invalid/x") // never connected
	if err != nil {
		t.Fatal(err)
	}
	defer sqlDB.Close()
	p, err := db.Provider(sqlDB)
	if err != nil {
		t.Fatal(err)
	}
	src := p.ListSources()
	if len(src) != 1 || src[0].Version != 1 || src[0].Path != "00001_awa_substrate.sql" {
		t.Fatalf("embedded migrations = %+v, want the single 00001_awa_substrate.sql", src)
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

	res, err := p.Up(ctx)
	if err != nil {
		t.Fatalf("up: %v", err)
	}
	if len(res) != 1 {
		t.Fatalf("up applied %d migrations, want 1", len(res))
	}
	assertSchema(t, sqlDB, true)

	res, err = p.Up(ctx)
	if err != nil || len(res) != 0 {
		t.Fatalf("second up = %d results, %v; want a no-op", len(res), err)
	}
	if v, err := p.GetDBVersion(ctx); err != nil || v != 1 {
		t.Fatalf("db version = %d, %v; want 1", v, err)
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
// at the end of the test) and returns a handle to it. Skips without a server.
func freshDatabase(t *testing.T) *sql.DB {
	t.Helper()
	dsn := os.Getenv("AWA_TEST_DSN")
	if dsn == "" {
		t.Skip("AWA_TEST_DSN not set (make test/go starts a server)")
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
	return sqlDB
}
