package sqlschema

import (
	"context"
	"sync"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// DBTX is what sqlc's generated queries run on (a pool, a connection, a
// transaction). The same three methods as driver.DBTX on purpose: this
// package cannot import driver, and driver's public type stays its own.
type DBTX interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// Queries rewrites query texts written for schema awa into a schema's, each
// text once: it keeps them in a cache, so a query costs one map lookup
// after its first run and pgx still prepares one statement per text and
// connection.
type Queries struct {
	schema string
	texts  sync.Map // text for awa -> text for schema
}

// NewQueries returns the query rewriter for schema (nil for awa, whose
// queries run as written); an invalid name is an error.
func NewQueries(schema string) (*Queries, error) {
	if err := Check(schema); err != nil {
		return nil, err
	}
	if schema == Default {
		return nil, nil
	}
	return &Queries{schema: schema}, nil
}

// Schema returns the schema the queries are rewritten for (awa for nil).
func (q *Queries) Schema() string {
	if q == nil {
		return Default
	}
	return q.schema
}

// On returns db running every query's text for the schema (db itself for nil).
func (q *Queries) On(db DBTX) DBTX {
	if q == nil {
		return db
	}
	return rewritingDB{db: db, q: q}
}

func (q *Queries) text(query string) (string, error) {
	if t, ok := q.texts.Load(query); ok {
		return t.(string), nil
	}
	t, err := Rewrite(query, q.schema)
	if err != nil {
		return "", err
	}
	q.texts.Store(query, t)
	return t, nil
}

type rewritingDB struct {
	db DBTX
	q  *Queries
}

func (r rewritingDB) Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error) {
	t, err := r.q.text(sql)
	if err != nil {
		return pgconn.CommandTag{}, err
	}
	return r.db.Exec(ctx, t, args...)
}

func (r rewritingDB) Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error) {
	t, err := r.q.text(sql)
	if err != nil {
		return nil, err
	}
	return r.db.Query(ctx, t, args...)
}

func (r rewritingDB) QueryRow(ctx context.Context, sql string, args ...any) pgx.Row {
	t, err := r.q.text(sql)
	if err != nil {
		return errRow{err}
	}
	return r.db.QueryRow(ctx, t, args...)
}

type errRow struct{ err error }

func (r errRow) Scan(...any) error { return r.err }
