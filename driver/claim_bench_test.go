package driver_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/awa-queue/awa/driver"
	"github.com/awa-queue/awa/internal/pgtest"
)

// BenchmarkClaim: one claim asking for 1,024 jobs (a client with that many
// free slots), finding none, one, or all 1,024: the Go side's allocations per
// claim (B/op) are what the scan costs; the jobs are inserted with the timer
// stopped and left claimed.
func BenchmarkClaim(b *testing.B) {
	ctx := context.Background()
	pool := pgtest.NewDB(b)
	d := driver.New()
	const max = 1024
	for _, found := range []int{0, 1, max} {
		b.Run(fmt.Sprintf("%d_of_%d", found, max), func(b *testing.B) {
			queue := fmt.Sprintf("claim_bench_%d", found)
			ps := make([]driver.InsertParams, found)
			for i := range ps {
				ps[i] = driver.InsertParams{Kind: "bench", Args: []byte(fmt.Sprintf(`{"n": %d}`, i)),
					Opts: driver.InsertOpts{Queue: queue}}
			}
			b.ReportAllocs()
			for b.Loop() {
				b.StopTimer()
				if found > 0 {
					if _, err := d.InsertMany(ctx, pool, ps); err != nil {
						b.Fatal(err)
					}
				}
				b.StartTimer()
				jobs, err := d.Claim(ctx, pool, queue, max, [16]byte{}, 0)
				if err != nil || len(jobs) != found {
					b.Fatalf("claim = %d jobs, %v; want %d", len(jobs), err, found)
				}
			}
		})
	}
}
