package driver

import (
	"strings"
	"testing"
	"time"
)

func mustSchedule(t *testing.T, spec, tz string) *schedule {
	t.Helper()
	s, err := parseSchedule(spec, tz)
	if err != nil {
		t.Fatalf("parseSchedule(%q, %q): %v", spec, tz, err)
	}
	return s
}

func at(t *testing.T, s string) time.Time {
	t.Helper()
	v, err := time.Parse(time.RFC3339, s)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// TestPeriodicStepComputesInTheScheduleZone: a schedule's first time, a due
// time with the next one, missed times (fire_once fires the latest, skip
// none) and the far-behind catch-up, for a spec read in its zone across both
// daylight saving changes (robfig/cron's rules: a time the spring-forward
// night lacks is skipped, one the fall-back night repeats fires twice) and
// for an interval, whose times count from its first one.
func TestPeriodicStepComputesInTheScheduleZone(t *testing.T) {
	paris := mustSchedule(t, "30 2 * * *", "Europe/Paris") // 02:30 Paris: skipped on the spring-forward night
	every := mustSchedule(t, "@every 7s", "")
	for _, tc := range []struct {
		name             string
		s                *schedule
		due              PeriodicDue
		fire, next, want string // want: expected FireAt ("" none) and NextRunAt, RFC 3339
	}{
		{name: "first time", s: paris,
			due:  PeriodicDue{Now: at(t, "2026-01-10T12:00:00Z")},
			next: "2026-01-11T01:30:00Z"},
		{name: "due time", s: paris,
			due:  PeriodicDue{NextRunAt: at(t, "2026-01-11T01:30:00Z"), Now: at(t, "2026-01-11T01:30:00.4Z")},
			fire: "2026-01-11T01:30:00Z", next: "2026-01-12T01:30:00Z"},
		{name: "summer time: 02:30 Paris is 00:30 UTC", s: paris,
			due:  PeriodicDue{NextRunAt: at(t, "2026-07-01T00:30:00Z"), Now: at(t, "2026-07-01T00:30:01Z")},
			fire: "2026-07-01T00:30:00Z", next: "2026-07-02T00:30:00Z"},
		{name: "the spring-forward night has no 02:30", s: paris,
			due:  PeriodicDue{NextRunAt: at(t, "2026-03-28T01:30:00Z"), Now: at(t, "2026-03-28T01:30:01Z")},
			fire: "2026-03-28T01:30:00Z", next: "2026-03-30T00:30:00Z"},
		{name: "the fall-back night has 02:30 twice: each fires", s: paris,
			due:  PeriodicDue{NextRunAt: at(t, "2026-10-25T00:30:00Z"), Now: at(t, "2026-10-25T00:30:01Z")},
			fire: "2026-10-25T00:30:00Z", next: "2026-10-25T01:30:00Z"},
		{name: "missed days fire once, at the latest", s: paris,
			due:  PeriodicDue{NextRunAt: at(t, "2026-01-11T01:30:00Z"), Now: at(t, "2026-01-14T09:00:00Z")},
			fire: "2026-01-14T01:30:00Z", next: "2026-01-15T01:30:00Z"},
		{name: "missed days are skipped", s: paris,
			due:  PeriodicDue{NextRunAt: at(t, "2026-01-11T01:30:00Z"), Now: at(t, "2026-01-14T09:00:00Z"), Missed: MissedSkip},
			next: "2026-01-15T01:30:00Z"},
		{name: "a due time that is not missed fires under skip too", s: paris,
			due:  PeriodicDue{NextRunAt: at(t, "2026-01-11T01:30:00Z"), Now: at(t, "2026-01-11T02:00:00Z"), Missed: MissedSkip},
			fire: "2026-01-11T01:30:00Z", next: "2026-01-12T01:30:00Z"},
		{name: "a year behind: caught up from the last day", s: paris,
			due:  PeriodicDue{NextRunAt: at(t, "2025-01-11T01:30:00Z"), Now: at(t, "2026-01-14T09:00:00Z")},
			fire: "2026-01-14T01:30:00Z", next: "2026-01-15T01:30:00Z"},
		{name: "interval first time: whole seconds", s: every,
			due:  PeriodicDue{Now: at(t, "2026-01-10T12:00:00.75Z")},
			next: "2026-01-10T12:00:07Z"},
		{name: "interval due", s: every,
			due:  PeriodicDue{NextRunAt: at(t, "2026-01-10T12:00:07Z"), Now: at(t, "2026-01-10T12:00:08Z")},
			fire: "2026-01-10T12:00:07Z", next: "2026-01-10T12:00:14Z"},
		{name: "interval missed: steps in whole periods from its first time", s: every,
			due:  PeriodicDue{NextRunAt: at(t, "2026-01-10T12:00:07Z"), Now: at(t, "2026-01-12T12:00:00Z")},
			fire: "2026-01-12T11:59:55Z", next: "2026-01-12T12:00:02Z"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := periodicStep(tc.s, tc.due)
			if err != nil {
				t.Fatal(err)
			}
			fire := ""
			if !p.FireAt.IsZero() {
				fire = p.FireAt.UTC().Format(time.RFC3339)
			}
			if fire != tc.fire || p.NextRunAt.UTC().Format(time.RFC3339) != tc.next || !p.Expected.Equal(tc.due.NextRunAt) {
				t.Fatalf("periodicStep = fire %q next %s expected %s; want fire %q next %s expected %s", fire,
					p.NextRunAt.UTC().Format(time.RFC3339), p.Expected, tc.fire, tc.next, tc.due.NextRunAt)
			}
		})
	}
	// The interval's missed fire is on its own grid: 7 s steps from 12:00:07.
	if d := at(t, "2026-01-12T11:59:55Z").Sub(at(t, "2026-01-10T12:00:07Z")); d%(7*time.Second) != 0 {
		t.Fatalf("the expected interval fire is off its grid by %s", d%(7*time.Second))
	}
}

// TestPeriodicStepRejectsASpecThatNeverFires: February 30th has no time
// within the parser's five years: the step says so, for the leader to reject
// the schedule rather than ask again at every tick.
func TestPeriodicStepRejectsASpecThatNeverFires(t *testing.T) {
	_, err := periodicStep(mustSchedule(t, "0 0 30 2 *", ""), PeriodicDue{Name: "never", Schedule: "0 0 30 2 *",
		Now: at(t, "2026-01-10T12:00:00Z")})
	if err == nil || !strings.Contains(err.Error(), `schedule "0 0 30 2 *" has no fire time within five years after 2026-01-10T12:00:00Z`) {
		t.Fatalf("periodicStep = %v; want no fire time within five years", err)
	}
}
