package driver

import (
	"fmt"

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
	q, err := sqlschema.NewQueries(schema)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalidConfig, err)
	}
	return &Driver{schema: q}, nil
}

// Schema returns the schema the Driver works on.
func (d *Driver) Schema() string { return d.schema.Schema() }

// on returns db for the generated queries: db itself for schema awa, else db
// behind the query rewrite.
func (d *Driver) on(db dbsqlc.DBTX) dbsqlc.DBTX { return d.schema.On(db) }
