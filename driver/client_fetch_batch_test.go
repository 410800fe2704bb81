package driver_test

import (
	"testing"
	"time"

	"github.com/awa-queue/awa/driver"
)

// TestAQueueClaimsForAllItsFreeSlotsInOneCall: with FetchBatchSize unset, a
// queue of 300 workers facing a backlog of 700 claims 300 jobs in its first
// call (its MaxWorkers), never more; with FetchBatchSize 40, no call claims
// more than 40. Read from the claim batches (maintenance off: nothing prunes
// them), one row per claim call and ready slot.
func TestAQueueClaimsForAllItsFreeSlotsInOneCall(t *testing.T) {
	ctx, pool := parallelDB(t, 2*time.Minute)
	for _, c := range []struct {
		queue      string
		fetchBatch int
		jobs       int
		want       int
	}{
		{"fetch_default", 0, 700, 300},
		{"fetch_capped", 40, 200, 40},
	} {
		workers, runs := countingWorkers[tenantArgs]()
		var params []driver.InsertManyParams
		for k := 0; k < c.jobs; k++ {
			params = append(params, driver.InsertManyParams{Args: tenantArgs{}, Opts: &driver.InsertOpts{Queue: c.queue}})
		}
		producer, err := driver.NewClient(pool, &driver.Config{})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := producer.InsertMany(ctx, params); err != nil {
			t.Fatal(err)
		}
		log, _ := testLogger(t, c.queue)
		startClient(t, pool, workConfig(c.queue, 300, workers, log,
			&driver.Config{FetchBatchSize: c.fetchBatch, DisableMaintenance: true}))
		waitFor(t, time.Minute, c.queue+": every job worked", func() (bool, string) {
			return runs.Load() == int64(c.jobs), ""
		})
		var largest, total int
		if err := pool.QueryRow(ctx, `SELECT max(cardinality(job_ids)), sum(cardinality(job_ids))
			FROM awa.claim_batches WHERE queue = $1`, c.queue).Scan(&largest, &total); err != nil {
			t.Fatal(err)
		}
		if total != c.jobs {
			t.Fatalf("%s: the claim batches hold %d jobs, want the %d worked", c.queue, total, c.jobs)
		}
		if largest != c.want {
			t.Fatalf("%s (FetchBatchSize %d, MaxWorkers 300): the largest claim took %d jobs, want %d",
				c.queue, c.fetchBatch, largest, c.want)
		}
	}
}
