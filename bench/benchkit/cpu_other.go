//go:build !linux

package benchkit

import "time"

// selfCPU is not measured off Linux: the report shows 0 for the process.
func selfCPU() time.Duration { return 0 }
