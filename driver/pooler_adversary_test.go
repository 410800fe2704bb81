package driver_test

// Session 7's adversary: the pooler probe when PgBouncer has a single server
// connection and the caller's transaction holds it.

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/awa-queue/awa/driver"
	"github.com/awa-queue/awa/internal/pgtest"
)

// TestAProbeThatCannotTellIsNotRemembered: PgBouncer in transaction mode
// with one server connection (default_pool_size = 1), a pool of two
// connections in cache_statement mode. The client's first call is InsertTx
// in the caller's transaction, which holds PgBouncer's only server, so the
// probe's own connections cannot reach PostgreSQL until it ends: the probe
// cannot tell. Later calls, with the server free, must still be refused
// with ErrTransactionPooler. On main the probe's "cannot tell" was
// remembered as "no pooler", so every later call of the pool went through
// in a mode the pooler cannot serve (and the first call waited 5 s).
func TestAProbeThatCannotTellIsNotRemembered(t *testing.T) {
	bouncer := pgtest.StartPgBouncer(t, "transaction", 1)
	direct := pgtest.NewDBDSN(t)
	ctx := pgtest.Context(t, 60*time.Second)
	pool := openPool(t, withParams(t, bouncer.DSN(direct), "default_query_exec_mode", "cache_statement",
		"pool_max_conns", "2"))
	client, err := driver.NewClient(pool, &driver.Config{DisableMaintenance: true})
	if err != nil {
		t.Fatalf("NewClient: %v", err)
	}
	first := pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		_, err := client.InsertTx(ctx, tx, modeArgs{N: 1}, &driver.InsertOpts{Queue: modeQueue})
		return err
	})
	if first != nil && !errors.Is(first, driver.ErrTransactionPooler) {
		t.Fatalf("first call, InsertTx holding the pooler's only server: %v", first)
	}
	for i := range 2 {
		_, err := client.Insert(ctx, modeArgs{N: 2}, &driver.InsertOpts{Queue: modeQueue})
		if !errors.Is(err, driver.ErrTransactionPooler) {
			t.Fatalf("Insert %d after a first call whose probe could not tell: got %v, want ErrTransactionPooler",
				i+1, err)
		}
	}
	if err := client.CheckDatabase(context.WithoutCancel(ctx)); !errors.Is(err, driver.ErrTransactionPooler) {
		t.Fatalf("CheckDatabase: got %v, want ErrTransactionPooler", err)
	}
}
