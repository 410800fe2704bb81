package benchkit

import (
	"bytes"
	"flag"
	"strings"
	"testing"
	"time"
)

func summaryLines(rep *Report, systems ...string) []string {
	var b bytes.Buffer
	PrintSummary(&b, rep, systems...)
	var lines []string
	for _, l := range strings.Split(b.String(), "\n") {
		lines = append(lines, strings.Join(strings.Fields(l), " "))
	}
	return lines
}

func TestSummaryColumnsFollowTheSystems(t *testing.T) {
	rep := &Report{Runs: []*Run{
		{System: "awa", Scenario: "burndown", Variant: "10 jobs", PerSecond: 3000, WALPerJob: 30},
		{System: "river", Scenario: "burndown", Variant: "10 jobs", PerSecond: 1000, WALPerJob: 2400},
		{System: "awa", Scenario: "enqueue", Variant: "bulk 5", PerSecond: 50},
	}}
	for _, c := range []struct {
		systems []string
		want    []string
	}{
		{[]string{"awa", "river"}, []string{
			"scenario variant unit awa river awa/river WAL/job awa WAL/job river awa/river",
			"burndown 10 jobs jobs/s 3,000 1,000 3.00× 30.0 2,400 0.013×",
			"enqueue bulk 5 inserts/s 50.0 0.00 – 0.00 0.00 –",
		}},
		{[]string{"awa"}, []string{
			"scenario variant unit awa WAL/job awa",
			"burndown 10 jobs jobs/s 3,000 30.0",
			"enqueue bulk 5 inserts/s 50.0 0.00",
		}},
	} {
		got := summaryLines(rep, c.systems...)
		if strings.Join(got[:3], "\n") != strings.Join(c.want, "\n") {
			t.Errorf("summary of %q:\n%s\nwant:\n%s", c.systems, strings.Join(got[:3], "\n"), strings.Join(c.want, "\n"))
		}
	}
}

func TestQuickShortensWhatIsNotGiven(t *testing.T) {
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	f := RegisterFlags(fs)
	if err := fs.Parse([]string{"-quick", "-rate-duration", "1m", "-scenario", "rate,enqueue", "-rates", "5, 10"}); err != nil {
		t.Fatal(err)
	}
	o, err := f.Options()
	if err != nil {
		t.Fatal(err)
	}
	if o.Jobs != 100_000 || o.RateDuration != time.Minute || o.RateWarmup != 2*time.Second || o.EnqueueDuration != 3*time.Second {
		t.Errorf("quick options %+v", o)
	}
	if strings.Join(o.Scenarios, ",") != "rate,enqueue" || len(o.Rates) != 2 || o.Rates[1] != 10 || o.EnqueueProducers[1] != 8 {
		t.Errorf("lists: scenarios %q, rates %v, enqueue producers %v", o.Scenarios, o.Rates, o.EnqueueProducers)
	}
}
