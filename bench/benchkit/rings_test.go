package benchkit

import (
	"testing"

	"github.com/awa-queue/awa/driver"
)

// TestRingTallyCountsCarriedRows: the rows a prune says it carried (partial
// carries of available jobs, prunes after carrying available jobs, claim
// batches or live leases) are summed per ring; other outcomes carry none.
func TestRingTallyCountsCarriedRows(t *testing.T) {
	var tally RingTally
	for _, o := range []driver.RingOutcome{
		{Ring: "queue", Action: "prune", Outcome: "carried", Detail: "moved 1000 available jobs to slot 3, at least 1000 remain"},
		{Ring: "queue", Action: "prune", Outcome: "pruned",
			Detail: "truncated slot 2 after moving 12 available jobs to slot 3 after carrying 2 claim batches of running jobs to slot 3"},
		{Ring: "lease", Action: "prune", Outcome: "pruned", Detail: "truncated slot 5 after carrying 100 live leases to slot 4"},
		{Ring: "lease", Action: "prune", Outcome: "pruned", Detail: "truncated slot 6"},
		{Ring: "lease", Action: "prune", Outcome: "skipped_live", Detail: "lease slot 1 holds the lease of job 7"},
		{Ring: "claim", Action: "rotate", Outcome: "rotated", Detail: "sealed slot 1"},
	} {
		tally.add(&o)
	}
	carries, rows := tally.Carries()
	want := map[string][2]int64{"queue": {2, 1014}, "claim": {0, 0}, "lease": {1, 100}, "cursor": {0, 0}}
	for ring, w := range want {
		if int64(carries[ring]) != w[0] || rows[ring] != w[1] {
			t.Errorf("%s ring: %d carries of %d rows, want %d of %d", ring, carries[ring], rows[ring], w[0], w[1])
		}
	}
	if c := tally.Counts(); c["lease"]["pruned"] != 2 || c["lease"]["skipped_live"] != 1 || c["claim"]["rotated"] != 1 {
		t.Errorf("counts %v", c)
	}
}
