package main

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/awa-queue/awa/driver"
)

// TestWorkHelpSaysItRunsTheDemoKindsOnly: `awa work -h` names every demo kind
// and points at the example of running workers from one's own binary.
func TestWorkHelpSaysItRunsTheDemoKindsOnly(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run(context.Background(), []string{"work", "-h"}, &out, &errb); code != 0 {
		t.Fatalf("awa work -h: exit %d: %s", code, errb.String())
	}
	help := strings.Join(strings.Fields(errb.String()), " ")
	for _, args := range []driver.JobArgs{SendEmailArgs{}, ProcessOrderArgs{}, CallWebhookArgs{}, ExportReportArgs{},
		WaitForStockArgs{}, SyncLegacyArgs{}} {
		if !strings.Contains(help, args.Kind()) {
			t.Errorf("awa work -h does not name the demo kind %s:\n%s", args.Kind(), errb.String())
		}
	}
	for _, s := range []string{"demo's job kinds only", "cannot load your Go handlers", "examples/worker"} {
		if !strings.Contains(help, s) {
			t.Errorf("awa work -h lacks %q:\n%s", s, errb.String())
		}
	}
}
