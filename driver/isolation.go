package driver

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

// TransactionIsolation returns the isolation level a statement on db runs at
// ("read committed", "repeatable read" or "serializable"): on a pool, the
// database's or role's default_transaction_isolation.
func (d *Driver) TransactionIsolation(ctx context.Context, db DBTX) (string, error) {
	level, err := d.q.TransactionIsolation(ctx, d.on(db))
	if err != nil {
		return "", fmt.Errorf("read transaction isolation: %w", mapError(err))
	}
	return level, nil
}

// readCommitted is a DBTX that runs every statement in its own explicit READ
// COMMITTED transaction on the pool. The client runs its runtime calls
// (claim, finalizers, heartbeat, queue_pending, maintenance) through it when
// the database's default isolation is not READ COMMITTED: those functions
// refuse other levels (AW040, docs/storage.md "Isolation levels"). With a
// READ COMMITTED default the client uses the pool itself and pays nothing.
type readCommitted struct {
	pool *pgxpool.Pool
}

var readCommittedTx = pgx.TxOptions{IsoLevel: pgx.ReadCommitted}

func (r readCommitted) Exec(ctx context.Context, sql string, args ...any) (tag pgconn.CommandTag, err error) {
	err = pgx.BeginTxFunc(ctx, r.pool, readCommittedTx, func(tx pgx.Tx) error {
		tag, err = tx.Exec(ctx, sql, args...)
		return err
	})
	return tag, err
}

func (r readCommitted) QueryRow(ctx context.Context, sql string, args ...any) pgx.Row {
	return readCommittedRow{r: r, ctx: ctx, sql: sql, args: args}
}

// Query begins the transaction and returns rows that commit it once read to
// the end without error (Next returning false), and roll it back when closed
// earlier or on error. A failed commit is reported by Err, so a caller that
// checks rows.Err() (as sqlc's code does) never takes an uncommitted result
// for a committed one.
func (r readCommitted) Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error) {
	tx, err := r.pool.BeginTx(ctx, readCommittedTx)
	if err != nil {
		return nil, err
	}
	rows, err := tx.Query(ctx, sql, args...)
	if err != nil {
		_ = tx.Rollback(context.WithoutCancel(ctx))
		return nil, err
	}
	return &readCommittedRows{Rows: rows, tx: tx, ctx: ctx}, nil
}

type readCommittedRow struct {
	r    readCommitted
	ctx  context.Context
	sql  string
	args []any
}

func (row readCommittedRow) Scan(dest ...any) error {
	return pgx.BeginTxFunc(row.ctx, row.r.pool, readCommittedTx, func(tx pgx.Tx) error {
		return tx.QueryRow(row.ctx, row.sql, row.args...).Scan(dest...)
	})
}

type readCommittedRows struct {
	pgx.Rows
	tx   pgx.Tx
	ctx  context.Context
	done bool
	err  error
}

func (r *readCommittedRows) Next() bool {
	if r.done {
		return false
	}
	if r.Rows.Next() {
		return true
	}
	r.end(true)
	return false
}

func (r *readCommittedRows) Err() error {
	if r.err != nil {
		return r.err
	}
	return r.Rows.Err()
}

func (r *readCommittedRows) Close() { r.end(false) }

// end closes the rows and commits when they were read to the end without
// error; otherwise it rolls back.
func (r *readCommittedRows) end(complete bool) {
	if r.done {
		return
	}
	r.done = true
	r.Rows.Close()
	if complete && r.Rows.Err() == nil {
		r.err = r.tx.Commit(r.ctx)
		return
	}
	_ = r.tx.Rollback(context.WithoutCancel(r.ctx))
}
