package sqlschema

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestRewriteRenamesEachKindOfOccurrence(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"qualified name", "SELECT * FROM awa.jobs j", "SELECT * FROM jobs_b.jobs j"},
		{"schema statement", "CREATE SCHEMA IF NOT EXISTS awa;", "CREATE SCHEMA IF NOT EXISTS jobs_b;"},
		{"regnamespace literal", "'awa'::regnamespace::oid", "'jobs_b'::regnamespace::oid"},
		{"regclass literal", "nextval('awa.job_id_seq')", "nextval('jobs_b.job_id_seq')"},
		{"dynamic SQL", "format('LOCK TABLE awa.%I IN %s MODE', v)", "format('LOCK TABLE jobs_b.%I IN %s MODE', v)"},
		{"dynamic SQL with doubled quotes", "'SELECT ''awa'' FROM awa.x'", "'SELECT ''jobs_b'' FROM jobs_b.x'"},
		{"dollar-quoted body", "AS $$ SELECT awa.f($1) $$", "AS $$ SELECT jobs_b.f($1) $$"},
		{"nested dollar quotes", "$$ EXECUTE format($q$ SELECT awa.%I $q$, t) $$", "$$ EXECUTE format($q$ SELECT jobs_b.%I $q$, t) $$"},
		{"channel prefix", "pg_notify('awa:' || q, '')", "pg_notify('jobs_b:' || q, '')"},
		{"roles", "('awa_producer', 'awa_worker', 'awa_admin')", "('jobs_b_producer', 'jobs_b_worker', 'jobs_b_admin')"},
		{"COPY stage", "to_regclass('pg_temp.awa_job_stage'); CREATE TEMPORARY TABLE awa_job_stage (", "to_regclass('pg_temp.jobs_b_job_stage'); CREATE TEMPORARY TABLE jobs_b_job_stage ("},
		{"prepared statement", "format('awa_behind_%s_%s', a, b)", "format('jobs_b_behind_%s_%s', a, b)"},
		{"session setting key", "'awa.cursors_' || x", "'jobs_b.cursors_' || x"},
		{"error message prefix kept", "RAISE EXCEPTION 'awa: job % not found, see awa.jobs', p", "RAISE EXCEPTION 'awa: job % not found, see jobs_b.jobs', p"},
		{"comments kept", "-- awa.jobs\n/* awa_x /* awa */ */ awa.f()", "-- awa.jobs\n/* awa_x /* awa */ */ jobs_b.f()"},
		{"other words kept", "SELECT awaited, aware FROM t", "SELECT awaited, aware FROM t"},
		{"E string", `E'awa.\'x' || 'awa'`, `E'jobs_b.\'x' || 'jobs_b'`},
		{"lock keys", "WHEN 'ring' THEN 1096237315 WHEN 'x' THEN 1096237327 WHEN 'y' THEN 1096237328",
			"WHEN 'ring' THEN (hashtext('lock keys of schema jobs_b') & -16) + 3 " +
				"WHEN 'x' THEN (hashtext('lock keys of schema jobs_b') & -16) + 15 WHEN 'y' THEN 1096237328"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Rewrite(tc.in, "jobs_b")
			if err != nil {
				t.Fatal(err)
			}
			if got != tc.want {
				t.Errorf("Rewrite(%q)\n got %q\nwant %q", tc.in, got, tc.want)
			}
		})
	}
}

func TestRewriteRefusesAnUnknownName(t *testing.T) {
	for _, in := range []string{"SELECT awa_other.f()", "'awa_new_thing'", `SELECT "awa".f()`} {
		if _, err := Rewrite(in, "jobs_b"); err == nil {
			t.Errorf("Rewrite(%q): no error, want one for a name without a rule", in)
		}
	}
	for _, in := range []string{"SELECT 'x", "$$ x", "/* x"} {
		if _, err := Rewrite(in, "jobs_b"); err == nil {
			t.Errorf("Rewrite(%q): no error, want one for unterminated text", in)
		}
	}
}

func TestRewriteForAwaIsTheIdentity(t *testing.T) {
	in := "SELECT awa.f('awa:'), 1096237313 -- awa"
	if got, err := Rewrite(in, Default); err != nil || got != in {
		t.Errorf("Rewrite for awa = %q, %v; want the input", got, err)
	}
}

func TestCheck(t *testing.T) {
	for _, ok := range []string{"awa", "jobs_b", "_x", "a23456789012"} {
		if err := Check(ok); err != nil {
			t.Errorf("Check(%q): %v", ok, err)
		}
	}
	for _, bad := range []string{"", "Jobs", "1a", "pg_x", "a-b", "a.b", "a234567890123", `a"b`} {
		if err := Check(bad); !errors.Is(err, ErrInvalidName) {
			t.Errorf("Check(%q) = %v, want ErrInvalidName", bad, err)
		}
	}
	if _, err := Rewrite("SELECT 1", "Bad"); !errors.Is(err, ErrInvalidName) {
		t.Errorf("Rewrite into an invalid schema: %v", err)
	}
}

func TestTemplateWritesTheSchemaVariable(t *testing.T) {
	got, err := Template("SELECT awa.f('awa:', 'awa: x'), 1096237313 FROM awa_job_stage")
	want := `SELECT {{$awa_schema}}.f('{{$awa_schema}}:', 'awa: x'), ` +
		`{{if eq $awa_schema "awa"}}1096237313{{else}}(hashtext('lock keys of schema {{$awa_schema}}') & -16) + 1{{end}} ` +
		`FROM {{$awa_schema}}_job_stage`
	if err != nil || got != want {
		t.Errorf("Template = %q, %v\nwant %q", got, err, want)
	}
	if _, err := Template("SELECT '{{'"); err == nil {
		t.Error("Template of SQL holding {{: no error")
	}
}

// Every migration and query rewrites, and what it gives names awa nowhere
// but in comments and error-message prefixes: rewriting it again for a third
// schema changes nothing. So no occurrence of the name, the roles or the lock
// keys of awa escapes the rules, in the frozen 00001 or in later files.
func TestMigrationsAndQueriesRewriteCompletely(t *testing.T) {
	var files []string
	for _, glob := range []string{"../../db/migrations/*.sql", "../../queries/*.sql", "../../sql/*/*.sql"} {
		m, err := filepath.Glob(glob)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, m...)
	}
	if len(files) < 10 {
		t.Fatalf("found %d files: wrong directory?", len(files))
	}
	for _, f := range files {
		body, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		once, err := Rewrite(string(body), "jobs_b")
		if err != nil {
			t.Errorf("%s: %v", f, err)
			continue
		}
		twice, err := Rewrite(once, "jobs_c")
		if err != nil {
			t.Errorf("%s rewritten: %v", f, err)
			continue
		}
		if twice != once {
			a, b := strings.Split(once, "\n"), strings.Split(twice, "\n")
			for i := range a {
				if a[i] != b[i] {
					t.Errorf("%s:%d still names awa after the rewrite: %s", f, i+1, a[i])
					break
				}
			}
		}
		if strings.Contains(f, "migrations") && once == string(body) {
			t.Errorf("%s: the rewrite changed nothing", f)
		}
	}
}
