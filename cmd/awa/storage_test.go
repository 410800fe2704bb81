package main

import (
	"bytes"
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/awa-queue/awa/internal/pgtest"
)

// TestStorageStatusNamesWhatBlocksPrune: a running job drawn from a sealed
// queue slot blocks that slot; `awa storage status` shows it blocked, naming
// the job, its queue and the cause, in the table and in -json, and exits 0.
func TestStorageStatusNamesWhatBlocksPrune(t *testing.T) {
	t.Parallel()
	dsn := pgtest.NewDBDSN(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	var jobID int64
	if err := conn.QueryRow(ctx, `SELECT id FROM awa.insert_job('storage.k', '{}', '{"queue": "run_q"}')`).Scan(&jobID); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(ctx, `SELECT * FROM awa.claim_ready_runtime('run_q', 1)`); err != nil {
		t.Fatal(err)
	}
	var outcome string
	if err := conn.QueryRow(ctx, `SELECT outcome FROM awa.rotate_ring('queue')`).Scan(&outcome); err != nil || outcome != "rotated" {
		t.Fatalf("rotate the queue ring: %q, %v", outcome, err)
	}

	var out, errb bytes.Buffer
	if code := run(ctx, []string{"storage", "status", "-dsn", dsn}, &out, &errb); code != 0 {
		t.Fatalf("awa storage status: exit %d: %s", code, errb.String())
	}
	var line string
	for _, l := range strings.Split(out.String(), "\n") {
		if f := strings.Fields(l); len(f) > 2 && f[0] == "queue" && f[1] == "0" {
			line = l
		}
	}
	for _, want := range []string{"blocked", strconv.FormatInt(jobID, 10), "run_q", "running: ready slot 0 has a running job"} {
		if !strings.Contains(line, want) {
			t.Errorf("awa storage status: queue slot 0 line %q does not contain %q; output:\n%s", line, want, out.String())
		}
	}
	if strings.Contains(out.String(), "queue  5 ") {
		t.Errorf("awa storage status lists an empty sealed slot without -all:\n%s", out.String())
	}

	out.Reset()
	if code := run(ctx, []string{"storage", "-dsn", dsn, "status", "-json"}, &out, &errb); code != 0 {
		t.Fatalf("awa storage status -json: exit %d: %s", code, errb.String())
	}
	var slots []storageSlotJSON
	if err := json.Unmarshal(out.Bytes(), &slots); err != nil {
		t.Fatalf("awa storage status -json: %v\n%s", err, out.String())
	}
	if len(slots) != 35 {
		t.Errorf("awa storage status -json: %d slots, want 35 (16 queue, 8 claim, 8 lease, 2 cursor, the archive's DEFAULT)",
			len(slots))
	}
	var found bool
	for _, s := range slots {
		if s.Ring == "queue" && s.Slot == 0 {
			found = true
			if s.Status != "blocked" || s.Cause != "running" || s.JobID == nil || *s.JobID != jobID || s.Queue != "run_q" ||
				s.Role != "sealed" || s.SealedAt == nil || s.Rows != 1 || s.Bytes <= 0 {
				t.Errorf("awa storage status -json: queue slot 0 is %+v; want blocked by running job %d of run_q", s, jobID)
			}
		}
	}
	if !found {
		t.Errorf("awa storage status -json has no queue slot 0:\n%s", out.String())
	}
}

// TestStorageStatusSchemaAndExitCodes: -schema reads another install; bad
// usage exits 2, a database error (no install in the schema) exits 1.
func TestStorageStatusSchemaAndExitCodes(t *testing.T) {
	t.Parallel()
	dsn := pgtest.NewDBDSN(t)
	pgtest.InstallSchema(t, dsn, "jobs_b")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()

	var out, errb bytes.Buffer
	if code := run(ctx, []string{"storage", "status", "-dsn", dsn, "-schema", "jobs_b", "-json"}, &out, &errb); code != 0 {
		t.Fatalf("awa storage status -schema jobs_b: exit %d: %s", code, errb.String())
	}
	var slots []storageSlotJSON
	if err := json.Unmarshal(out.Bytes(), &slots); err != nil {
		t.Fatalf("awa storage status -schema jobs_b -json: %v", err)
	}
	current := 0
	for _, s := range slots {
		if s.Status == "current" {
			current++
		} else if s.Status != "empty" {
			t.Errorf("a fresh install shows slot %s %d as %s, want empty", s.Ring, s.Slot, s.Status)
		}
	}
	if len(slots) != 35 || current != 4 {
		t.Errorf("awa storage status -schema jobs_b: %d slots, %d current; want 35 (the archive's DEFAULT too) and 4",
			len(slots), current)
	}

	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"storage", "-dsn", dsn}, 2, "want: awa storage status"},
		{[]string{"storage", "status", "-dsn", dsn, "-count-limit", "0"}, 2, "-count-limit must be between 1 and 1000000"},
		{[]string{"storage", "status", "-dsn", dsn, "-schema", "Jobs"}, 2, "invalid awa schema name"},
		{[]string{"storage", "status", "-dsn", dsn, "-schema", "jobs_c"}, 1, "storage status"},
	} {
		out.Reset()
		errb.Reset()
		if code := run(ctx, c.args, &out, &errb); code != c.code || !strings.Contains(errb.String(), c.want) {
			t.Errorf("awa %q: exit %d, %q; want exit %d and %q", c.args, code, errb.String(), c.code, c.want)
		}
	}
}
