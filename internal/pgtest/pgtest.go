// Package pgtest gives Go tests a private, fully migrated awa database on the
// PostgreSQL server named by AWA_TEST_DSN (`make test` and `make test/go` set
// it). Without AWA_TEST_DSN it starts a PostgreSQL 15 container with
// testcontainers-go when Docker is reachable, and fails the tests otherwise.
//
// The first NewDB/NewDBDSN call in a test binary makes sure a template database
// exists: awa_tmpl_<hash>, where <hash> covers the embedded goose migrations
// (package db), so a changed migration gets a new template. The template is
// built once, under a session advisory lock on the server, by whichever test
// binary gets there first; the others wait for it and reuse it. Every test then
// gets its own clone (CREATE DATABASE ... TEMPLATE, about a tenth of a second),
// dropped WITH (FORCE) when the test ends.
//
// Templates of older migration contents are left on the server; they are
// plain databases (ALLOW_CONNECTIONS false, IS_TEMPLATE true) and can be
// dropped by hand: ALTER DATABASE x IS_TEMPLATE false; DROP DATABASE x.
package pgtest

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	_ "github.com/jackc/pgx/v5/stdlib" // registers the "pgx" database/sql driver for goose
	"github.com/pressly/goose/v3"

	"github.com/awa-queue/awa/db"
)

// EnvDSN names the environment variable holding the server DSN. The role must
// be allowed to create databases (the dev server's postgres superuser is).
const EnvDSN = "AWA_TEST_DSN"

// templateLockKey is the session advisory lock that serializes template builds
// across concurrent test binaries on one server.
const templateLockKey int64 = 0x6177615f746d706c // "awa_tmpl"

// DSN returns the server the tests use: AWA_TEST_DSN when set; otherwise,
// when Docker is reachable, a PostgreSQL 15 container started once per test
// binary with testcontainers-go (see server.go); otherwise it fails the test:
// the database tests are part of the suite, never silently skipped.
func DSN(t testing.TB) string {
	t.Helper()
	dsn, err := server()
	if err != nil {
		t.Fatalf("%v", err)
	}
	return dsn
}

// Context returns a context that ends with the test or after d, whichever is
// first, so a hang fails the test with a message instead of stopping the
// whole package at its timeout.
func Context(t testing.TB, d time.Duration) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

// NewDB returns a pool on a fresh database holding the migrated awa schema.
// The pool is closed and the database dropped when the test ends. The pool has
// pgxpool's default size; tests that need a fixed set of dedicated connections
// can open them from pool.Config().ConnConfig.
func NewDB(t testing.TB) *pgxpool.Pool {
	t.Helper()
	dsn := NewDBDSN(t)
	cfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		t.Fatalf("pgtest: parse DSN: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		t.Fatalf("pgtest: open pool: %v", err)
	}
	if err := pool.Ping(ctx); err != nil {
		pool.Close()
		t.Fatalf("pgtest: ping %s: %v", cfg.ConnConfig.Database, err)
	}
	t.Cleanup(pool.Close) // runs before the drop registered by NewDBDSN
	return pool
}

// NewDBDSN creates a fresh migrated database like NewDB and returns its DSN
// (AWA_TEST_DSN with the database replaced), for tests that hand a DSN to a
// subprocess or open their own connections. The database is dropped WITH
// (FORCE) when the test ends, so leftover connections do not block it.
func NewDBDSN(t testing.TB) string {
	t.Helper()
	dsn := DSN(t)
	name, err := createDB(dsn)
	if err != nil {
		t.Fatalf("pgtest: %v", err)
	}
	t.Cleanup(func() {
		if err := dropDB(dsn, name); err != nil {
			t.Errorf("pgtest: %v", err)
		}
	})
	return WithDatabase(dsn, name)
}

// RunWithDB runs m with *dsn set to a fresh migrated database, as NewDBDSN
// makes, for packages whose Go examples need one (an example has no
// testing.T), and returns the exit status for os.Exit. The run fails when
// there is no server (see DSN); the database is dropped after the run, and a
// container started for the run is removed.
func RunWithDB(m *testing.M, dsn *string) int {
	srv, err := server()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer func() {
		if err := stopServer(); err != nil {
			fmt.Fprintf(os.Stderr, "pgtest: remove container: %v\n", err)
		}
	}()
	name, err := createDB(srv)
	if err != nil {
		fmt.Fprintf(os.Stderr, "pgtest: %v\n", err)
		return 1
	}
	*dsn = WithDatabase(srv, name)
	code := m.Run()
	if err := dropDB(srv, name); err != nil {
		fmt.Fprintf(os.Stderr, "pgtest: %v\n", err)
		code = max(code, 1)
	}
	return code
}

// NewDBAtDSN creates a fresh database with the embedded migrations applied up
// to goose version upTo (0: an empty database, no schema awa) and returns its
// DSN; dropped when the test ends. For tests of an older release
// (db.LatestRelease) and of upgrades.
func NewDBAtDSN(t testing.TB, upTo int64) string {
	t.Helper()
	server := DSN(t)
	name, err := createDBFrom(server, "template0")
	if err != nil {
		t.Fatalf("pgtest: %v", err)
	}
	t.Cleanup(func() { DropDatabase(t, server, name) })
	dsn := WithDatabase(server, name)
	if upTo > 0 {
		if _, err := MigrateTo(context.Background(), dsn, upTo); err != nil {
			t.Fatalf("pgtest: migrate %s up to %d: %v", name, upTo, err)
		}
	}
	return dsn
}

// createDB clones the migrated template into a new database on the server of
// serverDSN and returns its name.
func createDB(serverDSN string) (string, error) {
	tmpl, err := template(serverDSN)
	if err != nil {
		return "", fmt.Errorf("template database: %w", err)
	}
	return createDBFrom(serverDSN, tmpl)
}

func createDBFrom(serverDSN, tmpl string) (string, error) {
	var rnd [4]byte
	if _, err := rand.Read(rnd[:]); err != nil {
		return "", err
	}
	name := fmt.Sprintf("awa_test_%d_%s", os.Getpid(), hex.EncodeToString(rnd[:]))

	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	admin, err := pgx.Connect(ctx, serverDSN)
	if err != nil {
		return "", fmt.Errorf("connect to %s: %w", EnvDSN, err)
	}
	defer admin.Close(context.Background())
	if _, err := admin.Exec(ctx, "CREATE DATABASE "+ident(name)+" TEMPLATE "+ident(tmpl)); err != nil {
		return "", fmt.Errorf("create database %s from %s: %w", name, tmpl, err)
	}
	return name, nil
}

// DropDatabase drops database name on the server of serverDSN WITH (FORCE),
// so leftover connections do not block it; failures are test errors.
func DropDatabase(t testing.TB, serverDSN, name string) {
	if err := dropDB(serverDSN, name); err != nil {
		t.Errorf("pgtest: %v", err)
	}
}

func dropDB(serverDSN, name string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	admin, err := pgx.Connect(ctx, serverDSN)
	if err != nil {
		return fmt.Errorf("drop %s: connect: %w", name, err)
	}
	defer admin.Close(context.Background())
	if _, err := admin.Exec(ctx, "DROP DATABASE IF EXISTS "+ident(name)+" WITH (FORCE)"); err != nil {
		return fmt.Errorf("drop database %s: %w", name, err)
	}
	return nil
}

var (
	tmplOnce sync.Once
	tmplName string
	tmplErr  error
)

// template returns the name of the migrated template database, building it on
// first use in this binary (at most once per server and migration content).
func template(dsn string) (string, error) {
	tmplOnce.Do(func() { tmplName, tmplErr = ensureTemplate(dsn) })
	return tmplName, tmplErr
}

func ensureTemplate(dsn string) (string, error) {
	sum, err := migrationsHash()
	if err != nil {
		return "", err
	}
	name := "awa_tmpl_" + sum
	build := name + "_build"

	// Connects as createDBFrom does (the Go idiom, with its own deadline).
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	admin, err := pgx.Connect(ctx, dsn)
	if err != nil {
		return "", fmt.Errorf("connect to %s: %w", EnvDSN, err)
	}
	defer admin.Close(context.Background())

	// Session lock: released by the unlock below or when this connection ends,
	// so a test binary that dies mid-build never wedges the others.
	if _, err := admin.Exec(ctx, "SELECT pg_advisory_lock($1)", templateLockKey); err != nil {
		return "", fmt.Errorf("template lock: %w", err)
	}
	defer admin.Exec(context.Background(), "SELECT pg_advisory_unlock($1)", templateLockKey)

	var exists bool
	if err := admin.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)", name).
		Scan(&exists); err != nil {
		return "", err
	}
	if exists {
		return name, nil // complete: it only gets its final name after migrating
	}

	// A build database left by a crashed binary is garbage: start over.
	if _, err := admin.Exec(ctx, "DROP DATABASE IF EXISTS "+ident(build)+" WITH (FORCE)"); err != nil {
		return "", err
	}
	if _, err := admin.Exec(ctx, "CREATE DATABASE "+ident(build)+" TEMPLATE template0"); err != nil {
		return "", err
	}
	if err := migrate(ctx, WithDatabase(dsn, build)); err != nil {
		return "", fmt.Errorf("migrate %s: %w", build, err)
	}
	// Rename needs the build database to have no sessions; the migration's
	// backend may take a moment to exit after its client closed.
	for deadline := time.Now().Add(30 * time.Second); ; {
		_, err = admin.Exec(ctx, "ALTER DATABASE "+ident(build)+" RENAME TO "+ident(name))
		var pgErr *pgconn.PgError
		if err == nil || !errors.As(err, &pgErr) || pgErr.Code != "55006" || time.Now().After(deadline) {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if err != nil {
		return "", fmt.Errorf("rename %s: %w", build, err)
	}
	// Nobody may connect to the template: a session on it would make every
	// CREATE DATABASE ... TEMPLATE fail.
	if _, err := admin.Exec(ctx, "ALTER DATABASE "+ident(name)+" WITH IS_TEMPLATE true ALLOW_CONNECTIONS false"); err != nil {
		return "", err
	}
	return name, nil
}

// migrate applies the embedded goose migrations.
func migrate(ctx context.Context, dsn string) error {
	_, err := MigrateTo(ctx, dsn, -1)
	return err
}

// MigrateTo applies the embedded migrations to the database of dsn up to
// goose version upTo (-1: all, as `awa migrate up`) through db.Provider, and
// returns the files it applied.
func MigrateTo(ctx context.Context, dsn string, upTo int64) ([]string, error) {
	p, closeDB, err := OpenProvider(dsn)
	if err != nil {
		return nil, err
	}
	defer closeDB()
	var res []*goose.MigrationResult
	if upTo < 0 {
		res, err = p.Up(ctx)
	} else {
		res, err = p.UpTo(ctx, upTo)
	}
	var names []string
	for _, r := range res {
		names = append(names, r.Source.Path)
	}
	return names, err
}

// OpenProvider opens the goose provider of the embedded migrations the way
// production does (db.Provider over database/sql with the pgx stdlib driver);
// closeDB closes its connection pool.
func OpenProvider(dsn string) (p *goose.Provider, closeDB func(), err error) {
	return OpenSchemaProvider(dsn, db.DefaultSchema)
}

// InstallSchema installs awa into schema (db.SchemaProvider) in the database
// of dsn, beside what it holds already; it fails the test on an error.
func InstallSchema(t testing.TB, dsn, schema string) {
	t.Helper()
	p, closeDB, err := OpenSchemaProvider(dsn, schema)
	if err != nil {
		t.Fatal(err)
	}
	defer closeDB()
	if _, err := p.Up(Context(t, time.Minute)); err != nil {
		t.Fatalf("install schema %s: %v", schema, err)
	}
}

// OpenSchemaProvider is OpenProvider for an install in schema.
func OpenSchemaProvider(dsn, schema string) (p *goose.Provider, closeDB func(), err error) {
	sqlDB, err := sql.Open("pgx", dsn)
	if err != nil {
		return nil, nil, err
	}
	if p, err = db.SchemaProvider(sqlDB, schema); err != nil {
		sqlDB.Close()
		return nil, nil, err
	}
	return p, func() { sqlDB.Close() }, nil
}

// migrationsHash is a short hex digest of the embedded migration files' names
// and contents.
func migrationsHash() (string, error) {
	h := sha256.New()
	err := fs.WalkDir(db.Migrations, ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		body, err := db.Migrations.ReadFile(path)
		if err != nil {
			return err
		}
		fmt.Fprintf(h, "%s\x00%d\x00", path, len(body))
		h.Write(body)
		return nil
	})
	if err != nil {
		return "", fmt.Errorf("hash migrations: %w", err)
	}
	return hex.EncodeToString(h.Sum(nil))[:16], nil
}

// WithDatabase returns dsn with its database replaced by name. It handles URLs
// (postgres://...) and keyword/value strings (a later dbname= wins).
func WithDatabase(dsn, name string) string {
	if strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://") {
		if u, err := url.Parse(dsn); err == nil {
			u.Path = "/" + name
			u.RawPath = ""
			return u.String()
		}
	}
	return dsn + " dbname=" + name
}

func ident(s string) string { return pgx.Identifier{s}.Sanitize() }
