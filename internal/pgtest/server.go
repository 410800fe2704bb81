package pgtest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/testcontainers/testcontainers-go"
	tcpostgres "github.com/testcontainers/testcontainers-go/modules/postgres"
)

// ContainerImage is the PostgreSQL image started when AWA_TEST_DSN is unset
// and Docker is reachable.
const ContainerImage = "postgres:15-alpine"

// source is where the tests' server comes from.
type source int

const (
	fromDSN       source = iota // AWA_TEST_DSN
	fromContainer               // a PostgreSQL container started by testcontainers-go
	fromNowhere                 // neither: the tests fail
)

// choose picks the server's source: the DSN when one is given (Docker is not
// even probed), otherwise a container when docker reports Docker reachable,
// otherwise nowhere, with docker's reason.
func choose(ctx context.Context, dsn string, docker func(context.Context) error) (source, error) {
	if dsn != "" {
		return fromDSN, nil
	}
	if err := docker(ctx); err != nil {
		return fromNowhere, err
	}
	return fromContainer, nil
}

// resolve returns the server DSN for the source choose picks, starting the
// container with start when that is the source.
func resolve(ctx context.Context, dsn string, docker func(context.Context) error,
	start func(context.Context) (string, error)) (string, error) {
	src, why := choose(ctx, dsn, docker)
	switch src {
	case fromDSN:
		return dsn, nil
	case fromContainer:
		url, err := start(ctx)
		if err != nil {
			return "", fmt.Errorf("pgtest: %s is not set and Docker is reachable, but starting %s failed: %w", EnvDSN, ContainerImage, err)
		}
		return url, nil
	default:
		return "", fmt.Errorf("pgtest: %s is not set and Docker is not reachable (%v). Run `make test` (or `make test/go`), "+
			"which provides a PostgreSQL server from the local binaries, start Docker, "+
			"or set %s to a PostgreSQL 15 DSN of a role that can create databases, e.g. "+
			"postgres://postgres@127.0.0.1:5499/postgres?sslmode=disable", EnvDSN, why, EnvDSN)
	}
}

var (
	serverOnce sync.Once
	serverURL  string
	serverErr  error
	// stopServer terminates the container, if this binary started one.
	stopServer = func() error { return nil }
)

// server returns the DSN of the server this test binary uses, resolved once:
// AWA_TEST_DSN, or else a container of its own (removed by testcontainers'
// reaper when the binary exits, or by RunWithDB at the end of the run).
func server() (string, error) {
	serverOnce.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer cancel()
		serverURL, serverErr = resolve(ctx, os.Getenv(EnvDSN), dockerReachable, startContainer)
	})
	return serverURL, serverErr
}

// dockerReachable asks the Docker daemon testcontainers-go would use for its
// info; an error means there is no usable daemon.
func dockerReachable(ctx context.Context) (err error) {
	defer func() { // testcontainers panics on some broken setups
		if p := recover(); p != nil {
			err = fmt.Errorf("docker provider: %v", p)
		}
	}()
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	p, err := testcontainers.NewDockerProvider()
	if err != nil {
		return err
	}
	return p.Health(ctx) // closes p
}

// startContainer starts PostgreSQL 15 with the throwaway cluster's settings
// (scripts/pg.sh) and returns the DSN of its postgres superuser.
func startContainer(ctx context.Context) (string, error) {
	c, err := tcpostgres.Run(ctx, ContainerImage,
		tcpostgres.WithUsername("postgres"), tcpostgres.WithPassword("postgres"), tcpostgres.WithDatabase("postgres"),
		testcontainers.WithCmd("postgres", "-c", "max_connections=200", "-c", "fsync=off",
			"-c", "synchronous_commit=off", "-c", "full_page_writes=off"),
		tcpostgres.BasicWaitStrategies())
	if err != nil {
		if c != nil {
			err = errors.Join(err, testcontainers.TerminateContainer(c))
		}
		return "", err
	}
	stopServer = func() error { return testcontainers.TerminateContainer(c) }
	return c.ConnectionString(ctx, "sslmode=disable")
}
