package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/awa-queue/awa/driver"
)

// bulkNote is what awa jobs cancel|retry -h says after the flags.
const bulkNote = `
With a job id: that job. With filters instead (-queue, -kind, -tag, -state;
they combine with AND): up to -limit jobs of the filter, newest first, each
as the one-job form (awa.bulk_cancel_jobs, awa.bulk_retry_jobs), one row per
job (applied, or skipped with why), all in one transaction. Without -limit,
at most 1000: when the limit is reached more jobs may match, and the output
says so; run the command again. -dry-run lists the jobs it would act on
(awa.list_jobs, the same filter and limit) and changes nothing.
`

// Default states of the bulk forms, and the states each accepts, as
// awa.bulk_cancel_jobs and awa.bulk_retry_jobs default and check them (a
// -dry-run lists through awa.list_jobs, which has no such rule).
var (
	bulkCancelStates = []driver.JobState{driver.StateAvailable, driver.StateScheduled, driver.StateRunning,
		driver.StateRetryable, driver.StateWaitingExternal}
	bulkRetryStates        = []driver.JobState{driver.StateFailed, driver.StateCancelled, driver.StateScheduled, driver.StateRetryable}
	bulkRetryDefaultStates = []driver.JobState{driver.StateFailed, driver.StateCancelled}
)

// bulkDefaultLimit is what a bulk form acts on at most without -limit (the
// SQL functions' default).
const bulkDefaultLimit = 1000

// jobsActCmd is `awa jobs cancel|retry`: one job by id, or (bulk) the jobs of
// a filter.
func jobsActCmd(ctx context.Context, verb string, args []string, stdout, stderr io.Writer) error {
	a := newAdminCmd("jobs "+verb, "ID | -queue Q -kind K -tag T -state S,... [-limit N] [-dry-run] "+
		"[-reason TEXT | -at TIME] [-dsn DSN] [-schema NAME] [-json]", stderr)
	withNote(a.fs, bulkNote, stderr)
	var reason, at *string
	if verb == "cancel" {
		reason = a.fs.String("reason", "", "why (appended to each job's errors; default: cancelled by operator)")
	} else {
		at = a.fs.String("at", "", "run at this RFC 3339 time or after this duration (default: now)")
	}
	f := addJobFilter(a.fs, true)
	limit := a.fs.Int("limit", bulkDefaultLimit, "with filters: act on at most this many jobs (1..10000)")
	dryRun := a.fs.Bool("dry-run", false, "with filters: list the jobs it would act on, change nothing")
	pos, err := parseFlags(a.fs, args)
	if err != nil {
		return err
	}
	given := map[string]bool{}
	a.fs.Visit(func(fl *flag.Flag) { given[fl.Name] = true })
	bulk := given["queue"] || given["kind"] || given["tag"] || given["state"]
	switch {
	case len(pos) > 1:
		return usageErrorf("want one job id, got %q", pos)
	case len(pos) == 1 && (bulk || given["limit"] || given["dry-run"]):
		return usageErrorf("give a job id or filters (-queue, -kind, -tag, -state), not both")
	case len(pos) == 0 && !bulk:
		a.fs.Usage()
		return usageErrorf("give a job id, or at least one filter: -queue, -kind, -tag, -state")
	case bulk && (*limit < 1 || *limit > 10000):
		return usageErrorf("-limit must be between 1 and 10000, got %d", *limit)
	}
	var runAt time.Time
	if at != nil {
		if runAt, err = parseAt(*at); err != nil {
			return err
		}
	}
	if err := resolveDSN(a.dsn); err != nil {
		return err
	}
	if !bulk {
		id, err := jobID(pos[0])
		if err != nil {
			return err
		}
		return withAdmin(ctx, a, func(d *driver.Driver, conn *pgx.Conn) error {
			if verb == "retry" {
				j, err := d.RetryJob(ctx, conn, id, runAt)
				if err != nil {
					return err
				}
				return writeInserted(a, stdout, j)
			}
			r, err := d.CancelJob(ctx, conn, id, *reason)
			if err != nil {
				return err
			}
			v := map[string]any{"id": r.JobID, "outcome": string(r.Outcome), "state": string(r.State)}
			return a.output(stdout, v, func(tw *tabwriter.Writer) {
				fmt.Fprintln(tw, "JOB\tOUTCOME\tSTATE")
				fmt.Fprintf(tw, "%d\t%s\t%s\n", r.JobID, r.Outcome, orDash(string(r.State)))
			})
		})
	}

	filter := driver.BulkFilter{States: f.jobStates(), Queue: *f.queue, Kind: *f.kind, Tag: *f.tag, Limit: *limit}
	accepted, defaults := bulkCancelStates, bulkCancelStates
	if verb == "retry" {
		accepted, defaults = bulkRetryStates, bulkRetryDefaultStates
	}
	for _, s := range filter.States {
		if !slices.Contains(accepted, s) {
			return usageErrorf("-state %s: awa jobs %s acts on jobs in states %s only", s, verb, joinStates(accepted))
		}
	}
	return withAdmin(ctx, a, func(d *driver.Driver, conn *pgx.Conn) error {
		if *dryRun {
			if len(filter.States) == 0 {
				filter.States = defaults
			}
			return bulkDryRun(ctx, a, d, conn, verb, filter, stdout)
		}
		var rs []driver.BulkResult
		var err error
		if verb == "retry" {
			rs, err = d.BulkRetryJobs(ctx, conn, filter, runAt)
		} else {
			rs, err = d.BulkCancelJobs(ctx, conn, filter, *reason)
		}
		if err != nil {
			return err
		}
		return writeBulk(a, stdout, verb, filter.Limit, rs)
	})
}

func joinStates(states []driver.JobState) string {
	s := make([]string, len(states))
	for i, st := range states {
		s[i] = string(st)
	}
	return strings.Join(s, ", ")
}

// bulkResultJSON is one job a bulk form acted on.
type bulkResultJSON struct {
	ID      int64  `json:"id"`
	Outcome string `json:"outcome"` // applied or skipped
	State   string `json:"state,omitempty"`
	Detail  string `json:"detail,omitempty"`
}

// writeBulk prints what a bulk form did: a row per job, then the totals and
// whether the limit was reached (more jobs may match).
func writeBulk(a *adminCmd, w io.Writer, verb string, limit int, rs []driver.BulkResult) error {
	v := struct {
		Action       string           `json:"action"`
		Limit        int              `json:"limit"`
		LimitReached bool             `json:"limit_reached"`
		Applied      int              `json:"applied"`
		Skipped      int              `json:"skipped"`
		Jobs         []bulkResultJSON `json:"jobs"`
	}{Action: verb, Limit: limit, LimitReached: len(rs) >= limit, Jobs: []bulkResultJSON{}}
	for _, r := range rs {
		o := "skipped"
		if r.Applied {
			o = "applied"
			v.Applied++
		} else {
			v.Skipped++
		}
		v.Jobs = append(v.Jobs, bulkResultJSON{ID: r.JobID, Outcome: o, State: string(r.State), Detail: r.Detail})
	}
	return a.output(w, v, func(tw *tabwriter.Writer) {
		fmt.Fprintln(tw, "JOB\tOUTCOME\tSTATE\tDETAIL")
		for _, j := range v.Jobs {
			fmt.Fprintf(tw, "%d\t%s\t%s\t%s\n", j.ID, j.Outcome, orDash(j.State), orDash(j.Detail))
		}
		fmt.Fprintf(tw, "%s: %d applied, %d skipped\n", verb, v.Applied, v.Skipped)
		if v.LimitReached {
			fmt.Fprintf(tw, "the limit (%d) was reached: more jobs may match; run the command again\n", limit)
		}
	})
}

// bulkDryRun lists the jobs of f as the bulk form selects them
// (awa._bulk_job_ids: pages of awa.list_jobs, newest first, up to the limit).
func bulkDryRun(ctx context.Context, a *adminCmd, d *driver.Driver, conn *pgx.Conn, verb string, f driver.BulkFilter,
	w io.Writer) error {
	p := driver.ListJobsParams{States: f.States, Queue: f.Queue, Kind: f.Kind, Tag: f.Tag}
	var jobs []jobJSON
	for len(jobs) < f.Limit {
		p.Limit = min(f.Limit-len(jobs), 1000)
		page, next, err := d.ListJobs(ctx, conn, p)
		if err != nil {
			return err
		}
		jobs = append(jobs, listingsJSON(page)...)
		if next == 0 {
			break
		}
		p.After = next
	}
	v := struct {
		Action       string    `json:"action"`
		DryRun       bool      `json:"dry_run"`
		Limit        int       `json:"limit"`
		LimitReached bool      `json:"limit_reached"`
		Jobs         []jobJSON `json:"jobs"`
	}{Action: verb, DryRun: true, Limit: f.Limit, LimitReached: len(jobs) >= f.Limit, Jobs: append([]jobJSON{}, jobs...)}
	return a.output(w, v, func(tw *tabwriter.Writer) {
		writeJobsTable(tw, jobs)
		fmt.Fprintf(tw, "dry run: %s would act on these %d jobs (states %s); nothing changed\n", verb, len(jobs),
			joinStates(f.States))
		if v.LimitReached {
			fmt.Fprintf(tw, "the limit (%d) was reached: more jobs may match\n", f.Limit)
		}
	})
}
