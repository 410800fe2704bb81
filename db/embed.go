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

	"github.com/pressly/goose/v3"
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
const VersionTable = "awa_goose_db_version"

// Provider returns a goose Provider for the embedded migrations on sqlDB, a
// PostgreSQL handle (for example opened with the pgx stdlib driver, "pgx"),
// recording its versions in VersionTable. opts are passed through to
// goose.NewProvider after that (WithVerbose, ...; a WithTableName there
// overrides VersionTable; WithStore cannot be combined with it).
// Up installs the awa schema; DownTo(0) drops it.
func Provider(sqlDB *sql.DB, opts ...goose.ProviderOption) (*goose.Provider, error) {
	fsys, err := fs.Sub(Migrations, "migrations")
	if err != nil {
		return nil, err
	}
	opts = append([]goose.ProviderOption{goose.WithTableName(VersionTable)}, opts...)
	return goose.NewProvider(goose.DialectPostgres, sqlDB, fsys, opts...)
}

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
