// Command awa installs the awa substrate, runs its demo and works the demo's
// job kinds.
//
//	awa migrate up|down|status [-dsn DSN]
//	awa demo [-dsn DSN] [-jobs N] [-workers W] [-duration D] [-reset] [-v]
//	awa work [-dsn DSN] [-queues default,mail] [-workers W] [-v]
//	awa storage status [-dsn DSN] [-schema NAME] [-json] [-all]
//	awa jobs list|show|cancel|retry|erase [flags]
//	awa dlq list|retry|purge [flags]
//	awa queues list|pause|resume|drain [flags]
//	awa periodic list|pause|resume|delete [flags]
//	awa ui [-dsn DSN] [-addr HOST:PORT] [-read-only] [flags]
//
// The DSN defaults to $DATABASE_URL. A prebuilt binary cannot load a user's
// Go handlers: services run workers from their own binary (see
// examples/worker). The benchmarks live in bench/, a module of their own.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"

	"github.com/awa-queue/awa/driver"
)

const usage = `awa: a Postgres-native job queue

usage:
  awa migrate up|down|status [-dsn DSN]
        install or upgrade schema awa (the embedded goose migrations, recorded
        in awa's own table awa_goose_db_version, beside an application's
        goose_db_version), remove it (down to version 0), or show the migration
        status; up and status print the installed awa.substrate_version(). Up
        creates the roles awa_producer, awa_worker and awa_admin when it may
        create roles (docs/privileges.md). It works directly and through a
        transaction-mode pooler (it prepares no statement, whatever the DSN's
        default_query_exec_mode; docs/poolers.md)
  awa demo [-dsn DSN] [-jobs N] [-workers W] [-duration D] [-reset] [-v]
        install the schema, enqueue a mix of jobs from SQL and from Go, work
        them with live progress and print a summary
  awa work [-dsn DSN] [-queues default,mail] [-workers W] [-v]
        work the demo's job kinds (and only those) until SIGINT/SIGTERM (first
        signal: stop gracefully; second: cancel running jobs); a prebuilt
        binary cannot load your Go handlers: run workers from your own binary
        (driver.NewClient; see examples/worker)
  awa storage status [-dsn DSN] [-schema NAME] [-json] [-all]
        why space has not come back: each ring slot's role, rows and size, and
        what prune would do with it now (reclaimable, carried, or blocked,
        naming the job, queue and cause); -json for scripts
  awa jobs list [-state S,..] [-queue Q] [-kind K] [-tag T] [-after ID] | show ID
        one page of jobs, live and archived, newest first (keyset paging:
        -after the last id); one job whole
  awa jobs cancel ID [-reason TEXT] | retry ID [-at TIME] | erase ID [-errors]
        cancel a job in any unfinished state; run a scheduled, retryable,
        failed or cancelled job again (from attempt 0 when it had ended);
        erase a job's args and metadata wherever they live (docs/storage.md,
        "Erasure")
  awa jobs cancel|retry [-state S,..] [-queue Q] [-kind K] [-tag T] [-limit N] [-dry-run]
        with filters instead of an id (at least one): up to -limit jobs of
        the filter (default 1000, at most 10000), newest first, each as the
        one-job form, in one transaction; a row per job (applied, or skipped
        and why) and whether the limit was reached (run again for more);
        -dry-run lists the jobs it would act on and changes nothing
  awa dlq list [-queue Q] [-kind K] [-tag T] [-after ID] | retry ID [-at TIME]
  awa dlq purge [-queue Q] [-before T] [-id N,...]
        one page of the DLQ's jobs, newest first (read from the DLQ alone);
        run a DLQ job again; delete DLQ jobs by filter
  awa queues list [-queue Q] | pause QUEUE | resume QUEUE
        each queue's jobs by state, whether it is paused and its limits; pause a queue
        (its jobs are not claimed, running ones finish); resume it (its
        workers wake at once)
  awa queues drain QUEUE [-timeout D]
        wait until the queue has no job available, running or due (for
        deploys and tests); exit 5 when it still has some at the timeout
  awa queues configure QUEUE [-rate-limit N [-burst N]] [-max-depth N]
                        [-concurrency-key PATH -concurrency-limit N]
        set a queue's flow control across the fleet (docs/storage.md, "Flow
        control"): starts per second, depth for producers, running jobs per
        key; -rate-limit 0, -max-depth 0 and -concurrency-key '' remove one
  awa periodic list | pause NAME | resume NAME | delete NAME
        the periodic jobs (schedule, zone, kind, queue, pause, next and last
        fire); pause one (no fire from now on), resume it (scheduled again
        from now), delete it (its jobs stay)
  awa ui [-dsn DSN] [-addr 127.0.0.1:8080] [-prefix /PATH] [-read-only] [-user NAME] [-sample D]
        the web admin UI: queues (depth, rates, pause), jobs (filters, keyset
        pages, one job whole), the DLQ, storage status and periodic schedules;
        retry, cancel, pause and resume behind a confirmation, CSRF-protected;
        basic auth (-user, $AWA_UI_PASSWORD) or a bearer token ($AWA_UI_TOKEN);
        -read-only shows and never acts (docs/ui.md)

Operator commands (jobs, dlq, queues, periodic) take -dsn, -schema and -json.
Exit status: 0 done, 1 the database failed, 2 bad usage, 3 no such job (or
periodic job), 4 the job's state does not allow it, 5 not drained in time.

The DSN defaults to $DATABASE_URL. "awa COMMAND -h" lists a command's flags.
`

func main() {
	os.Exit(run(context.Background(), os.Args[1:], os.Stdout, os.Stderr))
}

// usageError is a command-line mistake: the exit status is 2. An empty
// message means the flag package already reported it.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usageErrorf(format string, a ...any) error { return &usageError{msg: fmt.Sprintf(format, a...)} }

// run runs the command in args and returns the exit status.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	var err error
	switch args[0] {
	case "migrate":
		err = cmdMigrate(ctx, args[1:], stdout, stderr)
	case "demo":
		err = cmdDemo(ctx, args[1:], stdout, stderr)
	case "work":
		err = cmdWork(ctx, args[1:], stdout, stderr)
	case "storage":
		err = cmdStorage(ctx, args[1:], stdout, stderr)
	case "jobs":
		err = cmdJobs(ctx, args[1:], stdout, stderr)
	case "dlq":
		err = cmdDLQ(ctx, args[1:], stdout, stderr)
	case "queues":
		err = cmdQueues(ctx, args[1:], stdout, stderr)
	case "periodic":
		err = cmdPeriodic(ctx, args[1:], stdout, stderr)
	case "ui":
		err = cmdUI(ctx, args[1:], stdout, stderr)
	case "help", "-h", "-help", "--help":
		fmt.Fprint(stdout, usage)
		return 0
	default:
		fmt.Fprintf(stderr, "awa: unknown command %q\n\n%s", args[0], usage)
		return 2
	}
	var usageErr *usageError
	switch {
	case err == nil:
		return 0
	case errors.Is(err, flag.ErrHelp):
		return 0
	case errors.As(err, &usageErr):
		if usageErr.msg != "" {
			fmt.Fprintf(stderr, "awa %s: %v\n", args[0], err)
		}
		return 2
	case errors.Is(err, driver.ErrInvalidQueue), errors.Is(err, driver.ErrInvalidArgument),
		errors.Is(err, driver.ErrInvalidKind), errors.Is(err, driver.ErrInvalidTags),
		errors.Is(err, driver.ErrInvalidPeriodicJob), errors.Is(err, driver.ErrUnknownOption),
		errors.Is(err, driver.ErrInvalidOption), errors.Is(err, driver.ErrOptionOutOfRange):
		fmt.Fprintf(stderr, "awa %s: %v\n", args[0], err)
		return 2
	case errors.Is(err, errNotDrained):
		return exitNotDrained
	case errors.Is(err, driver.ErrJobNotFound), errors.Is(err, driver.ErrPeriodicJobNotFound):
		fmt.Fprintf(stderr, "awa %s: %v\n", args[0], err)
		return exitNotFound
	case errors.Is(err, driver.ErrInvalidJobState):
		fmt.Fprintf(stderr, "awa %s: %v\n", args[0], err)
		return exitInvalidState
	default:
		fmt.Fprintf(stderr, "awa %s: %v\n", args[0], err)
		return 1
	}
}

// newFlagSet returns a flag set for a subcommand with the common -dsn flag.
func newFlagSet(name, synopsis string, stderr io.Writer) (*flag.FlagSet, *string) {
	fs := flag.NewFlagSet("awa "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: awa %s %s\n", name, synopsis)
		fs.PrintDefaults()
	}
	dsn := fs.String("dsn", "", "PostgreSQL connection string (default $DATABASE_URL)")
	return fs, dsn
}

// withNote makes fs's usage text end with note.
func withNote(fs *flag.FlagSet, note string, stderr io.Writer) {
	usage := fs.Usage
	fs.Usage = func() {
		usage()
		fmt.Fprint(stderr, note)
	}
}

// parseFlags parses args, allowing flags before and after the positional
// arguments (awa migrate -dsn X up, awa migrate up -dsn X).
func parseFlags(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, err
			}
			return nil, &usageError{} // the flag package printed the error and the usage
		}
		if fs.NArg() == 0 {
			return pos, nil
		}
		pos = append(pos, fs.Arg(0))
		args = fs.Args()[1:]
	}
}

// parseFlagsOnly parses a command that takes flags and no arguments, then
// resolves its DSN (resolveDSN).
func parseFlagsOnly(fs *flag.FlagSet, args []string, dsn *string) error {
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usageErrorf("unexpected arguments %q", pos)
	}
	return resolveDSN(dsn)
}

// resolveDSN fills *dsn from $DATABASE_URL when -dsn was not given.
func resolveDSN(dsn *string) error {
	if strings.TrimSpace(*dsn) == "" {
		*dsn = os.Getenv("DATABASE_URL")
	}
	if strings.TrimSpace(*dsn) == "" {
		return usageErrorf("no database: pass -dsn or set DATABASE_URL")
	}
	return nil
}

// newLogger logs text to w: warnings and errors, or everything from info up
// when verbose.
func newLogger(w io.Writer, verbose bool) *slog.Logger {
	level := slog.LevelWarn
	if verbose {
		level = slog.LevelInfo
	}
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: level}))
}
