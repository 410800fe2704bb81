package driver

import (
	"testing"
	"time"
)

// The attempt deadline comes from the database's clock; the handler's context
// must end by the same interval after the claim on this process's clock, so a
// local clock that runs behind the database's never lets a handler outlive the
// rescue of its attempt.
func TestLocalDeadlineFollowsTheClaimIntervalNotTheDatabaseClock(t *testing.T) {
	claimStart := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	dbClaimedAt := claimStart.Add(time.Hour + 3*time.Millisecond) // the database's clock runs an hour ahead
	j := ClaimedJob{ClaimedAt: dbClaimedAt, DeadlineAt: dbClaimedAt.Add(30 * time.Second)}
	if got, want := localDeadline(&j, claimStart), claimStart.Add(30*time.Second); !got.Equal(want) {
		t.Fatalf("local deadline %s, want %s (claim start + the 30 s attempt interval)", got, want)
	}
	if got := localDeadline(&ClaimedJob{ClaimedAt: dbClaimedAt}, claimStart); !got.IsZero() {
		t.Fatalf("a claim without a deadline got local deadline %s, want none", got)
	}
}
