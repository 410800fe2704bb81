package numfmt

import (
	"math"
	"testing"
)

func TestThousands(t *testing.T) {
	for n, want := range map[int64]string{
		0: "0", 7: "7", 999: "999", 1000: "1,000", 35808: "35,808", 1234567: "1,234,567",
		-1: "-1", -1000: "-1,000", -123456: "-123,456", math.MinInt64: "-9,223,372,036,854,775,808",
	} {
		if got := Thousands(n); got != want {
			t.Errorf("Thousands(%d) = %q, want %q", n, got, want)
		}
	}
}
