package driver

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strconv"

	"github.com/jackc/pgx/v5/pgconn"
)

// SubstrateVersion is the substrate release this driver is built for: what
// awa.substrate_version() returns once this release's migrations are applied.
// Between releases it is the next version with -dev, as sql/ says
// (docs/releases.md).
const SubstrateVersion = "0.2.0-dev"

// PreviousSubstrateVersion is the release before SubstrateVersion. A client
// works against both, so it can be deployed before the database is migrated.
const PreviousSubstrateVersion = "0.1.0"

// CheckSubstrateVersion reads awa.substrate_version() and returns it when this
// driver works against it (SubstrateVersion or PreviousSubstrateVersion).
// Anything else, a substrate without the function (not installed, or older
// than 0.1.0) included, is an error wrapping ErrSubstrateVersion that names
// both versions and what to do. Client.Start calls it first.
func (d *Driver) CheckSubstrateVersion(ctx context.Context, db DBTX) (string, error) {
	v, err := d.q.SubstrateVersion(ctx, d.on(db))
	var pgErr *pgconn.PgError
	switch {
	case errors.As(err, &pgErr) && (pgErr.Code == "42883" || pgErr.Code == "3F000"): // undefined function, no schema
		return "", fmt.Errorf("%w: the database has no %s.substrate_version() (schema %s is not installed, or older "+
			"than 0.1.0) and this client needs substrate %s or %s: run `awa migrate up%s` of this release",
			ErrSubstrateVersion, d.Schema(), d.Schema(), SubstrateVersion, PreviousSubstrateVersion, migrateFlag(d.Schema()))
	case err != nil:
		return "", fmt.Errorf("read substrate version: %w", mapError(err))
	case v == SubstrateVersion || v == PreviousSubstrateVersion:
		return v, nil
	case newerRelease(v):
		return v, fmt.Errorf("%w: the database's substrate is %s, newer than this client's %s (it works against %s "+
			"and %s): run a client of release %s (migrations are not undone)",
			ErrSubstrateVersion, v, SubstrateVersion, SubstrateVersion, PreviousSubstrateVersion, v)
	default:
		return v, fmt.Errorf("%w: the database's substrate is %s, this client needs %s or %s: run `awa migrate up%s` "+
			"of this release", ErrSubstrateVersion, v, SubstrateVersion, PreviousSubstrateVersion, migrateFlag(d.Schema()))
	}
}

// migrateFlag is the `awa migrate` flag that names schema ("" for awa).
func migrateFlag(schema string) string {
	if schema == DefaultSchema {
		return ""
	}
	return " -schema " + schema
}

// newerRelease reports whether v sorts after SubstrateVersion (X.Y.Z
// numerically, a -dev version before its release).
func newerRelease(v string) bool {
	a, b := versionRE.FindStringSubmatch(v), versionRE.FindStringSubmatch(SubstrateVersion)
	if a == nil || b == nil {
		return false
	}
	for i := 1; i <= 3; i++ {
		x, _ := strconv.Atoi(a[i])
		y, _ := strconv.Atoi(b[i])
		if x != y {
			return x > y
		}
	}
	return b[4] != "" && a[4] == ""
}

var versionRE = regexp.MustCompile(`^(\d+)\.(\d+)\.(\d+)(-dev)?$`)
