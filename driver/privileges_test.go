package driver_test

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/awa-queue/awa/db"
	"github.com/awa-queue/awa/driver"
	"github.com/awa-queue/awa/internal/pgtest"
)

// TestLeastPrivilegeInstallAndRoles installs awa with goose as an owner that is
// not a superuser (it owns the database, so it may create schemas; it cannot
// create roles: the DBA has created the three group roles), then runs jobs
// with three login roles, each a member of one group role only: a producer
// client enqueues by every path, a worker client (maintenance off) works the
// jobs, and an admin login runs the SQL maintenance tick and reads the counts.
// The producer is refused a claim with 42501.
func TestLeastPrivilegeInstallAndRoles(t *testing.T) {
	ctx := pgtest.Context(t, 2*time.Minute)
	server := pgtest.DSN(t)
	su, err := pgx.Connect(ctx, server)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { su.Close(context.Background()) })

	var rnd [4]byte
	if _, err := rand.Read(rnd[:]); err != nil {
		t.Fatal(err)
	}
	suffix := hex.EncodeToString(rnd[:])
	dbName := "awa_priv_" + suffix
	owner, producer, worker, admin := "awa_t_owner_"+suffix, "awa_t_producer_"+suffix, "awa_t_worker_"+suffix, "awa_t_admin_"+suffix
	maintainer := "awa_t_maintainer_" + suffix
	exec := func(c *pgx.Conn, q string) {
		t.Helper()
		if _, err := c.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	ident := func(s string) string { return pgx.Identifier{s}.Sanitize() }

	// The DBA's part: the group roles (cluster-wide; another install may have
	// made them already), the owner, and the applications' login roles.
	exec(su, `DO $$ DECLARE r text; BEGIN
	  FOREACH r IN ARRAY ARRAY['awa_producer', 'awa_worker', 'awa_admin'] LOOP
	    IF to_regrole(r) IS NULL THEN EXECUTE format('CREATE ROLE %I NOLOGIN', r); END IF;
	  END LOOP; END $$`)
	exec(su, "CREATE ROLE "+ident(owner)+" LOGIN NOSUPERUSER NOCREATEROLE NOCREATEDB")
	exec(su, "CREATE ROLE "+ident(producer)+" LOGIN IN ROLE awa_producer")
	exec(su, "CREATE ROLE "+ident(worker)+" LOGIN IN ROLE awa_worker")
	exec(su, "CREATE ROLE "+ident(admin)+" LOGIN IN ROLE awa_admin")
	exec(su, "CREATE ROLE "+ident(maintainer)+" LOGIN IN ROLE awa_worker, awa_admin")
	exec(su, "CREATE DATABASE "+ident(dbName)+" OWNER "+ident(owner))
	t.Cleanup(func() {
		pgtest.DropDatabase(t, server, dbName)
		c, err := pgx.Connect(context.Background(), server)
		if err != nil {
			t.Errorf("drop roles: %v", err)
			return
		}
		defer c.Close(context.Background())
		for _, r := range []string{producer, worker, admin, maintainer, owner} {
			if _, err := c.Exec(context.Background(), "DROP ROLE IF EXISTS "+ident(r)); err != nil {
				t.Errorf("drop role %s: %v", r, err)
			}
		}
	})

	// The owner installs through goose (db.Provider, the CLI's path).
	ownerDB, err := sql.Open("pgx", loginDSN(t, server, dbName, owner))
	if err != nil {
		t.Fatal(err)
	}
	defer ownerDB.Close()
	p, err := db.Provider(ownerDB)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Up(ctx); err != nil {
		t.Fatalf("goose up as the non-superuser owner: %v", err)
	}
	var super bool
	var schemaOwner string
	if err := ownerDB.QueryRowContext(ctx, `SELECT r.rolsuper, n.nspowner::regrole::text FROM pg_roles r, pg_namespace n
		WHERE r.rolname = current_user AND n.nspname = 'awa'`).Scan(&super, &schemaOwner); err != nil {
		t.Fatal(err)
	}
	if super || schemaOwner != owner {
		t.Fatalf("installer superuser=%v, schema awa owned by %s; want a non-superuser owner %s", super, schemaOwner, owner)
	}

	producerPool := loginPool(t, server, dbName, producer)
	workerPool := loginPool(t, server, dbName, worker)
	adminPool := loginPool(t, server, dbName, admin)

	// Producer: every insert path of an insert-only client.
	pc, err := driver.NewClient(producerPool, &driver.Config{DisableMaintenance: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := pc.Insert(ctx, smokeArgs{N: 1}, nil); err != nil {
		t.Fatalf("producer Insert: %v", err)
	}
	if _, err := pc.InsertMany(ctx, []driver.InsertManyParams{{Args: smokeArgs{N: 2}}, {Args: smokeArgs{N: 3}}}); err != nil {
		t.Fatalf("producer InsertMany: %v", err)
	}
	if _, err := pc.InsertManyCopy(ctx, []driver.InsertManyParams{{Args: smokeArgs{N: 4}}}); err != nil {
		t.Fatalf("producer InsertManyCopy: %v", err)
	}
	_, err = producerPool.Exec(ctx, "SELECT * FROM awa.claim_ready_runtime('default', 1)")
	var pgErr *pgconn.PgError
	if !errors.As(err, &pgErr) || pgErr.Code != "42501" {
		t.Fatalf("producer claim: err = %v, want SQLSTATE 42501", err)
	}

	// Worker: claims, runs and completes them (maintenance is the admin's).
	var ran atomic.Int64
	workers := driver.NewWorkers()
	driver.AddWorker(workers, driver.WorkFunc(func(context.Context, *driver.Job[smokeArgs]) error {
		ran.Add(1)
		return nil
	}))
	log, _ := testLogger(t, "worker")
	wc := startClient(t, workerPool, &driver.Config{
		Logger:             log,
		Queues:             map[string]driver.QueueConfig{"default": {MaxWorkers: 4}},
		Workers:            workers,
		DisableMaintenance: true,
	})
	waitFor(t, 30*time.Second, "the worker runs the 4 jobs", func() (bool, string) {
		n := ran.Load()
		return n == 4, fmt.Sprintf("ran %d", n)
	})
	if err := wc.Stop(ctx); err != nil {
		t.Fatal(err)
	}

	// Admin: the SQL maintenance tick (autocommit, so its COMMITs work) and counts.
	var report []byte
	if err := adminPool.QueryRow(ctx, "CALL awa.run_maintenance()").Scan(&report); err != nil {
		t.Fatalf("admin run_maintenance: %v", err)
	}
	var r struct {
		Leader bool `json:"leader"`
	}
	if err := json.Unmarshal(report, &r); err != nil || !r.Leader {
		t.Fatalf("run_maintenance report %s (%v): want leader true", report, err)
	}
	counts, err := wc.Driver().QueueCounts(ctx, adminPool, "default")
	if err != nil {
		t.Fatalf("admin QueueCounts: %v", err)
	}
	if len(counts) != 1 || counts[0].Completed != 4 || counts[0].Available+counts[0].Running != 0 {
		t.Fatalf("counts = %+v, want 4 completed and nothing left", counts)
	}

	// Maintenance needs awa_admin: a worker login without it that would take
	// part in leader election is refused at Start, before it registers; a
	// login in both roles starts and leads.
	var processes int
	countProcesses := func() int {
		t.Helper()
		var n int
		if err := ownerDB.QueryRowContext(ctx, "SELECT count(*) FROM awa.runtime_instances").Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	processes = countProcesses()
	mc, err := driver.NewClient(workerPool, &driver.Config{
		Queues:  map[string]driver.QueueConfig{"default": {MaxWorkers: 1}},
		Workers: workers,
	})
	if err != nil {
		t.Fatal(err)
	}
	err = mc.Start(ctx)
	if !errors.Is(err, driver.ErrMaintenancePrivileges) {
		_ = mc.StopAndCancel(ctx)
		t.Fatalf("Start with maintenance as a worker without awa_admin: err = %v, want ErrMaintenancePrivileges", err)
	}
	for _, want := range []string{worker, "awa.acquire_leader_lease(", "awa_admin", "DisableMaintenance"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
	if n := countProcesses(); n != processes {
		t.Errorf("a refused Start registered %d processes", n-processes)
	}
	// The admin's SQL tick above holds the lease (2 minutes): give it up.
	if _, err := adminPool.Exec(ctx, "SELECT * FROM awa.release_leader_lease('maintenance', md5('awa.run_maintenance')::uuid)"); err != nil {
		t.Fatalf("admin release_leader_lease: %v", err)
	}
	log, _ = testLogger(t, "maintainer")
	lc := startClient(t, loginPool(t, server, dbName, maintainer), &driver.Config{
		Logger:      log,
		Queues:      map[string]driver.QueueConfig{"default": {MaxWorkers: 1}},
		Workers:     workers,
		Maintenance: fastMaintenance(),
	})
	waitFor(t, 30*time.Second, "the worker and admin login leads maintenance", func() (bool, string) {
		return lc.IsLeader(), "not leader"
	})
}

// loginDSN is server's DSN (a URL) for database dbName as user role.
func loginDSN(t *testing.T, server, dbName, role string) string {
	t.Helper()
	u, err := url.Parse(server)
	if err != nil {
		t.Fatalf("AWA_TEST_DSN must be a URL here: %v", err)
	}
	u.Path = "/" + dbName
	u.User = url.User(role)
	return u.String()
}

// loginPool is a pool on dbName as role, closed when the test ends.
func loginPool(t *testing.T, server, dbName, role string) *pgxpool.Pool {
	t.Helper()
	pool, err := pgxpool.New(context.Background(), loginDSN(t, server, dbName, role))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	return pool
}
