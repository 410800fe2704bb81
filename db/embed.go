// Package db ships awa's database schema as goose migrations.
//
// The migrations are generated from sql/ by scripts/gen-migrations.sh
// (`make generate`): those of the releases (releases/vX.Y.Z) are frozen, the
// unreleased one holds what changed since (docs/releases.md). `make verify`
// checks that applying them all in order through goose yields the same awa
// catalog as applying sql/ directly with psql.
package db

import (
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"time"

	"github.com/pressly/goose/v3"
	"github.com/pressly/goose/v3/lock"

	"github.com/awa-queue/awa/internal/sqlschema"
)

// Migrations holds the goose SQL migrations (migrations/*.sql), embedded in the
// binary. Paths inside it start with "migrations/"; Provider strips that prefix.
// The same files work with the goose CLI, given awa's own version table:
//
//	goose -table awa_goose_db_version -dir db/migrations postgres "$DATABASE_URL" up
//
//go:embed migrations/*.sql
var Migrations embed.FS

// VersionTable is the table in which goose records which awa migrations are
// applied. It is awa's own: an application's goose migrations record theirs in
// goose's default goose_db_version, and neither reads the other's versions
// (with a shared table, awa saw the app's version 1 and installed nothing).
// Another schema's install has its own (SchemaVersionTable).
const VersionTable = "awa_goose_db_version"

// Provider returns a goose Provider for the embedded migrations on sqlDB, a
// PostgreSQL handle (for example opened with the pgx stdlib driver, "pgx"),
// recording its versions in VersionTable. opts are passed through to
// goose.NewProvider after that (WithVerbose, ...; a WithTableName there
// overrides VersionTable; WithStore cannot be combined with it).
// Up installs the awa schema; DownTo(0) drops it. One run at a time per
// install: concurrent runs (several instances migrating at start) wait for
// each other on a row of the lock table <schema>_goose_lock (goose's table
// locker, which works through a transaction pooler), polled every 250 ms for
// up to 10 minutes; so opts must not hold WithLocker or WithSessionLocker.
func Provider(sqlDB *sql.DB, opts ...goose.ProviderOption) (*goose.Provider, error) {
	return SchemaProvider(sqlDB, DefaultSchema, opts...)
}

// DefaultSchema is the schema Provider installs into.
const DefaultSchema = sqlschema.Default

// SchemaProvider is Provider for an install in schema (1 to 12 characters of
// [a-z0-9_], not starting with a digit or pg_; docs/releases.md, "Schema
// name"): the migrations are read with the schema's name in place of awa,
// and the versions are recorded in SchemaVersionTable(schema), so several
// installs live side by side in one database, each upgraded on its own.
func SchemaProvider(sqlDB *sql.DB, schema string, opts ...goose.ProviderOption) (*goose.Provider, error) {
	fsys, err := SchemaMigrations(schema)
	if err != nil {
		return nil, err
	}
	locker, err := lock.NewPostgresTableLocker(lock.WithTableName(sqlschema.LockTable(schema)),
		lock.WithTableLockTimeout(250*time.Millisecond, 2400))
	if err != nil {
		return nil, err
	}
	opts = append([]goose.ProviderOption{goose.WithTableName(SchemaVersionTable(schema)), goose.WithLocker(locker)},
		opts...)
	return goose.NewProvider(goose.DialectPostgres, sqlDB, fsys, opts...)
}

// ErrInvalidSchema is returned by SchemaProvider and SchemaMigrations for a
// name no install can have.
var ErrInvalidSchema = sqlschema.ErrInvalidName

// SchemaVersionTable is the goose version table of the install in schema:
// VersionTable for awa, <schema>_goose_db_version for another.
func SchemaVersionTable(schema string) string { return sqlschema.VersionTable(schema) }

// SchemaMigrations returns the migrations (file names as in db/migrations)
// for an install in schema, rewritten from the embedded ones.
func SchemaMigrations(schema string) (fs.FS, error) {
	fsys, err := fs.Sub(Migrations, "migrations")
	if err != nil {
		return nil, err
	}
	return sqlschema.FS(fsys, schema)
}

// Tern holds the same migrations for tern (github.com/jackc/tern/v2), written
// by `make generate` (tern/*.sql): text/templates whose data value awa_schema
// names the schema (default awa). TernMigrations returns them for
// migrate.Migrator.LoadMigrations; docs/releases.md, "tern".
//
//go:embed tern/*.sql
var Tern embed.FS

// TernMigrations returns the tern migrations with the paths tern expects
// (00001_awa_substrate.sql, ...).
func TernMigrations() (fs.FS, error) { return fs.Sub(Tern, "tern") }

// Releases holds the release markers (releases/vX.Y.Z, docs/releases.md): each
// lists the migrations that install its release, frozen byte for byte.
//
//go:embed releases
var Releases embed.FS

// LatestRelease returns the newest release's version and the goose version of
// its last migration: Provider.UpTo(ctx, last) installs exactly that release.
func LatestRelease() (version string, last int64, err error) {
	entries, err := fs.ReadDir(Releases, "releases")
	if err != nil {
		return "", 0, err
	}
	var best [3]int
	for _, e := range entries {
		var v [3]int
		if n, _ := fmt.Sscanf(e.Name(), "v%d.%d.%d", &v[0], &v[1], &v[2]); n != 3 {
			return "", 0, fmt.Errorf("release marker %s: want vX.Y.Z", e.Name())
		}
		if version != "" && !(v[0] > best[0] || v[0] == best[0] && (v[1] > best[1] || v[1] == best[1] && v[2] > best[2])) {
			continue
		}
		body, err := fs.ReadFile(Releases, "releases/"+e.Name())
		if err != nil {
			return "", 0, err
		}
		last = 0
		for _, line := range strings.Split(string(body), "\n") {
			if name, ok := strings.CutPrefix(line, "migration\t"); ok {
				if _, err := fmt.Sscanf(name, "%d_", &last); err != nil {
					return "", 0, fmt.Errorf("release marker %s: %q: %w", e.Name(), line, err)
				}
			}
		}
		if last == 0 {
			return "", 0, fmt.Errorf("release marker %s lists no migration", e.Name())
		}
		version, best = strings.TrimPrefix(e.Name(), "v"), v
	}
	if version == "" {
		return "", 0, errors.New("no release marker in db/releases")
	}
	return version, last, nil
}
