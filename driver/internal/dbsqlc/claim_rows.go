package dbsqlc

import (
	"context"

	"github.com/jackc/pgx/v5"
)

// ClaimReadyRuntimeRows runs the ClaimReadyRuntime query (queries/work.sql)
// and returns its rows unread, for driver.Claim's scan straight into the
// driver's job type, sized once, with the repeated kind and queue strings
// shared (the generated method allocates a row struct per job, grows its
// slice by doubling, and copies each string). Hand-written; sqlc leaves it
// alone.
func (q *Queries) ClaimReadyRuntimeRows(ctx context.Context, db DBTX, arg ClaimReadyRuntimeParams) (pgx.Rows, error) {
	return db.Query(ctx, claimReadyRuntime,
		arg.Queue,
		arg.Max,
		arg.InstanceID,
		arg.Now,
		arg.AttemptDeadline,
	)
}
