package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/awa-queue/awa/driver"
	"github.com/awa-queue/awa/internal/pgtest"
)

// TestMigrateThroughATransactionPooler: `awa migrate` through PgBouncer in
// transaction mode, on a plain DSN (pgx's default exec mode), installs,
// reports, removes and installs again, each command a process of its own as
// an operator runs them. Named prepared statements would outlive each command
// on PgBouncer's server connections and break the next one ("prepared
// statement ... already exists"): migrate uses none. Up and status say which
// substrate version is installed.
func TestMigrateThroughATransactionPooler(t *testing.T) {
	bouncer := pgtest.StartPgBouncer(t, "transaction", 2)
	dsn := bouncer.DSN(pgtest.NewDBAtDSN(t, 0))
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	substrate := "substrate " + driver.SubstrateVersion
	for _, step := range []struct {
		args []string
		want []string
	}{
		{[]string{"up"}, []string{"applied", substrate}},
		{[]string{"status"}, []string{"applied", substrate}},
		{[]string{"up"}, []string{"up to date", substrate}},
		{[]string{"down"}, []string{"rolled back"}},
		{[]string{"status"}, []string{"pending", "substrate: not installed"}},
		{[]string{"up"}, []string{"applied", substrate}},
	} {
		var out, errb bytes.Buffer
		if code := run(ctx, append([]string{"migrate", "-dsn", dsn}, step.args...), &out, &errb); code != 0 {
			t.Fatalf("awa migrate %v through PgBouncer: exit %d: %s", step.args, code, errb.String())
		}
		for _, w := range step.want {
			if !strings.Contains(out.String(), w) {
				t.Errorf("awa migrate %v printed %q, want it to contain %q", step.args, out.String(), w)
			}
		}
	}
}

// The usage says what an operator installing next to an application needs:
// awa's own goose table, the roles it creates, the exec mode through a
// transaction pooler, and where the installed version shows.
func TestUsageNamesTheInstallFacts(t *testing.T) {
	var out, errb bytes.Buffer
	run(context.Background(), nil, &out, &errb)
	for _, want := range []string{"awa_goose_db_version", "awa_producer, awa_worker and awa_admin",
		"transaction-mode pooler", "awa.substrate_version()"} {
		if !strings.Contains(errb.String(), want) {
			t.Errorf("usage does not say %q:\n%s", want, errb.String())
		}
	}
}
