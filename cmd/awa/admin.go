package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/awa-queue/awa/driver"
)

// Exit statuses of the operator commands (awa jobs, dlq, queues, periodic)
// besides 0 (done), 1 (the database failed) and 2 (bad usage).
const (
	exitNotFound     = 3 // no such job (AW020) or periodic job (AW051)
	exitInvalidState = 4 // the job's state does not allow it (AW021)
	exitNotDrained   = 5 // awa queues drain: the queue still had work at the timeout
)

// adminNote is what the operator commands' -h says after the flags.
const adminNote = `
Exit status: 0 done, 1 the database failed, 2 bad usage, 3 no such job
(or periodic job), 4 the job's state does not allow it (for example a retry
of a running job), 5 not drained in time (awa queues drain). -json prints
the result as JSON, for scripts.
`

// adminCmd is one operator command's flags, parsed: its connection, schema
// and output format, and its positional arguments.
type adminCmd struct {
	fs     *flag.FlagSet
	dsn    *string
	schema *string
	json   *bool
}

func newAdminCmd(name, synopsis string, stderr io.Writer) *adminCmd {
	fs, dsn := newFlagSet(name, synopsis, stderr)
	withNote(fs, adminNote, stderr)
	return &adminCmd{fs: fs, dsn: dsn,
		schema: fs.String("schema", driver.DefaultSchema, "schema awa is installed in (awa migrate -schema)"),
		json:   fs.Bool("json", false, "print the result as JSON, for scripts")}
}

// parse parses args; want is how many positional arguments (after the verb)
// the command takes.
func (a *adminCmd) parse(args []string, want int) ([]string, error) {
	pos, err := parseFlags(a.fs, args)
	if err != nil {
		return nil, err
	}
	if len(pos) != want {
		a.fs.Usage()
		return nil, usageErrorf("want %d argument(s), got %q", want, pos)
	}
	return pos, resolveDSN(a.dsn)
}

// connect opens one connection (no prepared statement outlives a
// statement, so it works through a transaction-mode pooler) and the driver
// of the schema.
func (a *adminCmd) connect(ctx context.Context) (*driver.Driver, *pgx.Conn, error) {
	d, err := driver.NewSchema(*a.schema)
	if err != nil {
		return nil, nil, usageErrorf("-schema: %v", err)
	}
	cfg, err := pgx.ParseConfig(*a.dsn)
	if err != nil {
		return nil, nil, fmt.Errorf("parse DSN: %w", err)
	}
	cfg.DefaultQueryExecMode = pgx.QueryExecModeExec
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return nil, nil, fmt.Errorf("connect: %w", err)
	}
	return d, conn, nil
}

// output prints v as JSON with -json, else runs table.
func (a *adminCmd) output(w io.Writer, v any, table func(tw *tabwriter.Writer)) error {
	if *a.json {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(v)
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	table(tw)
	return tw.Flush()
}

// parseJob parses a one-job command's args: its job id.
func (a *adminCmd) parseJob(args []string) (int64, error) {
	pos, err := a.parse(args, 1)
	if err != nil {
		return 0, err
	}
	return jobID(pos[0])
}

// retryCmd is `awa jobs retry` and `awa dlq retry`: one job id and -at.
func retryCmd(ctx context.Context, name string, args []string, stdout, stderr io.Writer,
	retry func(d *driver.Driver, conn *pgx.Conn, id int64, runAt time.Time) (driver.InsertedJob, error)) error {
	a := newAdminCmd(name, "ID [-at TIME|DURATION] [-dsn DSN] [-schema NAME] [-json]", stderr)
	at := a.fs.String("at", "", "run at this RFC 3339 time or after this duration (default: now)")
	id, err := a.parseJob(args)
	if err != nil {
		return err
	}
	runAt, err := parseAt(*at)
	if err != nil {
		return err
	}
	return withAdmin(ctx, a, func(d *driver.Driver, conn *pgx.Conn) error {
		j, err := retry(d, conn, id, runAt)
		if err != nil {
			return err
		}
		return writeInserted(a, stdout, j)
	})
}

func jobID(s string) (int64, error) {
	id, err := strconv.ParseInt(s, 10, 64)
	if err != nil || id <= 0 {
		return 0, usageErrorf("job id must be a positive integer, got %q", s)
	}
	return id, nil
}

// parseAt parses -at: empty (now), an RFC 3339 time, or a duration from now.
func parseAt(s string) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	if d, err := time.ParseDuration(s); err == nil {
		return time.Now().Add(d), nil
	}
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return time.Time{}, usageErrorf("-at must be an RFC 3339 time or a duration from now, got %q", s)
	}
	return t, nil
}

// insertedJSON is a job an operator command made runnable.
type insertedJSON struct {
	ID    int64     `json:"id"`
	State string    `json:"state"`
	Queue string    `json:"queue"`
	Kind  string    `json:"kind"`
	RunAt time.Time `json:"run_at"`
}

func writeInserted(a *adminCmd, w io.Writer, j driver.InsertedJob) error {
	v := insertedJSON{ID: j.ID, State: string(j.State), Queue: j.Queue, Kind: j.Kind, RunAt: j.RunAt.UTC()}
	return a.output(w, v, func(tw *tabwriter.Writer) {
		fmt.Fprintln(tw, "JOB\tSTATE\tQUEUE\tKIND\tRUN AT")
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\n", v.ID, v.State, v.Queue, v.Kind, v.RunAt.Format(time.RFC3339))
	})
}

// cmdJobs is `awa jobs list|show|cancel|retry|erase`.
func cmdJobs(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	verb := ""
	if len(args) > 0 {
		verb, args = args[0], args[1:]
	}
	switch verb {
	case "list":
		return listCmd(ctx, "jobs list", args, stdout, stderr, false)
	case "show":
		a := newAdminCmd("jobs show", "ID [-dsn DSN] [-schema NAME] [-json]", stderr)
		id, err := a.parseJob(args)
		if err != nil {
			return err
		}
		return withAdmin(ctx, a, func(d *driver.Driver, conn *pgx.Conn) error {
			j, err := d.GetJob(ctx, conn, id)
			if err != nil {
				return err
			}
			v := listingJSON(j)
			return a.output(stdout, v, func(tw *tabwriter.Writer) {
				for _, f := range [][2]string{
					{"id", strconv.FormatInt(v.ID, 10)}, {"state", v.State}, {"queue", v.Queue}, {"kind", v.Kind},
					{"priority", strconv.Itoa(v.Priority)}, {"attempt", fmt.Sprintf("%d of %d", v.Attempt, v.MaxAttempts)},
					{"dlq", strconv.FormatBool(v.DLQ)}, {"created", v.CreatedAt.Format(time.RFC3339)},
					{"run at", v.RunAt.Format(time.RFC3339)}, {"claimed", timeOrDash(v.ClaimedAt)},
					{"finalized", timeOrDash(v.FinalizedAt)}, {"expires", timeOrDash(v.ExpiresAt)},
					{"tags", strings.Join(v.Tags, ",")}, {"args", string(v.Args)}, {"metadata", string(v.Metadata)},
					{"errors", string(v.Errors)}, {"progress", string(v.Progress)},
				} {
					fmt.Fprintf(tw, "%s\t%s\n", f[0], orDash(f[1]))
				}
			})
		})
	case "cancel", "retry":
		return jobsActCmd(ctx, verb, args, stdout, stderr)
	case "erase":
		a := newAdminCmd("jobs erase", "ID [-errors] [-dsn DSN] [-schema NAME] [-json]", stderr)
		errs := a.fs.Bool("errors", false, "also erase the job's errors")
		id, err := a.parseJob(args)
		if err != nil {
			return err
		}
		return withAdmin(ctx, a, func(d *driver.Driver, conn *pgx.Conn) error {
			planes, err := d.EraseJob(ctx, conn, id, *errs)
			if err != nil {
				return err
			}
			type planeJSON struct {
				Plane string `json:"plane"`
				Rows  int64  `json:"rows"`
			}
			v := struct {
				ID     int64       `json:"id"`
				Planes []planeJSON `json:"planes"`
			}{ID: id, Planes: []planeJSON{}}
			for _, p := range planes {
				v.Planes = append(v.Planes, planeJSON{p.Plane, p.Rows})
			}
			return a.output(stdout, v, func(tw *tabwriter.Writer) {
				fmt.Fprintln(tw, "JOB\tPLANE\tROWS ERASED")
				for _, p := range planes {
					fmt.Fprintf(tw, "%d\t%s\t%d\n", id, p.Plane, p.Rows)
				}
			})
		})
	}
	fmt.Fprint(stderr, jobsUsage)
	return usageErrorf("want: awa jobs list|show|cancel|retry|erase")
}

const jobsUsage = `usage:
  awa jobs list [-state S,..] [-queue Q] [-kind K] [-tag T] [-after ID] [-limit N]
                                       one page of jobs, newest first (the next page: -after the last id)
  awa jobs show ID                     one job: its state, args, errors, attempts, progress
  awa jobs cancel ID [-reason TEXT]    cancel a job in any unfinished state
  awa jobs retry ID [-at TIME]         run a scheduled, retryable, failed or cancelled job again
  awa jobs cancel|retry -queue Q|-kind K|-tag T|-state S,.. [-limit N] [-dry-run]
                                       the same for up to -limit jobs of a filter (default 1000)
  awa jobs erase ID [-errors]          erase a job's args and metadata everywhere (cancelling it first)
`

// cmdDLQ is `awa dlq list|retry|purge`.
func cmdDLQ(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	verb := ""
	if len(args) > 0 {
		verb, args = args[0], args[1:]
	}
	switch verb {
	case "list":
		return listCmd(ctx, "dlq list", args, stdout, stderr, true)
	case "retry":
		return retryCmd(ctx, "dlq retry", args, stdout, stderr,
			func(d *driver.Driver, conn *pgx.Conn, id int64, runAt time.Time) (driver.InsertedJob, error) {
				return d.RetryDLQJob(ctx, conn, id, runAt)
			})
	case "purge":
		a := newAdminCmd("dlq purge", "[-queue Q] [-before TIME|DURATION] [-id N,N...] [-max N] [-dsn DSN] [-schema NAME] [-json]", stderr)
		queue := a.fs.String("queue", "", "only this queue's DLQ jobs")
		before := a.fs.String("before", "", "only jobs failed before this RFC 3339 time, or this long ago (e.g. 72h)")
		ids := a.fs.String("id", "", "only these job ids (comma-separated)")
		maxN := a.fs.Int("max", 10000, "delete at most this many (1..100000)")
		if _, err := a.parse(args, 0); err != nil {
			return err
		}
		f := driver.PurgeDLQFilter{Queue: *queue, Max: *maxN}
		if *before != "" {
			if d, err := time.ParseDuration(*before); err == nil {
				f.FailedBefore = time.Now().Add(-d)
			} else if f.FailedBefore, err = time.Parse(time.RFC3339, *before); err != nil {
				return usageErrorf("-before must be an RFC 3339 time or a duration ago, got %q", *before)
			}
		}
		for _, s := range strings.Split(*ids, ",") {
			if s = strings.TrimSpace(s); s == "" {
				continue
			}
			id, err := jobID(s)
			if err != nil {
				return err
			}
			f.JobIDs = append(f.JobIDs, id)
		}
		if f.Queue == "" && f.FailedBefore.IsZero() && len(f.JobIDs) == 0 {
			return usageErrorf("give at least one of -queue, -before and -id")
		}
		return withAdmin(ctx, a, func(d *driver.Driver, conn *pgx.Conn) error {
			purged, err := d.PurgeDLQ(ctx, conn, f)
			if err != nil {
				return err
			}
			v := struct {
				Purged []int64 `json:"purged"`
			}{Purged: append([]int64{}, purged...)}
			return a.output(stdout, v, func(tw *tabwriter.Writer) {
				fmt.Fprintf(tw, "purged %d DLQ jobs\n", len(purged))
			})
		})
	}
	fmt.Fprint(stderr, dlqUsage)
	return usageErrorf("want: awa dlq list|retry|purge")
}

const dlqUsage = `usage:
  awa dlq list [-queue Q] [-kind K] [-tag T] [-after ID] [-limit N]   one page of DLQ jobs, newest first
  awa dlq retry ID [-at TIME]                          run a DLQ job again from attempt 0
  awa dlq purge [-queue Q] [-before T] [-id N,...]     delete DLQ jobs (at least one filter)
`

// cmdQueues is `awa queues list|pause|resume`.
func cmdQueues(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	verb := ""
	if len(args) > 0 {
		verb, args = args[0], args[1:]
	}
	switch verb {
	case "pause", "resume":
		a := newAdminCmd("queues "+verb, "QUEUE [-dsn DSN] [-schema NAME] [-json]", stderr)
		pos, err := a.parse(args, 1)
		if err != nil {
			return err
		}
		return withAdmin(ctx, a, func(d *driver.Driver, conn *pgx.Conn) error {
			v := struct {
				Queue    string     `json:"queue"`
				Paused   bool       `json:"paused"`
				PausedAt *time.Time `json:"paused_at"`
			}{Queue: pos[0], Paused: verb == "pause"}
			if verb == "pause" {
				at, err := d.PauseQueue(ctx, conn, pos[0])
				if err != nil {
					return err
				}
				at = at.UTC()
				v.PausedAt = &at
			} else if err := d.ResumeQueue(ctx, conn, pos[0]); err != nil {
				return err
			}
			return a.output(stdout, v, func(tw *tabwriter.Writer) {
				if v.Paused {
					fmt.Fprintf(tw, "queue %s paused since %s\n", v.Queue, v.PausedAt.Format(time.RFC3339))
				} else {
					fmt.Fprintf(tw, "queue %s resumed\n", v.Queue)
				}
			})
		})
	case "drain":
		a := newAdminCmd("queues drain", "QUEUE [-timeout D] [-dsn DSN] [-schema NAME] [-json]", stderr)
		timeout := a.fs.Duration("timeout", time.Minute, "give up after this long (exit 5)")
		pos, err := a.parse(args, 1)
		if err != nil {
			return err
		}
		return withAdmin(ctx, a, func(d *driver.Driver, conn *pgx.Conn) error {
			dctx, cancel := context.WithTimeout(ctx, *timeout)
			defer cancel()
			dr, err := d.DrainQueue(dctx, conn, pos[0])
			if err != nil && !(errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil) {
				return err
			}
			v := map[string]any{"queue": pos[0], "drained": dr.Drained, "available": dr.Available,
				"running": dr.Running, "due": dr.Due}
			if err := a.output(stdout, v, func(tw *tabwriter.Writer) {
				if dr.Drained {
					fmt.Fprintf(tw, "queue %s drained\n", pos[0])
				} else {
					fmt.Fprintf(tw, "queue %s not drained after %s: available %v, running %v, due %v\n", pos[0],
						*timeout, dr.Available, dr.Running, dr.Due)
				}
			}); err != nil {
				return err
			}
			if !dr.Drained {
				return errNotDrained
			}
			return nil
		})
	case "configure":
		return configureQueue(ctx, args, stdout, stderr)
	case "list":
	default:
		fmt.Fprint(stderr, queuesUsage)
		return usageErrorf("want: awa queues list|pause|resume|drain|configure")
	}
	a := newAdminCmd("queues list", "[-queue Q] [-dsn DSN] [-schema NAME] [-json]", stderr)
	queue := a.fs.String("queue", "", "only this queue")
	if _, err := a.parse(args, 0); err != nil {
		return err
	}
	return withAdmin(ctx, a, func(d *driver.Driver, conn *pgx.Conn) error {
		counts, err := d.QueueCounts(ctx, conn, *queue)
		if err != nil {
			return err
		}
		paused, err := d.PausedQueues(ctx, conn)
		if err != nil {
			return err
		}
		limits, err := d.QueueLimits(ctx, conn, *queue)
		if err != nil {
			return err
		}
		byQueue := map[string]*limitsJSON{}
		for _, l := range limits {
			byQueue[l.Queue] = newLimitsJSON(l)
		}
		type queueJSON struct {
			Queue           string `json:"queue"`
			Paused          bool   `json:"paused"`
			Available       int64  `json:"available"`
			Running         int64  `json:"running"`
			WaitingExternal int64  `json:"waiting_external"`
			Scheduled       int64  `json:"scheduled"`
			Retryable       int64  `json:"retryable"`
			Completed       int64  `json:"completed"`
			Cancelled       int64  `json:"cancelled"`
			Failed          int64  `json:"failed"`
			DLQ             int64  `json:"dlq"`
			// Limits: the queue's flow control (absent: none).
			Limits *limitsJSON `json:"limits,omitempty"`
		}
		v := make([]queueJSON, 0, len(counts))
		for _, c := range counts {
			_, p := paused[c.Queue]
			v = append(v, queueJSON{c.Queue, p, c.Available, c.Running, c.WaitingExternal, c.Scheduled, c.Retryable, c.Completed,
				c.Cancelled, c.Failed, c.DLQ, byQueue[c.Queue]})
			delete(byQueue, c.Queue)
		}
		// A queue configured with a limit and no job yet is listed too.
		for _, l := range limits {
			if lj, ok := byQueue[l.Queue]; ok {
				_, p := paused[l.Queue]
				v = append(v, queueJSON{Queue: l.Queue, Paused: p, Limits: lj})
			}
		}
		slices.SortFunc(v, func(a, b queueJSON) int { return strings.Compare(a.Queue, b.Queue) })
		return a.output(stdout, v, func(tw *tabwriter.Writer) {
			fmt.Fprintln(tw, "QUEUE\tPAUSED\tAVAILABLE\tRUNNING\tWAITING\tSCHEDULED\tRETRYABLE\tCOMPLETED\tCANCELLED\tFAILED\tDLQ\tLIMITS")
			for _, q := range v {
				fmt.Fprintf(tw, "%s\t%v\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%s\n", q.Queue, q.Paused, q.Available, q.Running,
					q.WaitingExternal, q.Scheduled, q.Retryable, q.Completed, q.Cancelled, q.Failed, q.DLQ, q.Limits)
			}
		})
	})
}

const queuesUsage = `usage:
  awa queues list [-queue Q]    each queue's jobs by state, whether it is paused, and its limits
  awa queues pause QUEUE        stop claiming the queue's jobs (running ones finish)
  awa queues resume QUEUE       claim them again, waking the workers at once
  awa queues drain QUEUE [-timeout D]   wait until no job is available, running or due (exit 5: timed out)
  awa queues configure QUEUE [-rate-limit N [-burst N]] [-max-depth N] [-concurrency-key PATH -concurrency-limit N]
                                set the queue's flow control; -rate-limit 0, -max-depth 0, -concurrency-key '' remove one
`

// limitsJSON is a queue's flow control as awa queues list and configure
// print it.
type limitsJSON struct {
	RatePerSecond    *float64       `json:"rate_per_second,omitempty"`
	Burst            *int           `json:"burst,omitempty"`
	MaxDepth         *int           `json:"max_depth,omitempty"`
	ConcurrencyKey   string         `json:"concurrency_key,omitempty"`
	ConcurrencyLimit *int           `json:"concurrency_limit,omitempty"`
	KeyLimits        map[string]int `json:"concurrency_limits,omitempty"`
}

func newLimitsJSON(l driver.QueueLimit) *limitsJSON {
	v := &limitsJSON{MaxDepth: l.MaxDepth}
	if r := l.RateLimit; r != nil {
		v.RatePerSecond, v.Burst = &r.PerSecond, &r.Burst
	}
	if c := l.Concurrency; c != nil {
		v.ConcurrencyKey, v.ConcurrencyLimit, v.KeyLimits = c.Key, &c.Limit, c.Limits
	}
	return v
}

// String is the table's LIMITS cell: "-" for none.
func (v *limitsJSON) String() string {
	if v == nil {
		return "-"
	}
	var parts []string
	if v.RatePerSecond != nil {
		parts = append(parts, fmt.Sprintf("rate %s/s burst %d", strconv.FormatFloat(*v.RatePerSecond, 'f', -1, 64), *v.Burst))
	}
	if v.MaxDepth != nil {
		parts = append(parts, fmt.Sprintf("max_depth %d", *v.MaxDepth))
	}
	if v.ConcurrencyKey != "" {
		s := fmt.Sprintf("%s limit %d", v.ConcurrencyKey, *v.ConcurrencyLimit)
		if len(v.KeyLimits) > 0 {
			s += fmt.Sprintf(" (%d keys own)", len(v.KeyLimits))
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, "; ")
}

// configureQueue is `awa queues configure`: the flags given set (or, at
// zero or empty, remove) a flow-control option; the others keep theirs.
func configureQueue(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	a := newAdminCmd("queues configure", "QUEUE [-rate-limit N [-burst N]] [-max-depth N] "+
		"[-concurrency-key PATH -concurrency-limit N] [-dsn DSN] [-schema NAME] [-json]", stderr)
	rate := a.fs.Float64("rate-limit", 0, "at most this many starts a second across the fleet (0: remove the limit)")
	burst := a.fs.Int("burst", 0, "with -rate-limit: starts allowed at once (default: the rate, rounded up)")
	depth := a.fs.Int("max-depth", 0, "inserts fail (AW060) past this many available jobs (0: remove the limit)")
	key := a.fs.String("concurrency-key", "", "args.<path> or metadata.<path>: the key whose running jobs are limited ('': remove)")
	limit := a.fs.Int("concurrency-limit", 0, "with -concurrency-key: running jobs per key across the fleet")
	pos, err := a.parse(args, 1)
	if err != nil {
		return err
	}
	set := map[string]bool{}
	a.fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	var opts driver.QueueOptions
	switch {
	case set["burst"] && (!set["rate-limit"] || *rate == 0):
		return usageErrorf("-burst needs a -rate-limit above 0")
	case set["concurrency-limit"] && (!set["concurrency-key"] || *key == ""):
		return usageErrorf("-concurrency-limit needs a -concurrency-key")
	case set["concurrency-key"] && *key != "" && !set["concurrency-limit"]:
		return usageErrorf("-concurrency-key needs a -concurrency-limit")
	case !set["rate-limit"] && !set["max-depth"] && !set["concurrency-key"]:
		return usageErrorf("give at least one of -rate-limit, -max-depth and -concurrency-key")
	}
	if set["rate-limit"] {
		opts.RateLimit = &driver.RateLimit{PerSecond: *rate, Burst: *burst}
	}
	if set["max-depth"] {
		opts.MaxDepth = depth
	}
	if set["concurrency-key"] {
		opts.Concurrency = &driver.Concurrency{Key: *key, Limit: *limit}
	}
	return withAdmin(ctx, a, func(d *driver.Driver, conn *pgx.Conn) error {
		if err := d.ConfigureQueue(ctx, conn, pos[0], opts); err != nil {
			return err
		}
		limits, err := d.QueueLimits(ctx, conn, pos[0])
		if err != nil {
			return err
		}
		v := struct {
			Queue  string      `json:"queue"`
			Limits *limitsJSON `json:"limits"`
		}{Queue: pos[0]}
		if len(limits) == 1 {
			v.Limits = newLimitsJSON(limits[0])
		}
		return a.output(stdout, v, func(tw *tabwriter.Writer) {
			fmt.Fprintf(tw, "queue %s limits: %s\n", v.Queue, v.Limits)
		})
	})
}

// errNotDrained is awa queues drain's timeout (exit 5).
var errNotDrained = errors.New("the queue still has work")

// withAdmin connects for a, runs f and closes the connection.
func withAdmin(ctx context.Context, a *adminCmd, f func(d *driver.Driver, conn *pgx.Conn) error) error {
	d, conn, err := a.connect(ctx)
	if err != nil {
		return err
	}
	defer conn.Close(context.Background())
	return f(d, conn)
}

// jobJSON is one job in the -json output of awa jobs list|show and dlq list.
type jobJSON struct {
	ID          int64           `json:"id"`
	State       string          `json:"state"`
	Queue       string          `json:"queue"`
	Kind        string          `json:"kind"`
	Priority    int             `json:"priority"`
	Attempt     int             `json:"attempt"`
	MaxAttempts int             `json:"max_attempts"`
	DLQ         bool            `json:"dlq"`
	CreatedAt   time.Time       `json:"created_at"`
	RunAt       time.Time       `json:"run_at"`
	ClaimedAt   *time.Time      `json:"claimed_at"`
	FinalizedAt *time.Time      `json:"finalized_at"`
	ExpiresAt   *time.Time      `json:"expires_at"`
	Tags        []string        `json:"tags"`
	Args        json.RawMessage `json:"args"`
	Metadata    json.RawMessage `json:"metadata"`
	Errors      json.RawMessage `json:"errors"`
	Progress    json.RawMessage `json:"progress"`
}

func listingJSON(j driver.JobListing) jobJSON {
	return jobJSON{ID: j.ID, State: string(j.State), Queue: j.Queue, Kind: j.Kind, Priority: j.Priority,
		Attempt: j.Attempt, MaxAttempts: j.MaxAttempts, DLQ: j.DLQ, CreatedAt: j.CreatedAt.UTC(), RunAt: j.RunAt.UTC(),
		ClaimedAt: j.ClaimedAt, FinalizedAt: j.FinalizedAt, ExpiresAt: j.ExpiresAt, Tags: append([]string{}, j.Tags...),
		Args: j.Args, Metadata: j.Metadata, Errors: j.Errors, Progress: j.Progress}
}

func timeOrDash(t *time.Time) string {
	if t == nil {
		return ""
	}
	return t.UTC().Format(time.RFC3339)
}

// jobFilter is the filter flags of awa jobs list, dlq list and the bulk
// forms of jobs cancel and retry.
type jobFilter struct {
	states, queue, kind, tag *string // states nil: no -state flag (awa dlq list)
}

func addJobFilter(fs *flag.FlagSet, withStates bool) *jobFilter {
	f := &jobFilter{queue: fs.String("queue", "", "only this queue"), kind: fs.String("kind", "", "only this kind"),
		tag: fs.String("tag", "", "only jobs holding this tag")}
	if withStates {
		f.states = fs.String("state", "", "only these states (comma-separated: available, scheduled, running, "+
			"waiting_external, retryable, completed, cancelled, failed)")
	}
	return f
}

// jobStates returns -state's states (nil when not given).
func (f *jobFilter) jobStates() []driver.JobState {
	var out []driver.JobState
	if f.states == nil {
		return nil
	}
	for _, st := range strings.Split(*f.states, ",") {
		if st = strings.TrimSpace(st); st != "" {
			out = append(out, driver.JobState(st))
		}
	}
	return out
}

// listCmd is `awa jobs list` (awa.list_jobs) and, dlqOnly, `awa dlq list`
// (awa.list_dlq_jobs, which reads the DLQ alone): one page, newest first;
// the footer (or -json's next) names the cursor of the next page.
func listCmd(ctx context.Context, name string, args []string, stdout, stderr io.Writer, dlqOnly bool) error {
	synopsis := "[-state S,...] [-queue Q] [-kind K] [-tag T] [-after ID] [-limit N] [-dsn DSN] [-schema NAME] [-json]"
	if dlqOnly {
		synopsis = strings.TrimPrefix(synopsis, "[-state S,...] ")
	}
	a := newAdminCmd(name, synopsis, stderr)
	f := addJobFilter(a.fs, !dlqOnly)
	after := a.fs.Int64("after", 0, "the page after the one that ended with this job id")
	limit := a.fs.Int("limit", 50, "page size (1..1000)")
	if _, err := a.parse(args, 0); err != nil {
		return err
	}
	if *limit < 1 || *limit > 1000 { // the driver would read 0 as its default
		return usageErrorf("-limit must be between 1 and 1000, got %d", *limit)
	}
	return withAdmin(ctx, a, func(d *driver.Driver, conn *pgx.Conn) error {
		var page []driver.JobListing
		var next int64
		var err error
		if dlqOnly {
			page, next, err = d.ListDLQJobs(ctx, conn, driver.ListDLQJobsParams{Queue: *f.queue, Kind: *f.kind,
				Tag: *f.tag, After: *after, Limit: *limit})
		} else {
			page, next, err = d.ListJobs(ctx, conn, driver.ListJobsParams{States: f.jobStates(), Queue: *f.queue,
				Kind: *f.kind, Tag: *f.tag, After: *after, Limit: *limit})
		}
		if err != nil {
			return err
		}
		v := struct {
			Jobs []jobJSON `json:"jobs"`
			Next int64     `json:"next"`
		}{Jobs: listingsJSON(page), Next: next}
		return a.output(stdout, v, func(tw *tabwriter.Writer) {
			writeJobsTable(tw, v.Jobs)
			if next != 0 {
				fmt.Fprintf(tw, "next page: -after %d\n", next)
			}
		})
	})
}

func listingsJSON(page []driver.JobListing) []jobJSON {
	out := make([]jobJSON, len(page))
	for i, j := range page {
		out[i] = listingJSON(j)
	}
	return out
}

// writeJobsTable writes one line per job: awa jobs list, dlq list and a
// bulk -dry-run.
func writeJobsTable(tw *tabwriter.Writer, jobs []jobJSON) {
	fmt.Fprintln(tw, "JOB\tSTATE\tQUEUE\tKIND\tPRI\tATTEMPT\tCREATED\tFINALIZED")
	for _, j := range jobs {
		state := j.State
		if j.DLQ {
			state += " (dlq)"
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%d\t%d/%d\t%s\t%s\n", j.ID, state, j.Queue, j.Kind, j.Priority, j.Attempt,
			j.MaxAttempts, j.CreatedAt.Format(time.RFC3339), orDash(timeOrDash(j.FinalizedAt)))
	}
}
