package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// verifyCatalog runs scripts/verify-catalog.sh on the tree at root: sql/
// applied fresh against every migration of root/db/migrations in order.
func verifyCatalog(t *testing.T, root string) (string, error) {
	t.Helper()
	return verifyCatalogOf(t, root, "awa")
}

// verifyCatalogOf is verifyCatalog for an install in schema.
func verifyCatalogOf(t *testing.T, root, schema string) (string, error) {
	t.Helper()
	dsn := os.Getenv("AWA_TEST_DSN")
	if dsn == "" {
		t.Fatal("AWA_TEST_DSN is not set: run `make test` (or set it to a PostgreSQL 15 server)")
	}
	cmd := exec.Command("bash", filepath.Join("..", "..", "..", "scripts", "verify-catalog.sh"), dsn)
	cmd.Env = append(os.Environ(), "AWA_ROOT="+root, fmt.Sprintf("AWA_VERIFY_DB=awa_verify_gen_%d", os.Getpid()),
		"AWA_VERIFY_SCHEMA="+schema)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// The catalog check (make verify/catalog) passes when the unreleased
// migration carries sql/'s changes, and fails when it misses one: a
// function whose new body the migration lacks, or a hand-written step that
// does not do what the substrate file says.
func TestCatalogCheckFailsOnAMissingUpgradeStep(t *testing.T) {
	root := tree(t)
	stale := unreleased(t, root)
	edit(t, root, "sql/functions/promote_due_jobs.sql", "    WITH due AS (", "    -- changed\n    WITH due AS (")
	good := unreleased(t, root)
	if out, err := verifyCatalog(t, root); err != nil || !strings.Contains(out, "verify-catalog: OK") {
		t.Fatalf("catalog check of the generated tree: %v\n%s", err, out)
	}

	files, _ := filepath.Glob(filepath.Join(root, migrationsDir, "*_awa_*.*.*.sql"))
	if err := os.WriteFile(files[0], []byte(stale), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := verifyCatalog(t, root)
	if err == nil || !strings.Contains(out, "verify-catalog: FAIL") || !strings.Contains(out, "-- changed") {
		t.Fatalf("catalog check with the promote_due_jobs change missing from the migration: %v, want a FAIL showing it\n%s", err, out)
	}
	if err := os.WriteFile(files[0], []byte(good), 0o644); err != nil {
		t.Fatal(err)
	}

	// A column added in sql/ with a step that covers the file but adds nothing.
	edit(t, root, "sql/substrate/50_backlog.sql", "failed_at    timestamptz NOT NULL\n);", "failed_at    timestamptz NOT NULL,\n    paused boolean NOT NULL DEFAULT false\n);")
	if err := os.MkdirAll(filepath.Join(root, upgradeDir), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, upgradeDir, "01_paused.sql"),
		[]byte("-- covers: sql/substrate/50_backlog.sql\nSELECT 1;\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	unreleased(t, root)
	out, err = verifyCatalog(t, root)
	if err == nil || !strings.Contains(out, "verify-catalog: FAIL") || !strings.Contains(out, "paused") {
		t.Fatalf("catalog check with a step that does not add the column: %v, want a FAIL showing it\n%s", err, out)
	}
	// The right step passes.
	if err := os.WriteFile(filepath.Join(root, upgradeDir, "01_paused.sql"), []byte("-- covers: sql/substrate/50_backlog.sql\n"+
		"ALTER TABLE awa.dlq_entries ADD COLUMN paused boolean NOT NULL DEFAULT false;\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	unreleased(t, root)
	if out, err := verifyCatalog(t, root); err != nil || !strings.Contains(out, "verify-catalog: OK") {
		t.Fatalf("catalog check with the right step: %v\n%s", err, out)
	}
}

// The catalog check of an install in another schema (make verify/catalog
// runs it for jobs_b) compares that schema, and fails as the one of awa does
// when the unreleased migration misses a change of sql/.
func TestCatalogCheckOfAnotherSchema(t *testing.T) {
	root := tree(t)
	stale := unreleased(t, root)
	edit(t, root, "sql/functions/promote_due_jobs.sql", "    WITH due AS (", "    -- changed\n    WITH due AS (")
	unreleased(t, root)
	if out, err := verifyCatalogOf(t, root, "jobs_b"); err != nil || !strings.Contains(out, "verify-catalog: OK: identical jobs_b catalogs") {
		t.Fatalf("catalog check of jobs_b: %v\n%s", err, out)
	}
	files, _ := filepath.Glob(filepath.Join(root, migrationsDir, "*_awa_*.*.*.sql"))
	if err := os.WriteFile(files[0], []byte(stale), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := verifyCatalogOf(t, root, "jobs_b")
	if err == nil || !strings.Contains(out, "verify-catalog: FAIL") || !strings.Contains(out, "-- changed") || !strings.Contains(out, "FROM jobs_b.deferred_jobs") {
		t.Fatalf("catalog check of jobs_b with a change missing from the migration: %v, want a FAIL\n%s", err, out)
	}
}
