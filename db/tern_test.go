package db_test

import (
	"context"
	"os/exec"
	"regexp"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/tern/v2/migrate"

	"github.com/awa-queue/awa/db"
)

// ternInstall applies db/tern with the tern library, with awa_schema set to
// schema (left unset for awa: the default) and its version table in public.
func ternInstall(t *testing.T, ctx context.Context, dsn, schema string) *migrate.Migrator {
	t.Helper()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	m, err := migrate.NewMigrator(ctx, conn, "public."+schema+"_tern_version")
	if err != nil {
		t.Fatal(err)
	}
	if schema != db.DefaultSchema {
		m.Data["awa_schema"] = schema
	}
	fsys, err := db.TernMigrations()
	if err != nil {
		t.Fatal(err)
	}
	if err := m.LoadMigrations(fsys); err != nil {
		t.Fatalf("tern: load migrations: %v", err)
	}
	if err := m.Migrate(ctx); err != nil {
		t.Fatalf("tern: migrate schema %s: %v", schema, err)
	}
	return m
}

// dumpSchema is pg_dump's schema-only dump of one schema (as the catalog
// check, scripts/verify-catalog.sh, takes it).
func dumpSchema(t *testing.T, dsn, schema string) string {
	t.Helper()
	out, err := exec.Command("pg_dump", "--schema-only", "-n", schema, "-d", dsn).Output()
	if err != nil {
		t.Fatalf("pg_dump -n %s: %v", schema, err)
	}
	restrict := regexp.MustCompile(`(?m)^\\(un)?restrict .*\n`)
	return restrict.ReplaceAllString(string(out), "")
}

// The tern migrations install the catalog the goose migrations install, in
// schema awa (tern's default) and in another schema, and tern's down to 0
// removes it.
func TestTernInstallsTheGooseCatalog(t *testing.T) {
	ctx := context.Background()
	for _, schema := range []string{db.DefaultSchema, "jobs_b"} {
		t.Run(schema, func(t *testing.T) {
			gooseDB, gooseDSN := freshDatabaseDSN(t)
			p, err := db.SchemaProvider(gooseDB, schema)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := p.Up(ctx); err != nil {
				t.Fatal(err)
			}
			ternDB, ternDSN := freshDatabaseDSN(t)
			m := ternInstall(t, ctx, ternDSN, schema)

			want, got := dumpSchema(t, gooseDSN, schema), dumpSchema(t, ternDSN, schema)
			if !strings.Contains(want, "CREATE SCHEMA "+schema+";") || strings.Count(want, "CREATE FUNCTION") < 50 {
				t.Fatalf("the goose install's dump of %s holds no awa catalog:\n%.500s", schema, want)
			}
			if got != want {
				a, b := strings.Split(want, "\n"), strings.Split(got, "\n")
				for i := 0; i < len(a) && i < len(b); i++ {
					if a[i] != b[i] {
						t.Fatalf("tern and goose installs of %s differ at dump line %d:\ngoose: %s\ntern:  %s", schema, i+1, a[i], b[i])
					}
				}
				t.Fatalf("tern and goose installs of %s differ in length: %d and %d lines", schema, len(a), len(b))
			}
			var version string
			if err := ternDB.QueryRow(`SELECT ` + schema + `.substrate_version()`).Scan(&version); err != nil || version == "" {
				t.Fatalf("%s.substrate_version() after tern: %q, %v", schema, version, err)
			}
			if err := m.MigrateTo(ctx, 0); err != nil {
				t.Fatalf("tern down to 0: %v", err)
			}
			var exists bool
			if err := ternDB.QueryRow(`SELECT to_regnamespace($1) IS NOT NULL`, schema).Scan(&exists); err != nil || exists {
				t.Fatalf("schema %s after tern's down to 0: exists %v (%v)", schema, exists, err)
			}
		})
	}
}

// A schema name the install would refuse fails in the template, before tern
// runs any SQL.
func TestTernRefusesAnInvalidSchemaName(t *testing.T) {
	ctx := context.Background()
	_, dsn := freshDatabaseDSN(t)
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	for _, bad := range []string{"Jobs", "pg_jobs", "jobs;drop", "name_longer_than_12"} {
		m, err := migrate.NewMigrator(ctx, conn, "public.bad_tern_version")
		if err != nil {
			t.Fatal(err)
		}
		m.Data["awa_schema"] = bad
		fsys, err := db.TernMigrations()
		if err != nil {
			t.Fatal(err)
		}
		if err := m.LoadMigrations(fsys); err == nil || !strings.Contains(err.Error(), "awa_schema must be") {
			t.Errorf("tern with awa_schema %q: %v, want the template to refuse it", bad, err)
		}
	}
}
