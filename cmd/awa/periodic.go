package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"text/tabwriter"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/awa-queue/awa/driver"
)

// cmdPeriodic is `awa periodic list|pause|resume|delete` (awa.list_periodic_jobs,
// pause_periodic_job, resume_periodic_job, delete_periodic_job).
func cmdPeriodic(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	verb := ""
	if len(args) > 0 {
		verb, args = args[0], args[1:]
	}
	var act func(d *driver.Driver, conn *pgx.Conn, name string) (driver.PeriodicJobInfo, error)
	switch verb {
	case "list":
		a := newAdminCmd("periodic list", "[-dsn DSN] [-schema NAME] [-json]", stderr)
		if _, err := a.parse(args, 0); err != nil {
			return err
		}
		return withAdmin(ctx, a, func(d *driver.Driver, conn *pgx.Conn) error {
			ps, err := d.PeriodicJobs(ctx, conn)
			if err != nil {
				return err
			}
			return writePeriodic(a, stdout, ps, false)
		})
	case "pause":
		act = func(d *driver.Driver, conn *pgx.Conn, name string) (driver.PeriodicJobInfo, error) {
			return d.PausePeriodicJob(ctx, conn, name)
		}
	case "resume":
		act = func(d *driver.Driver, conn *pgx.Conn, name string) (driver.PeriodicJobInfo, error) {
			return d.ResumePeriodicJob(ctx, conn, name)
		}
	case "delete":
		act = func(d *driver.Driver, conn *pgx.Conn, name string) (driver.PeriodicJobInfo, error) {
			return d.DeletePeriodicJob(ctx, conn, name)
		}
	default:
		fmt.Fprint(stderr, periodicUsage)
		return usageErrorf("want: awa periodic list|pause|resume|delete")
	}
	a := newAdminCmd("periodic "+verb, "NAME [-dsn DSN] [-schema NAME] [-json]", stderr)
	pos, err := a.parse(args, 1)
	if err != nil {
		return err
	}
	return withAdmin(ctx, a, func(d *driver.Driver, conn *pgx.Conn) error {
		p, err := act(d, conn, pos[0])
		if err != nil {
			return err
		}
		return writePeriodic(a, stdout, []driver.PeriodicJobInfo{p}, true)
	})
}

const periodicUsage = `usage:
  awa periodic list            every periodic job: schedule, zone, kind, queue, pause, next and last fire
  awa periodic pause NAME      no fire from now on (the times that pass while paused never fire)
  awa periodic resume NAME     schedule it again from now (also clears a rejected schedule's error)
  awa periodic delete NAME     delete it (its jobs stay; one a client's Config declares comes back
                               at the next leader start: remove it there too)
`

// periodicJSON is one periodic job in awa periodic's -json output.
type periodicJSON struct {
	Name        string          `json:"name"`
	Schedule    string          `json:"schedule"`
	TimeZone    string          `json:"timezone"`
	Kind        string          `json:"kind"`
	Queue       string          `json:"queue"`
	Args        json.RawMessage `json:"args"`
	Opts        json.RawMessage `json:"opts"`
	Missed      string          `json:"missed"`
	Paused      bool            `json:"paused"`
	Revision    int64           `json:"revision"`
	NextRunAt   *time.Time      `json:"next_run_at"`
	LastFiredAt *time.Time      `json:"last_fired_at"`
	LastJobID   *int64          `json:"last_job_id"`
	Error       string          `json:"error,omitempty"`
	CreatedAt   time.Time       `json:"created_at"`
	UpdatedAt   time.Time       `json:"updated_at"`
}

// writePeriodic prints periodic jobs: a table, or JSON (one object when one
// is true: the job a pause, resume or delete acted on; else an array).
func writePeriodic(a *adminCmd, w io.Writer, ps []driver.PeriodicJobInfo, one bool) error {
	v := make([]periodicJSON, len(ps))
	for i, p := range ps {
		var opts struct {
			Queue string `json:"queue"`
		}
		_ = json.Unmarshal(p.Opts, &opts) // the substrate validated them; a queue absent is the default one
		if opts.Queue == "" {
			opts.Queue = "default"
		}
		v[i] = periodicJSON{Name: p.Name, Schedule: p.Schedule, TimeZone: p.TimeZone, Kind: p.Kind, Queue: opts.Queue,
			Args: p.Args, Opts: p.Opts, Missed: string(p.Missed), Paused: p.Paused, Revision: p.Revision,
			NextRunAt: optTime(p.NextRunAt), LastFiredAt: optTime(p.LastFiredAt), Error: p.Error,
			CreatedAt: p.CreatedAt.UTC(), UpdatedAt: p.UpdatedAt.UTC()}
		if p.LastJobID != 0 {
			v[i].LastJobID = &ps[i].LastJobID
		}
	}
	var out any = v
	if one {
		out = v[0]
	}
	return a.output(w, out, func(tw *tabwriter.Writer) {
		fmt.Fprintln(tw, "NAME\tSCHEDULE\tZONE\tKIND\tQUEUE\tPAUSED\tNEXT\tLAST FIRED\tLAST JOB\tERROR")
		for _, p := range v {
			last := ""
			if p.LastJobID != nil {
				last = strconv.FormatInt(*p.LastJobID, 10)
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%v\t%s\t%s\t%s\t%s\n", p.Name, p.Schedule, p.TimeZone, p.Kind, p.Queue,
				p.Paused, orDash(timeOrDash(p.NextRunAt)), orDash(timeOrDash(p.LastFiredAt)), orDash(last), orDash(p.Error))
		}
	})
}

// optTime is t in UTC, nil when zero.
func optTime(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	t = t.UTC()
	return &t
}
