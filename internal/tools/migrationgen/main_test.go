package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/awa-queue/awa/db"
)

// fixtures are the sql/functions files the tests edit or expect untouched:
// tree restores them as the last release has them, so a change to one of
// them on main since the release does not change what the tests see.
var fixtures = []string{"promote_due_jobs", "cancel_job", "purge_dlq", "claim_ready_runtime"}

// tree copies the repository's sql/ and db/ into a temporary root, where
// the tests edit sql/ as an engineer would, with the fixture functions as
// released (from the commit that added the last release marker; the tests
// need the git history, as the upgrade test does).
func tree(t *testing.T) string {
	t.Helper()
	repo := filepath.Join("..", "..", "..")
	root := t.TempDir()
	for _, dir := range []string{"sql", "db"} {
		if out, err := exec.Command("cp", "-r", filepath.Join(repo, dir), root).CombinedOutput(); err != nil {
			t.Fatalf("copy %s: %v: %s", dir, err, out)
		}
	}
	version, _, err := db.LatestRelease()
	if err != nil {
		t.Fatal(err)
	}
	marker := "db/releases/v" + version
	out, err := exec.Command("git", "-C", repo, "log", "--diff-filter=A", "--format=%H", "--", marker).Output()
	commit := strings.TrimSpace(string(out))
	if err != nil || commit == "" {
		t.Fatalf("the generator tests need the git history: no commit adds %s (%v)", marker, err)
	}
	for _, f := range fixtures {
		path := "sql/functions/" + f + ".sql"
		b, err := exec.Command("git", "-C", repo, "show", commit+":"+path).Output()
		if err != nil {
			t.Fatalf("git show %s:%s: %v", commit, path, err)
		}
		if err := os.WriteFile(filepath.Join(root, path), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

func edit(t *testing.T, root, path, old, new string) {
	t.Helper()
	p := filepath.Join(root, path)
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), old) {
		t.Fatalf("%s does not contain %q", path, old)
	}
	if err := os.WriteFile(p, []byte(strings.Replace(string(b), old, new, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
}

// unreleased generates the tree and returns its unreleased migration.
func unreleased(t *testing.T, root string) string {
	t.Helper()
	if err := generate(root, false); err != nil {
		t.Fatalf("generate: %v", err)
	}
	files, _ := filepath.Glob(filepath.Join(root, migrationsDir, "*_awa_*.*.*.sql"))
	if len(files) != 1 {
		t.Fatalf("unreleased migrations: %v, want one", files)
	}
	b, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func mustMatch(t *testing.T, text, re, what string) {
	t.Helper()
	if !regexp.MustCompile(re).MatchString(text) {
		t.Errorf("%s: no match for %s in:\n%s", what, re, text)
	}
}

// The repository's migrations are what the tool writes (verify/generated).
func TestRepositoryIsGenerated(t *testing.T) {
	if err := generate(filepath.Join("..", "..", ".."), true); err != nil {
		t.Fatal(err)
	}
}

func TestFunctionChanges(t *testing.T) {
	root := tree(t)
	before := unreleased(t, root)
	if regexp.MustCompile(`FUNCTION awa\.promote_due_jobs\(`).MatchString(before) {
		t.Fatal("fixture: promote_due_jobs already changed since the release")
	}
	// A body change keeps the signature: CREATE OR REPLACE.
	edit(t, root, "sql/functions/promote_due_jobs.sql", "    WITH due AS (", "    -- changed\n    WITH due AS (")
	// An argument added: DROP of the released signature, then CREATE.
	edit(t, root, "sql/functions/cancel_job.sql", "p_now timestamptz DEFAULT NULL)", "p_now timestamptz DEFAULT NULL, p_extra int DEFAULT 0)")
	// A function removed: DROP.
	if err := os.Remove(filepath.Join(root, "sql/functions/purge_dlq.sql")); err != nil {
		t.Fatal(err)
	}
	// A new one: CREATE.
	if err := os.WriteFile(filepath.Join(root, "sql/functions/zz_new.sql"),
		[]byte("-- new\nCREATE FUNCTION awa.zz_new() RETURNS int LANGUAGE sql AS $$ SELECT 1 $$;\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	up := unreleased(t, root)
	mustMatch(t, up, `(?m)^CREATE OR REPLACE FUNCTION awa\.promote_due_jobs\(`, "body change")
	mustMatch(t, up, `(?m)^DROP FUNCTION awa\.cancel_job\([^)]*p_now timestamptz\);\n`, "signature change drops the old one")
	mustMatch(t, up, `(?m)^CREATE FUNCTION awa\.cancel_job\(`, "signature change creates the new one")
	mustMatch(t, up, `(?m)^DROP FUNCTION awa\.purge_dlq\(`, "removed function")
	mustMatch(t, up, `(?m)^CREATE FUNCTION awa\.zz_new\(\)`, "new function")
	if strings.Contains(up, "awa.claim_ready_runtime(") {
		t.Error("an unchanged function is in the unreleased migration")
	}
	// A comment outside the body changes nothing.
	root2 := tree(t)
	edit(t, root2, "sql/functions/promote_due_jobs.sql", "-- ", "-- (reworded) ")
	if up := unreleased(t, root2); up != before {
		t.Errorf("a comment change changed the unreleased migration:\n%s", up)
	}
}

func TestSubstrateChanges(t *testing.T) {
	root := tree(t)
	// Added statements (a new file, an index in an old one) are written as they are.
	if err := os.WriteFile(filepath.Join(root, "sql/substrate/95_extra.sql"),
		[]byte("CREATE TABLE awa.extra (id int);\nGRANT SELECT ON awa.extra TO PUBLIC;\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	edit(t, root, "sql/substrate/50_backlog.sql", "CREATE INDEX deferred_jobs_run_at", "CREATE INDEX deferred_jobs_kind ON awa.deferred_jobs (kind);\nCREATE INDEX deferred_jobs_run_at")
	up := unreleased(t, root)
	mustMatch(t, up, `(?m)^CREATE TABLE awa\.extra \(id int\);`, "new file")
	mustMatch(t, up, `(?m)^CREATE INDEX deferred_jobs_kind ON awa\.deferred_jobs \(kind\);`, "added index")
	mustMatch(t, up, `(?m)^GRANT SELECT ON awa\.extra TO PUBLIC;\n-- \+goose StatementEnd\n\nSELECT awa\.install_queue_storage_substrate\(\);`, "privileges last")
	if strings.Contains(up, "CREATE TABLE awa.deferred_jobs") {
		t.Error("an unchanged table is in the unreleased migration")
	}

	// A column added to a released table: refused, naming the file and db/upgrade.
	edit(t, root, "sql/substrate/50_backlog.sql", "failed_at    timestamptz NOT NULL\n);", "failed_at    timestamptz NOT NULL,\n    paused boolean NOT NULL DEFAULT false\n);")
	err := generate(root, false)
	if err == nil || !strings.Contains(err.Error(), "sql/substrate/50_backlog.sql") || !strings.Contains(err.Error(), "db/upgrade") ||
		!strings.Contains(err.Error(), "CREATE TABLE awa.dlq_entries") {
		t.Fatalf("generate with a column added to awa.dlq_entries: %v; want a refusal naming the file, the table and db/upgrade", err)
	}
	// A step that covers the file is written first, in its place.
	step := "-- covers: sql/substrate/50_backlog.sql\nALTER TABLE awa.dlq_entries ADD COLUMN paused boolean NOT NULL DEFAULT false;\n"
	if err := os.MkdirAll(filepath.Join(root, upgradeDir), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, upgradeDir, "01_paused.sql"), []byte(step), 0o644); err != nil {
		t.Fatal(err)
	}
	up = unreleased(t, root)
	mustMatch(t, up, `(?m)^-- hand-written: db/upgrade/01_paused.sql\n-- \+goose StatementBegin\n-- covers: sql/substrate/50_backlog.sql\nALTER TABLE awa\.dlq_entries ADD COLUMN paused`, "the step")
}

func TestFrozenAndVersionRules(t *testing.T) {
	root := tree(t)
	edit(t, root, "db/migrations/00001_awa_substrate.sql", "CREATE SCHEMA IF NOT EXISTS awa;", "CREATE SCHEMA IF NOT EXISTS awa; ")
	if err := generate(root, false); err == nil || !strings.Contains(err.Error(), "frozen") {
		t.Fatalf("generate with a released migration edited: %v, want a frozen-migration error", err)
	}
	root = tree(t)
	rel, err := newestRelease(root)
	if err != nil || rel == nil {
		t.Fatal(rel, err)
	}
	b, _ := os.ReadFile(filepath.Join(root, versionFile))
	v := regexp.MustCompile(`'[0-9.]+(-dev)?'`).ReplaceAllString(string(b), "'"+rel.version+"'")
	if err := os.WriteFile(filepath.Join(root, versionFile), []byte(v), 0o644); err != nil {
		t.Fatal(err)
	}
	edit(t, root, "sql/functions/promote_due_jobs.sql", "    WITH due AS (", "    -- changed\n    WITH due AS (")
	if err := generate(root, false); err == nil || !strings.Contains(err.Error(), "-dev") {
		t.Fatalf("generate with a change but the released version: %v, want the bump asked for", err)
	}
	if err := generate(root, true); err == nil {
		t.Fatal("-check passed on a tree whose migrations are stale")
	}
}

// Signatures as the DROP and the same-signature test see them: defaults
// (with parentheses and quotes inside) cut, OUT and INOUT kept, RETURNS up to
// the first attribute, none for OUT parameters and procedures.
func TestRoutineSignatures(t *testing.T) {
	for _, tc := range []struct{ src, head, drop string }{
		{`CREATE FUNCTION awa.f(p_a int DEFAULT 1, p_b text = 'x,y', OUT id int) LANGUAGE sql AS $$ SELECT 1 $$;`,
			"FUNCTION awa.f(p_a int DEFAULT 1, p_b text = 'x,y', OUT id int) ",
			"DROP FUNCTION awa.f(p_a int, p_b text, OUT id int);"},
		{"CREATE PROCEDURE awa.p(p_h uuid DEFAULT md5('a(b')::uuid, INOUT r jsonb DEFAULT NULL)\nLANGUAGE plpgsql AS $$ BEGIN END $$;",
			"PROCEDURE awa.p(p_h uuid DEFAULT md5('a(b')::uuid, INOUT r jsonb DEFAULT NULL) ",
			"DROP PROCEDURE awa.p(p_h uuid, INOUT r jsonb);"},
		{"CREATE OR REPLACE FUNCTION awa.g()\nRETURNS SETOF awa.x\n-- note\nSET jit = off\nSTABLE AS $b$ SELECT 1; $b$;",
			"FUNCTION awa.g() RETURNS SETOF awa.x", "DROP FUNCTION awa.g();"},
	} {
		stmts, err := splitSQL(tc.src)
		if err != nil || len(stmts) != 1 {
			t.Fatalf("%q: %d statements, %v", tc.src, len(stmts), err)
		}
		if s := stmts[0]; s.kind != "routine" || s.head != tc.head || s.drop != tc.drop {
			t.Errorf("%q:\n got %s %q %q\nwant routine %q %q", tc.src, s.kind, s.head, s.drop, tc.head, tc.drop)
		}
	}
}

// A routine that views use changes its signature (here an argument default,
// which CREATE OR REPLACE cannot apply): its DROP would fail while the views
// exist, so the views that use it (awa._open_receipts and awa.jobs; not
// awa.claim_cursors or awa.terminal_jobs) are dropped first, and before them
// awa._rescue_open, whose signature takes awa._open_receipts rows; all are
// created again after it, at their place, with their comments; the
// migration applies and gives sql/'s catalog.
func TestViewsOfADroppedRoutineAreCreatedAgain(t *testing.T) {
	root := tree(t)
	edit(t, root, "sql/substrate/35_receipts.sql", "awa._receipt_id(p_batch_id bigint, p_item bigint)",
		"awa._receipt_id(p_batch_id bigint, p_item bigint DEFAULT 1)")
	up := unreleased(t, root)
	order := []string{
		`(?m)^DROP FUNCTION awa\._rescue_open\([^)]*\);\nDROP VIEW awa\.jobs;\nDROP VIEW awa\._open_receipts;\n`,
		`(?m)^DROP FUNCTION awa\._receipt_id\(p_batch_id bigint, p_item bigint\);`,
		`(?m)^CREATE FUNCTION awa\._receipt_id\(p_batch_id bigint, p_item bigint DEFAULT 1\)`,
		`(?m)^CREATE VIEW awa\._open_receipts AS`,
		`(?m)^CREATE VIEW awa\.jobs AS`,
		`(?m)^CREATE FUNCTION awa\._rescue_open\(`,
		`(?m)^COMMENT ON VIEW awa\._open_receipts IS`,
		`(?m)^COMMENT ON VIEW awa\.jobs IS`,
	}
	at := 0
	for _, re := range order {
		loc := regexp.MustCompile(re).FindStringIndex(up[at:])
		if loc == nil {
			t.Fatalf("no %s after offset %d (in this order: %q) in:\n%s", re, at, order, up)
		}
		at += loc[1]
	}
	if strings.Contains(up, "VIEW awa.claim_cursors") {
		t.Errorf("awa.claim_cursors uses no dropped routine but is in the migration")
	}
	// awa.terminal_jobs changed since the release (a view over
	// awa._read_terminal_jobs): replaced in place, never dropped for the routine.
	if strings.Contains(up, "DROP VIEW awa.terminal_jobs") || strings.Contains(up, "CREATE VIEW awa.terminal_jobs") {
		t.Errorf("awa.terminal_jobs uses no dropped routine but is dropped and created again")
	}
	if out, err := verifyCatalog(t, root); err != nil || !strings.Contains(out, "verify-catalog: OK") {
		t.Fatalf("catalog check of the generated tree: %v\n%s", err, out)
	}
}
