package worker_test

import (
	"os"
	"testing"

	"github.com/awa-queue/awa/internal/pgtest"
)

// databaseURL is a fresh database holding schema awa: in a service, its own
// DATABASE_URL, with the schema installed by `awa migrate up` or goose.
var databaseURL string

func TestMain(m *testing.M) { os.Exit(pgtest.RunWithDB(m, &databaseURL)) }
