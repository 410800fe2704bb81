package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/awa-queue/awa/bench/benchkit"
)

// riverSystems are the River configurations -river-config asks for.
func riverSystems(config string) ([]benchkit.System, error) {
	switch config {
	case "sweep":
		return []benchkit.System{riverSystem{}}, nil
	case "own":
		return []benchkit.System{riverOwnSystem{}}, nil
	case "both":
		return []benchkit.System{riverSystem{}, riverOwnSystem{}}, nil
	}
	return nil, fmt.Errorf("-river-config: want sweep, own or both, got %q", config)
}

// mergeFiles combines the results files paths into one report (see
// benchkit.Merge), written to out (when set) and as the markdown report md
// (when set).
func mergeFiles(paths []string, out, md string, stdout io.Writer) error {
	var reps []*benchkit.Report
	for _, p := range paths {
		p = strings.TrimSpace(p)
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		var rep benchkit.Report
		if err := json.Unmarshal(b, &rep); err != nil {
			return fmt.Errorf("%s: %w", p, err)
		}
		reps = append(reps, &rep)
	}
	rep, err := benchkit.Merge(reps...)
	if err != nil {
		return err
	}
	benchkit.PrintSummary(stdout, rep)
	if out != "" {
		if err := benchkit.WriteJSON(out, rep); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "\nresults: %s (%d runs from %d files)\n", out, len(rep.Runs), len(reps))
	}
	if md != "" {
		if err := benchkit.WriteMarkdown(md, rep); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "report:  %s\n", md)
	}
	return nil
}
