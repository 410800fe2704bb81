package db_test

import (
	"context"
	"errors"
	"testing"

	"github.com/awa-queue/awa/db"
)

// TestSchemaProviderInstallsSideBySide: the install into jobs_b happens
// before awa's and writes nothing into schema awa, records its versions in
// its own table, and its DownTo(0) removes jobs_b alone; awa, installed in
// between, is upgraded and removed independently.
func TestSchemaProviderInstallsSideBySide(t *testing.T) {
	sqlDB := freshDatabase(t)
	ctx := context.Background()
	b, err := db.SchemaProvider(sqlDB, "jobs_b")
	if err != nil {
		t.Fatal(err)
	}
	head := int64(len(b.ListSources()))
	if res, err := b.Up(ctx); err != nil || int64(len(res)) != head {
		t.Fatalf("jobs_b up: %d applied, %v; want %d", len(res), err, head)
	}
	assertSchema(t, sqlDB, false) // nothing of the jobs_b install went to awa
	var version string
	if err := sqlDB.QueryRow(`SELECT jobs_b.substrate_version()`).Scan(&version); err != nil || version == "" {
		t.Fatalf("jobs_b.substrate_version() = %q, %v", version, err)
	}

	a, err := db.Provider(sqlDB)
	if err != nil {
		t.Fatal(err)
	}
	if res, err := a.Up(ctx); err != nil || int64(len(res)) != head {
		t.Fatalf("awa up beside jobs_b: %d applied, %v; want %d", len(res), err, head)
	}
	var awaRows, bRows int
	if err := sqlDB.QueryRow(`SELECT (SELECT count(*) FROM `+db.VersionTable+` WHERE version_id > 0),
	                                  (SELECT count(*) FROM `+db.SchemaVersionTable("jobs_b")+` WHERE version_id > 0)`).
		Scan(&awaRows, &bRows); err != nil {
		t.Fatal(err)
	}
	if int64(awaRows) != head || int64(bRows) != head || db.SchemaVersionTable("jobs_b") != "jobs_b_goose_db_version" {
		t.Fatalf("version rows: awa %d, jobs_b %d (table %s); want %d each", awaRows, bRows, db.SchemaVersionTable("jobs_b"), head)
	}

	if _, err := b.DownTo(ctx, 0); err != nil {
		t.Fatalf("jobs_b down-to 0: %v", err)
	}
	assertSchema(t, sqlDB, true)
	var bSchema bool
	if err := sqlDB.QueryRow(`SELECT to_regnamespace('jobs_b') IS NOT NULL`).Scan(&bSchema); err != nil || bSchema {
		t.Fatalf("schema jobs_b after its down-to 0: exists %v (%v)", bSchema, err)
	}
	if v, err := a.GetDBVersion(ctx); err != nil || v != head {
		t.Fatalf("awa's version after jobs_b's removal = %d, %v; want %d", v, err, head)
	}
}

func TestSchemaProviderRefusesAnInvalidName(t *testing.T) {
	for _, bad := range []string{"", "Awa", "pg_awa", "a;drop", "name_longer_than_12"} {
		if _, err := db.SchemaProvider(nil, bad); !errors.Is(err, db.ErrInvalidSchema) {
			t.Errorf("SchemaProvider(%q): %v, want ErrInvalidSchema", bad, err)
		}
	}
}
