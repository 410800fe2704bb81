package driver

import (
	"os"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// TestEveryDocumentedSQLStateMapsToASentinel: the table of docs/errors.md
// and sentinelBySQLState list the same AW codes, so a code added on one side
// only (AW022 came with the callbacks) fails here, not in a user's errors.Is.
func TestEveryDocumentedSQLStateMapsToASentinel(t *testing.T) {
	b, err := os.ReadFile("../docs/errors.md")
	if err != nil {
		t.Fatal(err)
	}
	var documented []string
	for _, m := range regexp.MustCompile("(?m)^\\| `(AW[0-9A-Z]{3})` \\|").FindAllStringSubmatch(string(b), -1) {
		documented = append(documented, m[1])
	}
	var mapped []string
	for code := range sentinelBySQLState {
		mapped = append(mapped, code)
	}
	sort.Strings(documented)
	sort.Strings(mapped)
	if strings.Join(documented, " ") != strings.Join(mapped, " ") {
		t.Fatalf("docs/errors.md documents %v; sentinelBySQLState maps %v", documented, mapped)
	}
	if len(documented) < 12 {
		t.Fatalf("docs/errors.md table: only %v found", documented)
	}
}
