// Package scale holds tests of awa at a scale that ordinary tests do not
// reach (10,000 queues), on a PostgreSQL server with the stock settings that
// size the lock table (max_connections 100, max_locks_per_transaction 64),
// named by AWA_STOCK_DSN. `make test` and `make test/go` start such a cluster
// (scripts/pg.sh with AWA_PG_STOCK=1) and set it. Every write and read goes
// through the public SQL surface, as an application would issue it.
package scale

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" database/sql driver, for goose

	"github.com/awa-queue/awa/internal/pgtest"
)

// envStockDSN names the server DSN of the stock cluster. Its role must be
// able to create databases and roles (the throwaway cluster's postgres is).
const envStockDSN = "AWA_STOCK_DSN"

// stockLockSlots is the lock table of a stock server in the unit the test
// compares: max_locks_per_transaction x (max_connections +
// max_prepared_transactions), 64 x 100.
const stockLockSlots = 64 * 100

// stockDSN returns AWA_STOCK_DSN, or fails the test when it is unset: the test
// is part of the suite, never skipped. It also fails when the server's lock
// table is larger than a stock server's, where the test would prove nothing.
func stockDSN(t *testing.T, ctx context.Context) string {
	t.Helper()
	dsn := os.Getenv(envStockDSN)
	if dsn == "" {
		how := "Run `make test` or `make test/go`, which start a stock cluster and set it, or start one yourself: " +
			"`AWA_PG_STOCK=1 scripts/pg.sh start` (port $AWA_STOCK_PORT, default 54330), then " +
			"`export " + envStockDSN + "=$(AWA_PG_STOCK=1 scripts/pg.sh dsn)`"
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s is not set and CI=true: the CI run must provide the stock cluster. %s", envStockDSN, how)
		}
		t.Fatalf("%s is not set: this test needs a PostgreSQL 15 server with stock max_connections (100) and "+
			"max_locks_per_transaction (64), whose role can create databases and roles. %s", envStockDSN, how)
	}
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatalf("connect to %s: %v", envStockDSN, err)
	}
	defer conn.Close(context.Background())
	var conns, locks, prepared int
	if err := conn.QueryRow(ctx, `SELECT current_setting('max_connections')::int,
		current_setting('max_locks_per_transaction')::int, current_setting('max_prepared_transactions')::int`).
		Scan(&conns, &locks, &prepared); err != nil {
		t.Fatal(err)
	}
	if locks*(conns+prepared) > stockLockSlots {
		t.Fatalf("%s names a server whose lock table is larger than a stock server's: max_locks_per_transaction %d x "+
			"(max_connections %d + max_prepared_transactions %d) > 64 x 100; start a stock one with "+
			"`AWA_PG_STOCK=1 scripts/pg.sh start`", envStockDSN, locks, conns, prepared)
	}
	return dsn
}

// newDatabase creates a fresh database on the server of serverDSN, installs
// awa in it by the embedded goose migrations (the production path) and
// returns its name. It is dropped WITH (FORCE) when the test ends.
func newDatabase(t *testing.T, ctx context.Context, serverDSN, prefix string) string {
	t.Helper()
	name := fmt.Sprintf("%s_%d_%s", prefix, os.Getpid(), randomHex(t))
	admin, err := pgx.Connect(ctx, serverDSN)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close(context.Background())
	if _, err := admin.Exec(ctx, "CREATE DATABASE "+ident(name)+" TEMPLATE template0"); err != nil {
		t.Fatalf("create database %s: %v", name, err)
	}
	t.Cleanup(func() { pgtest.DropDatabase(t, serverDSN, name) })
	return name
}

// migrate applies the embedded goose migrations to the database of dsn.
func migrate(t *testing.T, ctx context.Context, dsn string) {
	t.Helper()
	p, closeDB, err := pgtest.OpenProvider(dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer closeDB()
	if _, err := p.Up(ctx); err != nil {
		t.Fatalf("goose up: %v", err)
	}
}

// newRole creates a LOGIN role with a random password (so the DSN works on a
// server that does not trust local connections) and returns its name and
// password. It is dropped when the test ends; register it before the
// databases that grant it privileges, so they are dropped first.
func newRole(t *testing.T, ctx context.Context, serverDSN, prefix string) (name, password string) {
	t.Helper()
	name = fmt.Sprintf("%s_%d_%s", prefix, os.Getpid(), randomHex(t))
	password = randomHex(t) + randomHex(t)
	admin, err := pgx.Connect(ctx, serverDSN)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close(context.Background())
	if _, err := admin.Exec(ctx, fmt.Sprintf("CREATE ROLE %s LOGIN PASSWORD '%s'", ident(name), password)); err != nil {
		t.Fatalf("create role: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		admin, err := pgx.Connect(ctx, serverDSN)
		if err != nil {
			t.Errorf("drop role %s: connect: %v", name, err)
			return
		}
		defer admin.Close(context.Background())
		if _, err := admin.Exec(ctx, "DROP ROLE IF EXISTS "+ident(name)); err != nil {
			t.Errorf("drop role %s: %v", name, err)
		}
	})
	return name, password
}

// connectAs opens a connection to dsn, as user/password when user is not
// empty. It is closed when the test ends.
func connectAs(t *testing.T, ctx context.Context, dsn, user, password string) *pgx.Conn {
	t.Helper()
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		t.Fatal(err)
	}
	if user != "" {
		cfg.User, cfg.Password = user, password
	}
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		t.Fatalf("connect to %s as %s: %v", cfg.Database, cfg.User, err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	return conn
}

func randomHex(t *testing.T) string {
	var b [4]byte
	if _, err := rand.Read(b[:]); err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(b[:])
}

func ident(s string) string { return pgx.Identifier{s}.Sanitize() }

// timed runs f and logs how long it took under the given name.
func timed(t *testing.T, what string, f func()) {
	t.Helper()
	start := time.Now()
	f()
	t.Logf("%-44s %8.1f ms", what, float64(time.Since(start).Microseconds())/1000)
}
