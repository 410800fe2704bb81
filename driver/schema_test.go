package driver_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/awa-queue/awa/driver"
	"github.com/awa-queue/awa/internal/pgtest"
)

// otherSchema is the second install of the side-by-side tests.
const otherSchema = "jobs_b"

// twoSchemaDB returns a fresh database holding two installs: awa (from the
// migrated template) and otherSchema (db.SchemaProvider).
func twoSchemaDB(t *testing.T) *pgxpool.Pool {
	t.Helper()
	pool := pgtest.NewDB(t)
	pgtest.InstallSchema(t, pool.Config().ConnString(), otherSchema)
	return pool
}

// otherDriver is a Driver for otherSchema.
func otherDriver(t *testing.T) *driver.Driver {
	t.Helper()
	d, err := driver.NewSchema(otherSchema)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

type sideArgs struct {
	Schema string `json:"schema"`
	N      int    `json:"n"`
}

func (sideArgs) Kind() string { return "side" }

// sideRuns records, per client, the jobs its workers ran.
type sideRuns struct {
	mu   sync.Mutex
	jobs map[int64]sideArgs
	runs int
}

// Two clients, one per schema, insert and work jobs of the same kind in the
// same queue at once; each runs exactly its own jobs (the job ids of the two
// installs overlap, the args say where a job was inserted), and each becomes
// maintenance leader of its own install at the same time.
func TestSchemasSideBySideWorkOnlyTheirOwnJobs(t *testing.T) {
	ctx := pgtest.Context(t, 2*time.Minute)
	pool := twoSchemaDB(t)
	const perSchema = 300
	schemas := []string{driver.DefaultSchema, otherSchema}
	clients := map[string]*driver.Client{}
	events := map[string]*eventLog{}
	runs := map[string]*sideRuns{}
	for _, s := range schemas {
		r := &sideRuns{jobs: map[int64]sideArgs{}}
		runs[s] = r
		workers := workersFor(func(ctx context.Context, j *driver.Job[sideArgs]) error {
			r.mu.Lock()
			defer r.mu.Unlock()
			r.jobs[j.ID] = j.Args
			r.runs++
			return nil
		})
		log, _ := testLogger(t, s)
		clients[s], events[s] = startClientEvents(t, pool, workConfig("default", 10, workers, log, &driver.Config{Schema: s}))
		if got := clients[s].Driver().Schema(); got != s {
			t.Fatalf("client of schema %s: Driver().Schema() = %s", s, got)
		}
	}

	var wg sync.WaitGroup
	errs := make(chan error, len(schemas))
	for _, s := range schemas {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n := 0; n < perSchema; {
				batch := make([]driver.InsertManyParams, 0, 30)
				for ; len(batch) < 30 && n < perSchema; n++ {
					batch = append(batch, driver.InsertManyParams{Args: sideArgs{Schema: s, N: n}})
				}
				if _, err := clients[s].InsertMany(ctx, batch); err != nil {
					errs <- fmt.Errorf("insert into %s: %w", s, err)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}

	for _, s := range schemas {
		waitFor(t, time.Minute, "each client runs its schema's jobs", func() (bool, string) {
			r := runs[s]
			r.mu.Lock()
			defer r.mu.Unlock()
			return r.runs >= perSchema, fmt.Sprintf("%s ran %d of %d", s, r.runs, perSchema)
		})
	}
	time.Sleep(200 * time.Millisecond) // a cross-claimed job would run by now
	for _, s := range schemas {
		r := runs[s]
		r.mu.Lock()
		if r.runs != perSchema || len(r.jobs) != perSchema {
			t.Errorf("schema %s: %d runs of %d jobs, want %d of %d", s, r.runs, len(r.jobs), perSchema, perSchema)
		}
		seen := map[int]bool{}
		for id, a := range r.jobs {
			if a.Schema != s {
				t.Errorf("the client of schema %s ran job %d inserted into %s", s, id, a.Schema)
			}
			seen[a.N] = true
		}
		if len(seen) != perSchema {
			t.Errorf("schema %s ran %d distinct jobs, want %d", s, len(seen), perSchema)
		}
		r.mu.Unlock()
		counts, err := clients[s].Driver().QueueCounts(ctx, pool, "default")
		if err != nil {
			t.Fatal(err)
		}
		if len(counts) != 1 || counts[0].Completed != perSchema || counts[0].Available+counts[0].Running+counts[0].Retryable != 0 {
			t.Errorf("schema %s counts %+v, want %d completed and nothing open", s, counts, perSchema)
		}
	}
	// The id spaces overlap: only the schema keeps the jobs apart.
	common := 0
	for id := range runs[driver.DefaultSchema].jobs {
		if _, ok := runs[otherSchema].jobs[id]; ok {
			common++
		}
	}
	if common == 0 {
		t.Fatalf("no job id common to both installs: the test proves nothing")
	}
	for _, s := range schemas {
		waitFor(t, 10*time.Second, "each client leads its own install's maintenance", func() (bool, string) {
			n := len(events[s].of(driver.EventLeadershipGained, nil))
			return n > 0, fmt.Sprintf("%s: %d leadership events", s, n)
		})
		var holders int
		if err := pool.QueryRow(ctx, `SELECT count(*) FROM `+s+`.leader_leases WHERE expires_at > now()`).Scan(&holders); err != nil {
			t.Fatal(err)
		}
		if holders == 0 {
			t.Errorf("schema %s: no live leader lease", s)
		}
	}
}

// A job inserted into one install notifies that install's channel only.
func TestSchemasSideBySideNotifyOnlyTheirOwnListeners(t *testing.T) {
	ctx := pgtest.Context(t, time.Minute)
	pool := twoSchemaDB(t)
	listeners := map[string]*pgx.Conn{}
	for _, s := range []string{driver.DefaultSchema, otherSchema} {
		c, err := pgx.Connect(ctx, pool.Config().ConnString())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close(context.Background()) })
		if _, err := c.Exec(ctx, `SELECT `+s+`.listen_queues(ARRAY['default'])`); err != nil {
			t.Fatal(err)
		}
		listeners[s] = c
	}
	for _, into := range []string{otherSchema, driver.DefaultSchema} {
		d := driver.New()
		if into == otherSchema {
			d = otherDriver(t)
		}
		if _, err := d.Insert(ctx, pool, driver.InsertParams{Kind: "side", Args: []byte(`{}`)}); err != nil {
			t.Fatal(err)
		}
		for s, c := range listeners {
			wait, cancel := context.WithTimeout(ctx, 2*time.Second)
			if s != into {
				wait, cancel = context.WithTimeout(ctx, 300*time.Millisecond)
			}
			n, err := c.WaitForNotification(wait)
			cancel()
			switch {
			case s == into && err != nil:
				t.Errorf("insert into %s: its listener got no notification: %v", into, err)
			case s == into && n.Channel != into+":default":
				t.Errorf("insert into %s: notification on channel %q", into, n.Channel)
			case s != into && err == nil:
				t.Errorf("insert into %s woke the listener of %s (channel %q)", into, s, n.Channel)
			}
		}
	}
}

// Advisory locks are scoped by schema: a rotate or prune of a ring of one
// install is not stopped by the same ring's lock held in the other, and it
// rotates and prunes that install's ring alone.
func TestSchemasSideBySideRingsAndLocksAreIndependent(t *testing.T) {
	ctx := pgtest.Context(t, time.Minute)
	pool := twoSchemaDB(t)
	da, db := driver.New(), otherDriver(t)
	for _, d := range []*driver.Driver{da, db} {
		if _, err := d.Insert(ctx, pool, driver.InsertParams{Kind: "side", Args: []byte(`{}`)}); err != nil {
			t.Fatal(err)
		}
	}
	generations := func(s string) (n int) {
		t.Helper()
		if err := pool.QueryRow(ctx, `SELECT count(*) FROM `+s+`.ring_rotations WHERE ring = 'queue'`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	beforeA, beforeB := generations(driver.DefaultSchema), generations(otherSchema)

	holder, err := pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer holder.Rollback(ctx)
	if _, err := holder.Exec(ctx, `SELECT pg_advisory_xact_lock(awa._lock_key('ring'), hashtext('queue'))`); err != nil {
		t.Fatal(err)
	}
	outcome := func(d *driver.Driver) string {
		t.Helper()
		out, err := d.RotateRing(ctx, pool, driver.RingQueue, 0)
		if err != nil || len(out) != 1 {
			t.Fatalf("rotate in %s: %v %+v", d.Schema(), err, out)
		}
		return out[0].Outcome
	}
	if got := outcome(da); got != "skipped_locked" {
		t.Errorf("rotate in awa while awa's ring lock is held: %s, want skipped_locked", got)
	}
	if got := outcome(db); got != "rotated" {
		t.Errorf("rotate in %s while awa's ring lock is held: %s, want rotated", otherSchema, got)
	}
	prune := func(d *driver.Driver) string {
		t.Helper()
		out, err := d.PruneRing(ctx, pool, driver.RingQueue, time.Second, 0, 1000)
		if err != nil || len(out) == 0 {
			t.Fatalf("prune in %s: %v %+v", d.Schema(), err, out)
		}
		return out[len(out)-1].Outcome
	}
	if got := prune(da); got != "skipped_locked" {
		t.Errorf("prune in awa while awa's ring lock is held: %s, want skipped_locked", got)
	}
	// otherSchema's sealed slot holds its available job: the prune moves it
	// to the current slot and truncates the sealed one.
	if got := prune(db); got != "pruned" {
		t.Errorf("prune in %s while awa's ring lock is held: %s, want pruned", otherSchema, got)
	}
	for _, d := range []*driver.Driver{da, db} {
		counts, err := d.QueueCounts(ctx, pool, "default")
		if err != nil || len(counts) != 1 || counts[0].Available != 1 {
			t.Errorf("schema %s after the rotate and prune: counts %+v (%v), want its one job available", d.Schema(), counts, err)
		}
	}
	if err := holder.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	if a, b := generations(driver.DefaultSchema), generations(otherSchema); a != beforeA || b != beforeB+1 {
		t.Errorf("queue-ring generations: awa %d -> %d, %s %d -> %d; want awa unchanged, %s one more",
			beforeA, a, otherSchema, beforeB, b, otherSchema)
	}
	var sameKeys int
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM unnest(ARRAY['lane_producer', 'claim_batch', 'ring', 'lane_creation',
	        'lane_claim', 'shard_creation']) AS k(name) WHERE awa._lock_key(k.name) = `+otherSchema+`._lock_key(k.name)`).Scan(&sameKeys); err != nil {
		t.Fatal(err)
	}
	if sameKeys != 0 {
		t.Errorf("%d advisory-lock classes are shared by awa and %s", sameKeys, otherSchema)
	}
}

// Each install has its own group roles, granted on its own schema only, and
// the COPY stages of two installs used in one session stay apart.
func TestSchemasSideBySideRolesAndStagesAreSeparate(t *testing.T) {
	ctx := pgtest.Context(t, time.Minute)
	pool := twoSchemaDB(t)
	for _, tc := range []struct {
		role, schema string
		want         bool
	}{
		{"awa_producer", "awa", true},
		{"awa_producer", otherSchema, false},
		{otherSchema + "_producer", otherSchema, true},
		{otherSchema + "_producer", "awa", false},
		{otherSchema + "_worker", otherSchema, false},
	} {
		var got bool
		err := pool.QueryRow(ctx, `SELECT has_function_privilege($1, p.oid, 'EXECUTE') FROM pg_proc p
		                           WHERE p.proname = 'insert_job' AND p.pronamespace = $2::regnamespace`, tc.role, tc.schema).Scan(&got)
		if err != nil {
			t.Fatal(err)
		}
		if got != tc.want {
			t.Errorf("%s may execute %s.insert_job: %v, want %v", tc.role, tc.schema, got, tc.want)
		}
	}
	db := otherDriver(t)
	tx, err := pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx)
	one := []driver.InsertParams{{Kind: "side", Args: []byte(`{}`)}}
	// The stage of awa holds a job when otherSchema's is filled and emptied.
	if _, err := tx.Exec(ctx, `SELECT awa.open_job_stage(); INSERT INTO pg_temp.awa_job_stage (kind) VALUES ('side')`); err != nil {
		t.Fatal(err)
	}
	got, err := db.InsertManyCopy(ctx, tx, append(one, one...))
	if err != nil || len(got) != 2 {
		t.Fatalf("InsertManyCopy into %s: %v (%d jobs)", otherSchema, err, len(got))
	}
	var staged int
	if err := tx.QueryRow(ctx, `SELECT count(*) FROM pg_temp.awa_job_stage`).Scan(&staged); err != nil || staged != 1 {
		t.Errorf("awa's stage after a COPY insert into %s: %d rows (%v), want its 1", otherSchema, staged, err)
	}
}

func TestConfigSchemaIsChecked(t *testing.T) {
	ctx := pgtest.Context(t, time.Minute)
	pool := pgtest.NewDB(t)
	for _, bad := range []string{"Jobs", "pg_jobs", "1jobs", "jobs-b", "a_name_too_long"} {
		if _, err := driver.NewClient(pool, &driver.Config{Schema: bad}); !errors.Is(err, driver.ErrInvalidConfig) {
			t.Errorf("Config.Schema %q: %v, want ErrInvalidConfig", bad, err)
		}
	}
	c, err := driver.NewClient(pool, &driver.Config{Schema: "not_there"})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Start(ctx); !errors.Is(err, driver.ErrSubstrateVersion) ||
		!strings.Contains(err.Error(), "schema not_there is not installed") || !strings.Contains(err.Error(), "awa migrate up -schema not_there") {
		t.Errorf("Start on a schema that is not installed: %v, want ErrSubstrateVersion naming the schema and the command", err)
	}
}

// A client of otherSchema checks its maintenance rights on otherSchema's
// routines and names otherSchema's admin role: a member of otherSchema's
// worker and admin roles leads its maintenance, a member of its worker role
// alone, or of schema awa's roles, is refused at Start.
func TestSchemaClientChecksItsOwnSchemasMaintenancePrivileges(t *testing.T) {
	ctx := pgtest.Context(t, time.Minute)
	pool := twoSchemaDB(t)
	server, dbName := pgtest.DSN(t), pool.Config().ConnConfig.Database
	var rnd [4]byte
	if _, err := rand.Read(rnd[:]); err != nil {
		t.Fatal(err)
	}
	suffix := hex.EncodeToString(rnd[:])
	logins := map[string]string{
		"awa_t_bworker_" + suffix:     otherSchema + "_worker",
		"awa_t_bmaintainer_" + suffix: otherSchema + "_worker, " + otherSchema + "_admin",
		"awa_t_amaintainer_" + suffix: "awa_worker, awa_admin",
	}
	t.Cleanup(func() {
		for login := range logins {
			if _, err := pool.Exec(context.Background(), "DROP ROLE IF EXISTS "+login); err != nil {
				t.Errorf("drop role %s: %v", login, err)
			}
		}
	})
	for login, roles := range logins {
		if _, err := pool.Exec(ctx, "CREATE ROLE "+login+" LOGIN IN ROLE "+roles); err != nil {
			t.Fatal(err)
		}
	}
	workers, _ := countingWorkers[sideArgs]()
	config := func(name string) *driver.Config {
		log, _ := testLogger(t, name)
		return workConfig("default", 1, workers, log, &driver.Config{Schema: otherSchema})
	}
	start := func(login string) error {
		t.Helper()
		c, err := driver.NewClient(loginPool(t, server, dbName, login), config(login))
		if err != nil {
			t.Fatal(err)
		}
		if err = c.Start(ctx); err == nil {
			_ = c.StopAndCancel(ctx)
		}
		return err
	}
	err := start("awa_t_bworker_" + suffix)
	if !errors.Is(err, driver.ErrMaintenancePrivileges) {
		t.Fatalf("Start in %s as a member of its worker role alone: %v, want ErrMaintenancePrivileges", otherSchema, err)
	}
	for _, want := range []string{otherSchema + ".acquire_leader_lease(", "grant it " + otherSchema + "_admin"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
	// Schema awa's roles give nothing in otherSchema, not even its version.
	if err := start("awa_t_amaintainer_" + suffix); err == nil || !strings.Contains(err.Error(), "permission denied for schema "+otherSchema) {
		t.Errorf("Start in %s as a member of awa's roles: %v, want permission denied", otherSchema, err)
	}
	c := startClient(t, loginPool(t, server, dbName, "awa_t_bmaintainer_"+suffix), config("maintainer"))
	waitFor(t, 30*time.Second, "the member of the schema's worker and admin roles leads its maintenance", func() (bool, string) {
		return c.IsLeader(), "not leader"
	})
}
