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

// storageNote is what `awa storage status -h` says after the flags.
const storageNote = `
One row per ring slot: its role (current; next, the sealed slot the next
rotation needs; sealed), when it was sealed, its rows and size, and what prune
would do with it now: reclaimable, carried (prune moves its available jobs, or
in the next slot its running jobs and leases, forward), locked (another
session holds one of its tables: the pid is named) or blocked (prune skips it:
the job, queue and cause are named). Empty sealed slots are left out
unless -all. Exit status: 0 shown (blocked slots included), 1 the database
failed, 2 bad usage. docs/storage.md, "Storage status", explains each status.
`

// cmdStorage is `awa storage status`.
func cmdStorage(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	a := &adminCmd{}
	a.fs, a.dsn = newFlagSet("storage", "status [-dsn DSN] [-schema NAME] [-json] [-all] [-count-limit N]", stderr)
	withNote(a.fs, storageNote, stderr)
	a.schema = a.fs.String("schema", driver.DefaultSchema, "schema awa is installed in (awa migrate -schema)")
	a.json = a.fs.Bool("json", false, "print every slot as JSON, for scripts")
	all := a.fs.Bool("all", false, "also list empty sealed slots")
	limit := a.fs.Int("count-limit", 10000, "count each table of a slot up to this many rows (1..1000000)")
	pos, err := parseFlags(a.fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 || pos[0] != "status" {
		a.fs.Usage()
		return usageErrorf("want: awa storage status")
	}
	if *limit < 1 || *limit > 1000000 {
		return usageErrorf("-count-limit must be between 1 and 1000000, got %d", *limit)
	}
	if err := resolveDSN(a.dsn); err != nil {
		return err
	}
	return withAdmin(ctx, a, func(d *driver.Driver, conn *pgx.Conn) error {
		slots, err := d.StorageStatus(ctx, conn, *limit)
		if err != nil {
			return err
		}
		if *a.json {
			return writeStorageJSON(stdout, slots)
		}
		return writeStorageTable(stdout, slots, *all)
	})
}

// storageSlotJSON is one slot in `awa storage status -json`.
type storageSlotJSON struct {
	Ring       string     `json:"ring"`
	Slot       int        `json:"slot"`
	Role       string     `json:"role"`
	Generation *int64     `json:"generation"`
	SealedAt   *time.Time `json:"sealed_at"`
	Rows       int64      `json:"rows"`
	RowsCapped bool       `json:"rows_capped"`
	Bytes      int64      `json:"bytes"`
	Status     string     `json:"status"`
	Cause      string     `json:"cause,omitempty"`
	JobID      *int64     `json:"job_id,omitempty"`
	Queue      string     `json:"queue,omitempty"`
	Detail     string     `json:"detail,omitempty"`
}

func writeStorageJSON(w io.Writer, slots []driver.StorageSlot) error {
	out := make([]storageSlotJSON, len(slots))
	for i, s := range slots {
		out[i] = storageSlotJSON{Ring: s.Ring, Slot: s.Slot, Role: s.Role, Generation: s.Generation, Rows: s.Rows,
			RowsCapped: s.RowsCapped, Bytes: s.Bytes, Status: s.Status, Cause: s.Cause, JobID: s.JobID,
			Queue: s.Queue, Detail: s.Detail}
		if !s.SealedAt.IsZero() {
			at := s.SealedAt.UTC()
			out[i].SealedAt = &at
		}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

func writeStorageTable(w io.Writer, slots []driver.StorageSlot, all bool) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "RING\tSLOT\tROLE\tSEALED\tROWS\tSIZE\tSTATUS\tJOB\tQUEUE\tWHY")
	var total int64
	for _, s := range slots {
		total += s.Bytes
		if s.Status == "empty" && s.Role == "sealed" && !all {
			continue
		}
		sealed, rows, job := "-", strconv.FormatInt(s.Rows, 10), "-"
		if !s.SealedAt.IsZero() {
			sealed = time.Since(s.SealedAt).Round(time.Second).String() + " ago"
		}
		if s.RowsCapped {
			rows = ">=" + rows
		}
		if s.JobID != nil {
			job = strconv.FormatInt(*s.JobID, 10)
		}
		why := s.Detail
		if s.Cause != "" {
			why = s.Cause + ": " + why
		}
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", s.Ring, s.Slot, s.Role, sealed, rows,
			byteSize(s.Bytes), s.Status, job, orDash(s.Queue), orDash(why))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err := fmt.Fprintf(w, "rings on disk: %s; prune records no outcome: see the maintenance leader's ring events for the last one\n", byteSize(total))
	return err
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// byteSize formats n bytes in binary units, as pg_size_pretty does.
func byteSize(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	v, i := float64(n), -1
	for v >= unit && i < 3 {
		v /= unit
		i++
	}
	return fmt.Sprintf("%.1f %ciB", v, "KMGT"[i])
}
