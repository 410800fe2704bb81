package benchkit

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"runtime"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/awa-queue/awa/internal/pgstats"
)

// dsnFor returns the server DSN with the database replaced.
func dsnFor(dsn, dbname string) (string, error) {
	u, err := url.Parse(dsn)
	if err != nil || u.Scheme == "" {
		// key=value form
		cfg, err2 := pgx.ParseConfig(dsn)
		if err2 != nil {
			return "", fmt.Errorf("parse DSN: %w", errors.Join(err, err2))
		}
		return fmt.Sprintf("host=%s port=%d user=%s password=%s dbname=%s sslmode=disable",
			cfg.Host, cfg.Port, cfg.User, cfg.Password, dbname), nil
	}
	u.Path = "/" + dbname
	return u.String(), nil
}

func ident(s string) string { return pgx.Identifier{s}.Sanitize() }

// freshDB drops and recreates dbname on the server of adminDSN.
func freshDB(ctx context.Context, adminDSN, dbname string) error {
	conn, err := pgx.Connect(ctx, adminDSN)
	if err != nil {
		return err
	}
	defer conn.Close(context.Background())
	if _, err := conn.Exec(ctx, "DROP DATABASE IF EXISTS "+ident(dbname)+" WITH (FORCE)"); err != nil {
		return err
	}
	_, err = conn.Exec(ctx, "CREATE DATABASE "+ident(dbname)+" TEMPLATE template0")
	return err
}

func dropDB(ctx context.Context, adminDSN, dbname string) error {
	conn, err := pgx.Connect(ctx, adminDSN)
	if err != nil {
		return err
	}
	defer conn.Close(context.Background())
	_, err = conn.Exec(ctx, "DROP DATABASE IF EXISTS "+ident(dbname)+" WITH (FORCE)")
	return err
}

// PGInfo is the server's version and the settings that matter for the runs.
type PGInfo struct {
	Version           string            `json:"version"`
	Settings          map[string]string `json:"settings"`
	StatStatements    bool              `json:"pg_stat_statements"`
	ServerCommandOpts string            `json:"server_opts,omitempty"`
}

var reportedSettings = []string{
	"server_version", "shared_buffers", "work_mem", "maintenance_work_mem", "effective_cache_size",
	"synchronous_commit", "fsync", "full_page_writes", "wal_level", "wal_buffers", "wal_compression",
	"max_wal_size", "checkpoint_timeout", "commit_delay", "max_connections", "jit",
	"shared_preload_libraries", "huge_pages", "default_statistics_target",
	"track_functions", "pg_stat_statements.track",
}

func pgInfo(ctx context.Context, conn *pgx.Conn) (PGInfo, error) {
	info := PGInfo{Settings: map[string]string{}, ServerCommandOpts: os.Getenv("AWA_PG_OPTS")}
	if err := conn.QueryRow(ctx, "SELECT version()").Scan(&info.Version); err != nil {
		return info, err
	}
	rows, err := conn.Query(ctx, `SELECT name, setting || coalesce(' ' || unit, '')
		FROM pg_settings WHERE name = ANY($1) OR name LIKE 'autovacuum%' ORDER BY name`, reportedSettings)
	if err != nil {
		return info, err
	}
	for rows.Next() {
		var k, v string
		if err := rows.Scan(&k, &v); err != nil {
			return info, err
		}
		info.Settings[k] = v
	}
	if err := rows.Err(); err != nil {
		return info, err
	}
	// Friendly units for memory settings.
	for _, k := range []string{"shared_buffers", "work_mem", "maintenance_work_mem", "effective_cache_size",
		"wal_buffers", "max_wal_size", "checkpoint_timeout"} {
		var v string
		if conn.QueryRow(ctx, "SELECT current_setting($1)", k).Scan(&v) == nil {
			info.Settings[k] = v
		}
	}
	if strings.Contains(info.Settings["shared_preload_libraries"], "pg_stat_statements") {
		if _, err := conn.Exec(ctx, "CREATE EXTENSION IF NOT EXISTS pg_stat_statements"); err == nil {
			info.StatStatements = true
		}
	}
	return info, nil
}

// Machine describes the host.
type Machine struct {
	CPUs     int    `json:"cpus"`
	CPUModel string `json:"cpu_model"`
	MemoryGB string `json:"memory"`
	Kernel   string `json:"kernel"`
	GoVer    string `json:"go"`
	LoadAvg  string `json:"loadavg_at_start"`
}

func machineInfo() Machine {
	m := Machine{CPUs: runtime.NumCPU(), GoVer: runtime.Version()}
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, l := range strings.Split(string(b), "\n") {
			if strings.HasPrefix(l, "model name") {
				m.CPUModel = strings.TrimSpace(strings.SplitN(l, ":", 2)[1])
				break
			}
		}
	}
	if b, err := os.ReadFile("/proc/meminfo"); err == nil {
		var kb int64
		fmt.Sscanf(strings.SplitN(string(b), "\n", 2)[0], "MemTotal: %d kB", &kb)
		m.MemoryGB = fmt.Sprintf("%.1f GiB", float64(kb)/1024/1024)
	}
	if b, err := os.ReadFile("/proc/sys/kernel/osrelease"); err == nil {
		m.Kernel = strings.TrimSpace(string(b))
	}
	if b, err := os.ReadFile("/proc/loadavg"); err == nil {
		m.LoadAvg = strings.Join(strings.Fields(string(b))[:3], " ")
	}
	return m
}

// ---------------------------------------------------------------- per-run stats

// TableStat is one table's activity counters (pg_stat_user_tables) and size.
type TableStat = pgstats.TableStat

// TableFamily sums the partitions of one table (ready_entries_0..15 →
// ready_entries).
type TableFamily struct {
	TableStat
	Partitions int `json:"partitions"`
}

func families(ts []TableStat) []TableFamily {
	by := map[string]*TableFamily{}
	var order []string
	for _, t := range ts {
		name := t.Table
		if i := strings.LastIndexByte(name, '_'); i > 0 && isDigits(name[i+1:]) {
			name = name[:i]
		}
		f, ok := by[name]
		if !ok {
			f = &TableFamily{TableStat: TableStat{Table: name}}
			by[name] = f
			order = append(order, name)
		}
		f.Partitions++
		f.Ins += t.Ins
		f.Upd += t.Upd
		f.Del += t.Del
		f.HotUpd += t.HotUpd
		f.Live += t.Live
		f.Dead += t.Dead
		f.Vacuums += t.Vacuums
		f.Analyzes += t.Analyzes
		f.SizeBytes += t.SizeBytes
	}
	out := make([]TableFamily, 0, len(order))
	for _, n := range order {
		out = append(out, *by[n])
	}
	sort.SliceStable(out, func(i, j int) bool {
		ai := out[i].Ins + out[i].Upd + out[i].Del
		aj := out[j].Ins + out[j].Upd + out[j].Del
		return ai > aj
	})
	return out
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// DBStat is pg_stat_database of the run's database. It and the other stat
// records below look alike (JSON-tagged counters) only in shape.
type DBStat struct {
	Commits   int64 `json:"xact_commit"`
	Rollbacks int64 `json:"xact_rollback"`
	BlksRead  int64 `json:"blks_read"`
	BlksHit   int64 `json:"blks_hit"`
	Deadlocks int64 `json:"deadlocks"`
	TempBytes int64 `json:"temp_bytes"`
}

func dbStat(ctx context.Context, conn *pgx.Conn) (DBStat, error) {
	var s DBStat
	err := conn.QueryRow(ctx, `SELECT xact_commit, xact_rollback, blks_read, blks_hit, deadlocks, temp_bytes
		FROM pg_stat_database WHERE datname = current_database()`).
		Scan(&s.Commits, &s.Rollbacks, &s.BlksRead, &s.BlksHit, &s.Deadlocks, &s.TempBytes)
	return s, err
}

func walLSN(ctx context.Context, conn *pgx.Conn) (string, error) {
	var lsn string
	err := conn.QueryRow(ctx, "SELECT pg_current_wal_lsn()::text").Scan(&lsn)
	return lsn, err
}

func walDiff(ctx context.Context, conn *pgx.Conn, from, to string) (int64, error) {
	var n int64
	err := conn.QueryRow(ctx, "SELECT pg_wal_lsn_diff($1::pg_lsn, $2::pg_lsn)::bigint", to, from).Scan(&n)
	return n, err
}

// resetStats resets the run database's statistics (conn is on it) and, when
// available, pg_stat_statements (server-wide, through the admin database
// where the extension lives: runs never overlap).
func resetStats(ctx context.Context, conn *pgx.Conn, adminDSN string, statements bool) error {
	if _, err := conn.Exec(ctx, "SELECT pg_stat_reset()"); err != nil {
		return err
	}
	if statements {
		admin, err := pgx.Connect(ctx, adminDSN)
		if err != nil {
			return err
		}
		defer admin.Close(context.Background())
		if _, err := admin.Exec(ctx, "SELECT pg_stat_statements_reset()"); err != nil {
			return err
		}
	}
	return nil
}

// Statement is one pg_stat_statements entry of the run's database.
type Statement struct {
	Query    string  `json:"query"`
	Calls    int64   `json:"calls"`
	TotalMs  float64 `json:"total_ms"`
	MeanMs   float64 `json:"mean_ms"`
	StddevMs float64 `json:"stddev_ms,omitempty"`
	MaxMs    float64 `json:"max_ms,omitempty"`
	// SharedHit and SharedRead are the statement's shared buffers found in
	// and read into the cache (a cost the machine's load does not change).
	SharedHit  int64 `json:"shared_blks_hit,omitempty"`
	SharedRead int64 `json:"shared_blks_read,omitempty"`
	Rows       int64 `json:"rows"`
	TopLevel   bool  `json:"toplevel"`
}

func topStatements(ctx context.Context, admin *pgx.Conn, dbname string, limit int) ([]Statement, error) {
	rows, err := admin.Query(ctx, `SELECT regexp_replace(query, '\s+', ' ', 'g'), calls, total_exec_time,
		mean_exec_time, stddev_exec_time, max_exec_time, shared_blks_hit, shared_blks_read, rows, toplevel
		FROM pg_stat_statements s JOIN pg_database d ON d.oid = s.dbid
		WHERE d.datname = $1 AND query NOT LIKE '%/*bench*/%' AND query NOT LIKE '%pg\_stat%'
		  AND query NOT LIKE '%pg\_current\_wal%' AND query NOT ILIKE 'CHECKPOINT%'
		ORDER BY total_exec_time DESC LIMIT $2`, dbname, limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Statement
	for rows.Next() {
		var s Statement
		if err := rows.Scan(&s.Query, &s.Calls, &s.TotalMs, &s.MeanMs, &s.StddevMs, &s.MaxMs, &s.SharedHit, &s.SharedRead, &s.Rows, &s.TopLevel); err != nil {
			return nil, err
		}
		if len(s.Query) > 300 {
			s.Query = s.Query[:300] + "…"
		}
		out = append(out, s)
	}
	return out, rows.Err()
}

// FuncStat is one pg_stat_user_functions entry (track_functions = pl).
type FuncStat struct {
	Function string  `json:"function"`
	Calls    int64   `json:"calls"`
	TotalMs  float64 `json:"total_ms"`
	SelfMs   float64 `json:"self_ms"`
}

func funcStats(ctx context.Context, conn *pgx.Conn) ([]FuncStat, error) {
	rows, err := conn.Query(ctx, `SELECT schemaname || '.' || funcname, calls, total_time, self_time
		FROM pg_stat_user_functions ORDER BY total_time DESC LIMIT 25`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []FuncStat
	for rows.Next() {
		var f FuncStat
		if err := rows.Scan(&f.Function, &f.Calls, &f.TotalMs, &f.SelfMs); err != nil {
			return nil, err
		}
		out = append(out, f)
	}
	return out, rows.Err()
}

// ---------------------------------------------------------------- wait events

// waitSampler samples pg_stat_activity of one database: for each active
// backend, its wait event, or "CPU" when it waits on nothing.
type waitSampler struct {
	mu      sync.Mutex
	counts  map[string]int64
	samples int64
	stop    chan struct{}
	done    chan struct{}
}

// WaitEvent is a wait event's share of the active-backend samples.
type WaitEvent struct {
	Event   string  `json:"event"`
	Samples int64   `json:"samples"`
	AvgBusy float64 `json:"avg_backends"` // samples / sampling ticks
}

func startWaitSampler(ctx context.Context, adminDSN, dbname string, every time.Duration) (*waitSampler, error) {
	conn, err := pgx.Connect(ctx, adminDSN)
	if err != nil {
		return nil, err
	}
	w := &waitSampler{counts: map[string]int64{}, stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(w.done)
		defer conn.Close(context.Background())
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-w.stop:
				return
			case <-t.C:
			}
			rows, err := conn.Query(ctx, `SELECT coalesce(wait_event_type || ':' || wait_event, 'CPU'), count(*)
				FROM pg_stat_activity
				WHERE datname = $1 AND state = 'active' AND pid <> pg_backend_pid()
				GROUP BY 1`, dbname)
			if err != nil {
				continue
			}
			w.mu.Lock()
			w.samples++
			for rows.Next() {
				var ev string
				var n int64
				if rows.Scan(&ev, &n) == nil {
					w.counts[ev] += n
				}
			}
			w.mu.Unlock()
			rows.Close()
		}
	}()
	return w, nil
}

func (w *waitSampler) Stop() []WaitEvent {
	close(w.stop)
	<-w.done
	w.mu.Lock()
	defer w.mu.Unlock()
	var out []WaitEvent
	for ev, n := range w.counts {
		out = append(out, WaitEvent{Event: ev, Samples: n, AvgBusy: float64(n) / float64(max(w.samples, 1))})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Samples > out[j].Samples })
	return out
}

// ---------------------------------------------------------------- CPU

// cpuMeter measures machine-wide CPU use (/proc/stat) and this process's CPU
// time over an interval.
type cpuMeter struct {
	busy0, total0 int64
	self0         time.Duration
	t0            time.Time
}

func procStat() (busy, total int64) {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0, 0
	}
	f := strings.Fields(strings.SplitN(string(b), "\n", 2)[0])
	for i, s := range f[1:] {
		var v int64
		fmt.Sscan(s, &v)
		total += v
		if i != 3 && i != 4 { // idle, iowait
			busy += v
		}
	}
	return busy, total
}

func startCPU() cpuMeter {
	b, t := procStat()
	return cpuMeter{busy0: b, total0: t, self0: selfCPU(), t0: time.Now()}
}

// CPU is the CPU use over a run: machine busy share (all cores = 100%), and
// the bench process's own share (client side: both systems' Go runtime).
type CPU struct {
	MachineBusyPct float64 `json:"machine_busy_pct"`
	BenchProcPct   float64 `json:"bench_process_pct"`
}

func (c cpuMeter) Stop() CPU {
	b, t := procStat()
	wall := time.Since(c.t0)
	out := CPU{}
	if t > c.total0 {
		out.MachineBusyPct = 100 * float64(b-c.busy0) / float64(t-c.total0)
	}
	if wall > 0 {
		out.BenchProcPct = 100 * float64(selfCPU()-c.self0) / float64(wall) / float64(runtime.NumCPU())
	}
	return out
}

// migratedDB creates database name on the server adminDSN afresh, migrates
// awa into it and opens a pool; done closes the pool and, unless keep, drops
// the database.
func migratedDB(ctx context.Context, adminDSN, name string, keep bool) (string, *pgxpool.Pool, func(), error) {
	if err := freshDB(ctx, adminDSN, name); err != nil {
		return "", nil, nil, err
	}
	drop := func() {
		if !keep {
			_ = dropDB(context.Background(), adminDSN, name)
		}
	}
	dsn, err := dsnFor(adminDSN, name)
	if err == nil {
		err = (AwaSystem{}).Migrate(ctx, dsn)
	}
	var pool *pgxpool.Pool
	if err == nil {
		pool, err = pgxpool.New(ctx, dsn)
	}
	if err != nil {
		drop()
		return "", nil, nil, err
	}
	return dsn, pool, func() { pool.Close(); drop() }, nil
}
