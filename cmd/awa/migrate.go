package main

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/pressly/goose/v3"

	"github.com/awa-queue/awa/db"
	"github.com/awa-queue/awa/driver"
)

func cmdMigrate(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs, dsn := newFlagSet("migrate", "up|down|status [-dsn DSN] [-schema NAME]", stderr)
	schema := fs.String("schema", db.DefaultSchema, "schema to install into, upgrade or remove (several installs may share a database)")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		fs.Usage()
		return usageErrorf("want exactly one of up, down, status")
	}
	if err := resolveDSN(dsn); err != nil {
		return err
	}
	switch pos[0] {
	case "up":
		_, err := migrateUp(ctx, *dsn, *schema, stdout)
		return err
	case "down":
		return migrateDown(ctx, *dsn, *schema, stdout)
	case "status":
		return withProvider(ctx, *dsn, *schema, func(p *goose.Provider, sqlDB *sql.DB) error {
			st, err := p.Status(ctx)
			if err != nil {
				return fmt.Errorf("migrate status: %w", err)
			}
			for _, s := range st {
				at := ""
				if !s.AppliedAt.IsZero() {
					at = s.AppliedAt.Local().Format("2006-01-02 15:04:05")
				}
				fmt.Fprintf(stdout, "%-8s %05d  %-32s %s\n", s.State, s.Source.Version, s.Source.Path, at)
			}
			return printSubstrate(ctx, sqlDB, *schema, stdout)
		})
	default:
		fs.Usage()
		return usageErrorf("unknown action %q: want up, down or status", pos[0])
	}
}

// migrateUp installs (or upgrades) the schema and returns its migration
// version; applying it twice is a no-op.
func migrateUp(ctx context.Context, dsn, schema string, stdout io.Writer) (version int64, err error) {
	err = withProvider(ctx, dsn, schema, func(p *goose.Provider, sqlDB *sql.DB) error {
		res, err := p.Up(ctx)
		printResults(stdout, "applied", res)
		if err != nil {
			return fmt.Errorf("migrate up: %w", err)
		}
		if version, err = p.GetDBVersion(ctx); err != nil {
			return fmt.Errorf("migrate up: read version: %w", err)
		}
		if len(res) == 0 {
			fmt.Fprintf(stdout, "schema %s is up to date (version %d)\n", schema, version)
		}
		return printSubstrate(ctx, sqlDB, schema, stdout)
	})
	return version, err
}

// migrateDown removes the schema and every job in it (down to version 0).
func migrateDown(ctx context.Context, dsn, schema string, stdout io.Writer) error {
	return withProvider(ctx, dsn, schema, func(p *goose.Provider, _ *sql.DB) error {
		res, err := p.DownTo(ctx, 0)
		printResults(stdout, "rolled back", res)
		if err != nil {
			return fmt.Errorf("migrate down: %w", err)
		}
		if len(res) == 0 {
			fmt.Fprintf(stdout, "nothing to roll back: schema %s is not installed\n", schema)
		}
		return nil
	})
}

// withProvider runs f on a goose Provider over the embedded migrations for
// schema and its database handle. The handle runs every statement in pgx's exec mode,
// whatever the DSN says: no prepared statement outlives its round trip, so
// one left on a transaction pooler's server connection cannot break a later
// command (docs/poolers.md).
func withProvider(ctx context.Context, dsn, schema string, f func(*goose.Provider, *sql.DB) error) error {
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		return fmt.Errorf("open database: %w", err)
	}
	cfg.DefaultQueryExecMode = pgx.QueryExecModeExec
	sqlDB := stdlib.OpenDB(*cfg)
	defer sqlDB.Close()
	if err := sqlDB.PingContext(ctx); err != nil {
		return fmt.Errorf("connect: %w", err)
	}
	p, err := db.SchemaProvider(sqlDB, schema)
	if err != nil {
		return fmt.Errorf("load migrations: %w", err)
	}
	return f(p, sqlDB)
}

// printSubstrate prints the version of the substrate installed in schema
// (<schema>.substrate_version()), or that none is installed.
func printSubstrate(ctx context.Context, sqlDB *sql.DB, schema string, w io.Writer) error {
	d, err := driver.NewSchema(schema)
	if err != nil {
		return err
	}
	conn, err := sqlDB.Conn(ctx)
	if err != nil {
		return fmt.Errorf("connect: %w", err)
	}
	defer conn.Close()
	return conn.Raw(func(dc any) error {
		v, err := d.CheckSubstrateVersion(ctx, dc.(*stdlib.Conn).Conn())
		switch {
		case v != "": // this release's, the one before, or another: the command shows it either way
			fmt.Fprintf(w, "substrate %s (%s.substrate_version())\n", v, schema)
		case errors.Is(err, driver.ErrSubstrateVersion):
			fmt.Fprintln(w, "substrate: not installed")
		default:
			return fmt.Errorf("read substrate version: %w", err)
		}
		return nil
	})
}

func printResults(w io.Writer, verb string, res []*goose.MigrationResult) {
	for _, r := range res {
		if r.Error != nil {
			fmt.Fprintf(w, "%-11s %s: FAILED after %s\n", verb, r.Source.Path, r.Duration.Round(1e6))
			continue
		}
		fmt.Fprintf(w, "%-11s %s (%s)\n", verb, r.Source.Path, r.Duration.Round(1e6))
	}
}
