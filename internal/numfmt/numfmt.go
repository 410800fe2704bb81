// Package numfmt formats numbers for the reports of the demo (cmd/awa) and
// the bench (bench/benchkit), which print the same figures.
package numfmt

import (
	"strconv"
	"strings"
)

// Thousands formats n with a comma between groups of three digits: 1234567
// reads "1,234,567".
func Thousands(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	if neg {
		b.WriteByte('-')
	}
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}
