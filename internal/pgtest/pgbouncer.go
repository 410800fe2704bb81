package pgtest

import (
	"context"
	"fmt"
	"net"
	"net/url"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// PgBouncerBin is the PgBouncer binary the tests run: Debian's `pgbouncer`
// package (`make tools` installs it).
const PgBouncerBin = "/usr/sbin/pgbouncer"

// PgBouncer is a PgBouncer process started by a test in front of the server
// of AWA_TEST_DSN; it is stopped when the test ends.
type PgBouncer struct {
	// Port is the port it listens on, on 127.0.0.1.
	Port int
	// Mode is its pool_mode: "transaction" or "session".
	Mode string
	// logPath is PgBouncer's stderr, where it logs.
	logPath string
}

// StartPgBouncer starts PgBouncer in poolMode ("transaction" or "session")
// on a free port of 127.0.0.1, forwarding every database to the server of
// AWA_TEST_DSN with trust authentication, at most serverConns server
// connections per database. It fails the test (never skips) when the binary
// is missing. PgBouncer refuses to run as root: as root it is started with
// `-u postgres` (the OS user scripts/pg.sh runs PostgreSQL as), its files
// owned by that user.
func StartPgBouncer(t testing.TB, poolMode string, serverConns int) *PgBouncer {
	t.Helper()
	if _, err := os.Stat(PgBouncerBin); err != nil {
		t.Fatalf("pgtest: PgBouncer is missing (%v): install Debian's pgbouncer (make tools, or apt-get install -y pgbouncer)", err)
	}
	server, err := pgx.ParseConfig(DSN(t))
	if err != nil {
		t.Fatalf("pgtest: parse %s: %v", EnvDSN, err)
	}
	dir := t.TempDir()
	var runAs []string
	var owner *user.User
	if os.Geteuid() == 0 {
		if owner, err = user.Lookup("postgres"); err != nil {
			t.Fatalf("pgtest: running as root, PgBouncer needs the OS user postgres to run as: %v", err)
		}
		runAs = []string{"-u", owner.Username}
	}
	// A free port can be taken between the probe and PgBouncer's bind: try a few.
	var lastErr error
	for attempt := 0; attempt < 5; attempt++ {
		b, err := startPgBouncer(t, dir, server, poolMode, serverConns, runAs, owner)
		if err == nil {
			return b
		}
		lastErr = err
	}
	t.Fatalf("pgtest: start PgBouncer: %v", lastErr)
	return nil
}

func startPgBouncer(t testing.TB, dir string, server *pgx.ConnConfig, poolMode string, serverConns int,
	runAs []string, owner *user.User) (*PgBouncer, error) {
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	user := server.User
	ini := fmt.Sprintf(`[databases]
* = host=%s port=%d
[pgbouncer]
listen_addr = 127.0.0.1
listen_port = %d
unix_socket_dir =
auth_type = trust
auth_file = %s
pool_mode = %s
default_pool_size = %d
max_client_conn = 1000
`, server.Host, server.Port, port, filepath.Join(dir, "userlist.txt"), poolMode, serverConns)
	files := map[string]string{"pgbouncer.ini": ini, "userlist.txt": strconv.Quote(user) + ` ""` + "\n"}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o600); err != nil {
			return nil, err
		}
	}
	if owner != nil {
		uid, _ := strconv.Atoi(owner.Uid)
		gid, _ := strconv.Atoi(owner.Gid)
		for _, p := range []string{dir, filepath.Join(dir, "pgbouncer.ini"), filepath.Join(dir, "userlist.txt")} {
			if err := os.Chown(p, uid, gid); err != nil {
				return nil, err
			}
		}
	}
	b := &PgBouncer{Port: port, Mode: poolMode, logPath: filepath.Join(dir, fmt.Sprintf("pgbouncer-%d.log", port))}
	logFile, err := os.Create(b.logPath)
	if err != nil {
		return nil, err
	}
	defer logFile.Close() // the child keeps its own descriptor
	cmd := exec.Command(PgBouncerBin, append(runAs, filepath.Join(dir, "pgbouncer.ini"))...)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	stop := func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-exited
		}
	}
	// Ready once a client gets through to the server.
	deadline := time.Now().Add(15 * time.Second)
	for {
		select {
		case err := <-exited:
			return nil, fmt.Errorf("pgbouncer exited (%v): %s", err, b.Log())
		default:
		}
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		conn, err := pgx.Connect(ctx, b.DSN(DSN(t)))
		if err == nil {
			err = conn.Ping(ctx)
			conn.Close(ctx)
		}
		cancel()
		if err == nil {
			break
		}
		if time.Now().After(deadline) {
			stop()
			return nil, fmt.Errorf("pgbouncer not ready after 15s: %v; log: %s", err, b.Log())
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Cleanup(func() {
		stop()
		if t.Failed() {
			t.Logf("pgtest: PgBouncer log:\n%s", b.Log())
		}
	})
	return b, nil
}

// DSN returns dsn (a postgres:// URL on the server of AWA_TEST_DSN, such as
// NewDBDSN's) with its host and port replaced by PgBouncer's.
func (b *PgBouncer) DSN(dsn string) string {
	u, err := url.Parse(dsn)
	if err != nil || (u.Scheme != "postgres" && u.Scheme != "postgresql") {
		panic(fmt.Sprintf("pgtest: PgBouncer.DSN needs a postgres:// URL, got %q", dsn))
	}
	u.Host = net.JoinHostPort("127.0.0.1", strconv.Itoa(b.Port))
	return u.String()
}

// Log returns what PgBouncer logged so far.
func (b *PgBouncer) Log() string {
	out, err := os.ReadFile(b.logPath)
	if err != nil {
		return fmt.Sprintf("(cannot read %s: %v)", b.logPath, err)
	}
	return string(out)
}

func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}
