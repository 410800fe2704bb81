package driver

import (
	"context"
	"fmt"
	"sync"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/awa-queue/awa/driver/internal/dbsqlc"
	"github.com/awa-queue/awa/internal/sqlschema"
)

// DefaultSchema is the schema a Driver and a Client use unless told otherwise.
const DefaultSchema = sqlschema.Default

// NewSchema returns a Driver for the install in schema (db.SchemaProvider,
// `awa migrate -schema`). The generated queries name schema awa; for another
// schema each query's text is rewritten once (internal/sqlschema) and cached,
// so pgx still prepares and caches one statement per query and connection.
// An invalid name is ErrInvalidConfig.
func NewSchema(schema string) (*Driver, error) {
	if err := sqlschema.Check(schema); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalidConfig, err)
	}
	if schema == DefaultSchema {
		return New(), nil
	}
	return &Driver{schema: &schemaSQL{name: schema}}, nil
}

// Schema returns the schema the Driver works on.
func (d *Driver) Schema() string {
	if d.schema == nil {
		return DefaultSchema
	}
	return d.schema.name
}

// on returns db for the generated queries: db itself for schema awa, else db
// behind the query rewrite.
func (d *Driver) on(db dbsqlc.DBTX) dbsqlc.DBTX {
	if d.schema == nil {
		return db
	}
	return schemaDB{db: db, s: d.schema}
}

// schemaSQL holds a schema's name and the rewritten text of every query run
// so far (a few dozen constant strings).
type schemaSQL struct {
	name  string
	texts sync.Map // query text for awa -> text for name
}

func (s *schemaSQL) text(query string) (string, error) {
	if t, ok := s.texts.Load(query); ok {
		return t.(string), nil
	}
	t, err := sqlschema.Rewrite(query, s.name)
	if err != nil {
		return "", err
	}
	s.texts.Store(query, t)
	return t, nil
}

// schemaDB runs the generated queries with their text for another schema.
type schemaDB struct {
	db dbsqlc.DBTX
	s  *schemaSQL
}

func (q schemaDB) Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error) {
	t, err := q.s.text(sql)
	if err != nil {
		return pgconn.CommandTag{}, err
	}
	return q.db.Exec(ctx, t, args...)
}

func (q schemaDB) Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error) {
	t, err := q.s.text(sql)
	if err != nil {
		return nil, err
	}
	return q.db.Query(ctx, t, args...)
}

func (q schemaDB) QueryRow(ctx context.Context, sql string, args ...any) pgx.Row {
	t, err := q.s.text(sql)
	if err != nil {
		return errRow{err}
	}
	return q.db.QueryRow(ctx, t, args...)
}

type errRow struct{ err error }

func (r errRow) Scan(...any) error { return r.err }
