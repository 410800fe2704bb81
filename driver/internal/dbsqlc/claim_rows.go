package dbsqlc

import (
	"context"

	"github.com/jackc/pgx/v5"
)

// ClaimReadyRuntimeRows runs the ClaimReadyRuntime query (queries/work.sql)
// and returns its rows unread, for driver.Claim's scan straight into the
// driver's job type, with the repeated kind and queue strings shared (the
// generated method, kept because sqlc writes one per query, allocates a row
// struct per job and copies each string, and the driver copies each row
// again). Hand-written; sqlc leaves it alone.
func (q *Queries) ClaimReadyRuntimeRows(ctx context.Context, db DBTX, arg ClaimReadyRuntimeParams) (pgx.Rows, error) {
	return db.Query(ctx, claimReadyRuntime,
		arg.Queue,
		arg.Max,
		arg.InstanceID,
		arg.Now,
		arg.AttemptDeadline,
	)
}
