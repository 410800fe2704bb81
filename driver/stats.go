package driver

import (
	"context"
	"fmt"
)

// TableStat is PostgreSQL's cumulative activity and the size of one table of
// schema awa, as pg_stat_user_tables reports it. The counters (inserted,
// updated, deleted) only grow; a TRUNCATE resets LiveTuples and DeadTuples to
// zero but not the counters. Statistics reach the server asynchronously: a
// backend reports its figures when it goes idle (at most once a second) or
// when it exits.
type TableStat struct {
	Table      string // relation name, e.g. ready_entries_3
	Inserted   int64  // n_tup_ins
	Updated    int64  // n_tup_upd
	HOTUpdated int64  // n_tup_hot_upd (part of Updated)
	Deleted    int64  // n_tup_del
	LiveTuples int64  // n_live_tup (estimate)
	DeadTuples int64  // n_dead_tup (estimate): row versions waiting for vacuum
	SizeBytes  int64  // pg_total_relation_size: heap, indexes and TOAST
}

// TableStats returns the statistics of every table of schema awa, by name.
func (d *Driver) TableStats(ctx context.Context, db DBTX) ([]TableStat, error) {
	rows, err := d.q.TableStats(ctx, db)
	if err != nil {
		return nil, fmt.Errorf("table stats: %w", mapError(err))
	}
	out := make([]TableStat, len(rows))
	for i, r := range rows {
		out[i] = TableStat{Table: r.TableName, Inserted: r.NTupIns, Updated: r.NTupUpd, HOTUpdated: r.NTupHotUpd,
			Deleted: r.NTupDel, LiveTuples: r.NLiveTup, DeadTuples: r.NDeadTup, SizeBytes: r.TotalBytes}
	}
	return out, nil
}
