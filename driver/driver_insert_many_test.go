package driver_test

import (
	"context"
	"testing"
	"time"

	"github.com/awa-queue/awa/driver"
	"github.com/awa-queue/awa/internal/pgtest"
)

// InsertMany sends default options as NULL and repeats of one option set
// once encoded; every job must still get exactly its own options.
func TestInsertManyMixesDefaultAndRepeatedOptions(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := pgtest.NewDB(t)
	d := driver.New()
	runAt := time.Now().Add(time.Hour).UTC().Truncate(time.Second)
	ps := []driver.InsertParams{
		{Kind: "a", Args: []byte(`{}`)},
		{Kind: "b", Args: []byte(`{}`), Opts: driver.InsertOpts{Queue: "q2", Priority: 3}},
		{Kind: "c", Args: []byte(`{}`), Opts: driver.InsertOpts{Queue: "q2", Priority: 3}},
		{Kind: "d", Args: []byte(`{}`), Opts: driver.InsertOpts{Queue: "q2", Tags: []string{"t"}}},
		{Kind: "e", Args: []byte(`{}`), Opts: driver.InsertOpts{RunAt: runAt, MaxAttempts: 3}},
		{Kind: "f", Args: []byte(`{}`)},
	}
	got, err := d.InsertMany(ctx, pool, ps)
	if err != nil {
		t.Fatalf("InsertMany: %v", err)
	}
	type want struct {
		queue    string
		priority int16
		state    driver.JobState
	}
	wants := []want{{"default", 2, driver.StateAvailable}, {"q2", 3, driver.StateAvailable},
		{"q2", 3, driver.StateAvailable}, {"q2", 2, driver.StateAvailable},
		{"default", 2, driver.StateScheduled}, {"default", 2, driver.StateAvailable}}
	for i, w := range wants {
		if got[i].Kind != ps[i].Kind || got[i].Queue != w.queue || got[i].Priority != w.priority || got[i].State != w.state {
			t.Fatalf("job %d: got %+v, want kind %s queue %s priority %d state %s",
				i, got[i], ps[i].Kind, w.queue, w.priority, w.state)
		}
	}
	var tags []string
	var maxAttempts int
	if err := pool.QueryRow(ctx, `SELECT tags FROM awa.jobs WHERE id = $1`, got[3].ID).Scan(&tags); err != nil {
		t.Fatal(err)
	}
	if err := pool.QueryRow(ctx, `SELECT max_attempts FROM awa.jobs WHERE id = $1`, got[4].ID).Scan(&maxAttempts); err != nil {
		t.Fatal(err)
	}
	if len(tags) != 1 || tags[0] != "t" || maxAttempts != 3 || !got[4].RunAt.Equal(runAt) {
		t.Fatalf("tags %v (want [t]), max_attempts %d (want 3), run_at %s (want %s)", tags, maxAttempts, got[4].RunAt, runAt)
	}
}
