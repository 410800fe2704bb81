package benchkit

import (
	"context"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/awa-queue/awa/driver"
)

// IdleOptions configure the idle-queues scenario (-idle-queues): one awa
// client working Queues[i] queues (one worker each), each of which has had
// one job (so it has lanes and a claim cursor, as a queue in use has), then
// measured idle for Duration after Settle: what an idle client costs as its
// queue count grows.
type IdleOptions struct {
	DSN      string
	DBName   string
	Queues   []int
	Settle   time.Duration // after Start, before the window: the first claims and the LISTEN
	Duration time.Duration
	Poll     time.Duration // the client's FetchPollInterval (0: the default, 1 s)
	Keep     bool
}

// IdleResult is one queue count's idle cost over the window: statements the
// database ran for the client (pg_stat_statements calls in its database) and
// the top ones, the client process's CPU (user + system) and its server
// backends' CPU (/proc), the connections it held, and how long Start took.
type IdleResult struct {
	Queues        int
	Statements    float64 // per second
	Top           []string
	PollMs        float64 // mean execution time of one awa.queues_ready call in the window (0: none)
	ClientCPU     float64 // % of one core
	ServerCPU     float64 // % of one core, the client's backends
	Conns, IdleCn int
	Start         time.Duration
}

type idleArgs struct{}

func (idleArgs) Kind() string { return "idle" }

// IdleQueues runs the scenario for each queue count and prints a table.
func IdleQueues(ctx context.Context, o IdleOptions, w io.Writer) ([]IdleResult, error) {
	if o.DBName == "" {
		o.DBName = "bench_idle"
	}
	admin, err := pgx.Connect(ctx, o.DSN)
	if err != nil {
		return nil, err
	}
	defer admin.Close(context.Background())
	if _, err := admin.Exec(ctx, `CREATE EXTENSION IF NOT EXISTS pg_stat_statements`); err != nil {
		return nil, fmt.Errorf("pg_stat_statements (preload it: make bench's AWA_PG_OPTS): %w", err)
	}
	var out []IdleResult
	fmt.Fprintf(w, "idle-queues: one client, one worker per queue, maintenance off, poll %s, settle %s, window %s\n",
		pollName(o.Poll), o.Settle, o.Duration)
	fmt.Fprintf(w, "%8s %12s %10s %10s %6s %6s %9s %9s  %s\n", "queues", "statements/s", "client CPU", "server CPU",
		"conns", "idle", "start", "poll ms", "top statements (calls/s)")
	for _, n := range o.Queues {
		r, err := idleRun(ctx, o, admin, n)
		if err != nil {
			return out, fmt.Errorf("%d queues: %w", n, err)
		}
		out = append(out, r)
		fmt.Fprintf(w, "%8d %12.1f %9.2f%% %9.2f%% %6d %6d %9s %9.3f  %s\n", r.Queues, r.Statements, r.ClientCPU,
			r.ServerCPU, r.Conns, r.IdleCn, r.Start.Round(time.Millisecond), r.PollMs, strings.Join(r.Top, ", "))
	}
	return out, nil
}

func pollName(d time.Duration) string {
	if d == 0 {
		return "1s (default)"
	}
	return d.String()
}

func idleRun(ctx context.Context, o IdleOptions, admin *pgx.Conn, n int) (IdleResult, error) {
	r := IdleResult{Queues: n}
	if err := freshDB(ctx, o.DSN, o.DBName); err != nil {
		return r, err
	}
	if !o.Keep {
		defer func() { _ = dropDB(context.Background(), o.DSN, o.DBName) }()
	}
	dsn, err := dsnFor(o.DSN, o.DBName)
	if err != nil {
		return r, err
	}
	if err := (AwaSystem{}).Migrate(ctx, dsn); err != nil {
		return r, err
	}
	pool, err := pgxpool.New(ctx, dsn)
	if err != nil {
		return r, err
	}
	defer pool.Close()
	workers := driver.NewWorkers()
	driver.AddWorker(workers, driver.WorkFunc(func(context.Context, *driver.Job[idleArgs]) error { return nil }))
	queues := map[string]driver.QueueConfig{}
	for i := range n {
		queues["idle_"+strconv.Itoa(i)] = driver.QueueConfig{MaxWorkers: 1}
	}
	c, err := driver.NewClient(pool, &driver.Config{Queues: queues, Workers: workers, DisableMaintenance: true,
		FetchPollInterval: o.Poll, Logger: WarnLogger(os.Stderr)})
	if err != nil {
		return r, err
	}
	t0 := time.Now()
	if err := c.Start(ctx); err != nil {
		return r, err
	}
	r.Start = time.Since(t0)
	defer func() { _ = c.Stop(context.Background()) }()
	// One job per queue, worked: every queue has lanes and a cursor.
	jobs := make([]driver.InsertManyParams, 0, n)
	for name := range queues {
		jobs = append(jobs, driver.InsertManyParams{Args: idleArgs{}, Opts: &driver.InsertOpts{Queue: name}})
	}
	if _, err := c.InsertMany(ctx, jobs); err != nil {
		return r, err
	}
	for deadline := time.Now().Add(2 * time.Minute); ; time.Sleep(50 * time.Millisecond) {
		var left int
		if err := pool.QueryRow(ctx, `SELECT count(*) FROM awa.jobs WHERE state <> 'completed'`).Scan(&left); err != nil {
			return r, err
		}
		if left == 0 {
			break
		}
		if time.Now().After(deadline) {
			return r, fmt.Errorf("%d of the %d first jobs not completed after 2 minutes", left, n)
		}
	}
	time.Sleep(o.Settle)

	calls0, ms0, err := dbCalls(ctx, admin, o.DBName)
	if err != nil {
		return r, err
	}
	pids, err := backendPIDs(ctx, admin, o.DBName)
	if err != nil {
		return r, err
	}
	cpu0, srv0, w0 := selfCPU(), pidsCPU(pids), time.Now()
	time.Sleep(o.Duration)
	cpu1, srv1, wall := selfCPU(), pidsCPU(pids), time.Since(w0)
	calls1, ms1, err := dbCalls(ctx, admin, o.DBName)
	if err != nil {
		return r, err
	}
	secs := wall.Seconds()
	var total int64
	type fc struct {
		q string
		n int64
	}
	var top []fc
	for q, c1 := range calls1 {
		if d := c1 - calls0[q]; d > 0 {
			total += d
			top = append(top, fc{q, d})
		}
	}
	for i := 0; i < len(top); i++ { // a handful: selection order is enough
		for j := i + 1; j < len(top); j++ {
			if top[j].n > top[i].n {
				top[i], top[j] = top[j], top[i]
			}
		}
	}
	for _, t := range top[:min(3, len(top))] {
		r.Top = append(r.Top, fmt.Sprintf("%s %.1f", t.q, float64(t.n)/secs))
	}
	r.Statements = float64(total) / secs
	if n := calls1["queues_ready"] - calls0["queues_ready"]; n > 0 {
		r.PollMs = (ms1["queues_ready"] - ms0["queues_ready"]) / float64(n)
	}
	r.ClientCPU = 100 * (cpu1 - cpu0).Seconds() / secs
	r.ServerCPU = 100 * (srv1 - srv0).Seconds() / secs
	err = admin.QueryRow(ctx, `SELECT count(*), count(*) FILTER (WHERE state = 'idle')
		FROM pg_stat_activity WHERE datname = $1 AND backend_type = 'client backend'`, o.DBName).Scan(&r.Conns, &r.IdleCn)
	return r, err
}

// dbCalls is pg_stat_statements' calls and total execution time (ms) in
// database dbname by statement, named by the awa function it calls (or its
// first 40 characters).
func dbCalls(ctx context.Context, admin *pgx.Conn, dbname string) (map[string]int64, map[string]float64, error) {
	rows, err := admin.Query(ctx, `SELECT s.query, s.calls, s.total_exec_time FROM pg_stat_statements s
		JOIN pg_database d ON d.oid = s.dbid WHERE d.datname = $1`, dbname)
	if err != nil {
		return nil, nil, fmt.Errorf("pg_stat_statements (preload it: make bench's AWA_PG_OPTS): %w", err)
	}
	out, ms := map[string]int64{}, map[string]float64{}
	for rows.Next() {
		var q string
		var n int64
		var t float64
		if err := rows.Scan(&q, &n, &t); err != nil {
			return nil, nil, err
		}
		name := q
		if _, rest, ok := strings.Cut(q, "awa."); ok {
			name, _, _ = strings.Cut(rest, "(")
		} else if len(name) > 40 {
			name = name[:40]
		}
		out[name] += n
		ms[name] += t
	}
	return out, ms, rows.Err()
}

func backendPIDs(ctx context.Context, admin *pgx.Conn, dbname string) ([]int, error) {
	rows, err := admin.Query(ctx, `SELECT pid FROM pg_stat_activity WHERE datname = $1 AND backend_type = 'client backend'`, dbname)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, pgx.RowTo[int])
}

// pidsCPU sums the user and system CPU of processes pids (/proc; 0 for one
// that is gone or when /proc is missing).
func pidsCPU(pids []int) time.Duration {
	var ticks int64
	for _, pid := range pids {
		b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		if err != nil {
			continue
		}
		// Fields after the command (which may hold spaces): state is the
		// 3rd field, utime the 14th and stime the 15th.
		s := string(b)
		f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
		if len(f) > 12 {
			u, _ := strconv.ParseInt(f[11], 10, 64)
			st, _ := strconv.ParseInt(f[12], 10, 64)
			ticks += u + st
		}
	}
	return time.Duration(ticks) * (time.Second / 100) // USER_HZ
}
