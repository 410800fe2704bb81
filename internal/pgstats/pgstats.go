// Package pgstats reads PostgreSQL's cumulative table statistics for awa's
// instruments: the demo (cmd/awa) and the bench (bench/). It is not part of
// the product, so its SQL lives here rather than in queries/.
//
// Statistics reach the server asynchronously: a backend reports its figures
// when it goes idle (at most once a second) and when it exits. Settled
// rereads until they stop moving.
package pgstats

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// TableStat is one table's activity counters (pg_stat_user_tables) and size.
// The counters only grow; a TRUNCATE resets Live and Dead but not them.
type TableStat struct {
	Table     string `json:"table"`             // schema.name, e.g. awa.ready_entries_3
	Ins       int64  `json:"n_tup_ins"`         // rows inserted
	Upd       int64  `json:"n_tup_upd"`         // rows updated, HotUpd included
	Del       int64  `json:"n_tup_del"`         // rows deleted
	HotUpd    int64  `json:"n_tup_hot_upd"`     // heap-only updates
	Live      int64  `json:"n_live_tup"`        // estimate
	Dead      int64  `json:"n_dead_tup"`        // estimate: row versions waiting for vacuum
	Vacuums   int64  `json:"autovacuum_count"`  // autovacuum runs
	Analyzes  int64  `json:"autoanalyze_count"` // autoanalyze runs
	SizeBytes int64  `json:"total_bytes"`       // pg_total_relation_size: heap, indexes and TOAST
}

// Querier is a connection or a pool.
type Querier interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
}

// Owner says whether a table belongs to what is measured.
type Owner func(schema, name string) bool

// InSchema owns every table of schema.
func InSchema(schema string) Owner {
	return func(s, _ string) bool { return s == schema }
}

// Read returns the statistics of the tables of db's database that own
// accepts, ordered by schema and name, as they are now.
func Read(ctx context.Context, db Querier, own Owner) ([]TableStat, error) {
	if _, err := db.Exec(ctx, "SELECT pg_stat_clear_snapshot()"); err != nil {
		return nil, err
	}
	rows, err := db.Query(ctx, `SELECT schemaname, relname, n_tup_ins, n_tup_upd, n_tup_del, n_tup_hot_upd,
		n_live_tup, n_dead_tup, autovacuum_count, autoanalyze_count, pg_total_relation_size(relid)
		FROM pg_stat_user_tables ORDER BY schemaname, relname`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []TableStat
	for rows.Next() {
		var schema, name string
		var t TableStat
		if err := rows.Scan(&schema, &name, &t.Ins, &t.Upd, &t.Del, &t.HotUpd, &t.Live, &t.Dead,
			&t.Vacuums, &t.Analyzes, &t.SizeBytes); err != nil {
			return nil, err
		}
		if own(schema, name) {
			t.Table = schema + "." + name
			out = append(out, t)
		}
	}
	return out, rows.Err()
}

// Settled is Read once the figures other backends still hold have arrived:
// it rereads until two reads 300 ms apart agree on the counters, at most for
// 5 s, and returns the last read.
func Settled(ctx context.Context, db Querier, own Owner) ([]TableStat, error) {
	prev, err := Read(ctx, db, own)
	if err != nil {
		return nil, err
	}
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); {
		time.Sleep(300 * time.Millisecond)
		cur, err := Read(ctx, db, own)
		if err != nil {
			return nil, err
		}
		if sameCounters(prev, cur) {
			return cur, nil
		}
		prev = cur
	}
	return prev, nil
}

func sameCounters(a, b []TableStat) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		x, y := a[i], b[i]
		if x.Table != y.Table || x.Ins != y.Ins || x.Upd != y.Upd || x.Del != y.Del || x.Dead != y.Dead {
			return false
		}
	}
	return true
}

// Since returns end with its counters (Ins, Upd, Del, HotUpd) made relative
// to base; the estimates and the size stay as they are in end.
func Since(base, end []TableStat) []TableStat {
	before := map[string]TableStat{}
	for _, s := range base {
		before[s.Table] = s
	}
	out := make([]TableStat, len(end))
	for i, s := range end {
		b := before[s.Table]
		s.Ins -= b.Ins
		s.Upd -= b.Upd
		s.Del -= b.Del
		s.HotUpd -= b.HotUpd
		out[i] = s
	}
	return out
}
