package pgtest

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// childEnv marks a child run of this test binary (TestMain): it only asks for
// a server, through RunWithDB, and exits with its status.
const childEnv = "AWA_PGTEST_CHILD"

func TestMain(m *testing.M) {
	if os.Getenv(childEnv) == "1" {
		var dsn string
		os.Exit(RunWithDB(m, &dsn))
	}
	os.Exit(m.Run())
}

func TestChooseServer(t *testing.T) {
	ctx := context.Background()
	up := func(context.Context) error { return nil }
	down := func(context.Context) error { return errors.New("no daemon at unix:///var/run/docker.sock") }
	unprobed := func(context.Context) error { t.Error("Docker probed although a DSN is set"); return nil }
	for _, c := range []struct {
		name   string
		dsn    string
		docker func(context.Context) error
		want   source
		reason string
	}{
		{"DSN set", "postgres://h/db", unprobed, fromDSN, ""},
		{"DSN set, no Docker", "postgres://h/db", down, fromDSN, ""},
		{"no DSN, Docker reachable", "", up, fromContainer, ""},
		{"no DSN, no Docker", "", down, fromNowhere, "no daemon"},
	} {
		got, why := choose(ctx, c.dsn, c.docker)
		if got != c.want || (why == nil) != (c.reason == "") || (why != nil && !strings.Contains(why.Error(), c.reason)) {
			t.Errorf("%s: choose = %v, %v; want %v, reason %q", c.name, got, why, c.want, c.reason)
		}
	}
}

func TestResolveServer(t *testing.T) {
	ctx := context.Background()
	up := func(context.Context) error { return nil }
	down := func(context.Context) error { return errors.New("no daemon") }
	started := 0
	start := func(context.Context) (string, error) {
		started++
		return "postgres://postgres@localhost:32768/postgres", nil
	}

	if got, err := resolve(ctx, "postgres://h/db", up, start); got != "postgres://h/db" || err != nil || started != 0 {
		t.Fatalf("DSN set: %q, %v, %d containers started; want the DSN, none started", got, err, started)
	}
	if got, err := resolve(ctx, "", up, start); got != "postgres://postgres@localhost:32768/postgres" || err != nil || started != 1 {
		t.Fatalf("Docker reachable: %q, %v, %d containers started; want the container's DSN, one started", got, err, started)
	}
	_, err := resolve(ctx, "", up, func(context.Context) (string, error) { return "", errors.New("pull refused") })
	if err == nil || !strings.Contains(err.Error(), "starting "+ContainerImage+" failed: pull refused") {
		t.Fatalf("container start failure: %v", err)
	}
	_, err = resolve(ctx, "", down, start)
	if err == nil || started != 1 {
		t.Fatalf("no DSN, no Docker: err %v, %d containers started; want an error and none started", err, started)
	}
	for _, want := range []string{"AWA_TEST_DSN is not set and Docker is not reachable (no daemon)", "make test", "start Docker"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("no DSN, no Docker: message lacks %q: %v", want, err)
		}
	}
}

// TestNoServerFailsTheRun runs this test binary without AWA_TEST_DSN and with
// Docker pointed at a socket that does not exist: the real probe must find no
// daemon, and the run must fail with the message, not pass or skip.
func TestNoServerFailsTheRun(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestChooseServer$")
	cmd.Env = append(os.Environ(), childEnv+"=1", EnvDSN+"=", "DOCKER_HOST=unix:///nonexistent/awa-pgtest/docker.sock")
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 1 {
		t.Fatalf("child run without a server: err %v, want exit status 1; output:\n%s", err, out)
	}
	if !strings.Contains(string(out), "pgtest: AWA_TEST_DSN is not set and Docker is not reachable") {
		t.Fatalf("child run's output lacks the no-server message:\n%s", out)
	}
}
