package driver_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// anchor is GitHub's anchor of a markdown heading: lower case, punctuation
// other than hyphens and underscores dropped, spaces made hyphens.
func anchor(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(strings.TrimSpace(heading)) {
		switch {
		case r == ' ':
			b.WriteRune('-')
		case r == '-' || r == '_' || (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9'):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// TestEveryDocsSectionReferenceNamesAHeadingThatExists: the issue 7 contract
// lives in docs/storage.md (the isolation contract, the bound on every
// attempt, the producers' deadlock and its remedy), and the README, the
// other docs, the SQL headers and the Go comments point to its sections by
// link (#anchor) or by name (docs/storage.md, "Name"). A commit that drops
// a section leaves those pointers dangling: on main, "Every attempt ends",
// "Isolation levels" and "Known limits" had gone from docs/storage.md while
// README.md, docs/errors.md, docs/storage.md itself, sql/functions and
// driver/ still sent readers there.
func TestEveryDocsSectionReferenceNamesAHeadingThatExists(t *testing.T) {
	root := ".."
	headings := map[string]map[string]bool{} // file (slash path from root) -> anchors
	titles := map[string][]string{}          // file -> headings, lower case
	heading := regexp.MustCompile(`(?m)^#{1,6} +(.+?) *$`)
	read := func(rel string) string {
		b, err := os.ReadFile(filepath.Join(root, rel))
		if err != nil {
			t.Fatalf("read %s: %v", rel, err)
		}
		return string(b)
	}
	mds := []string{"README.md"}
	docs, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil || len(docs) == 0 {
		t.Fatalf("docs/*.md: %v %v", docs, err)
	}
	for _, d := range docs {
		mds = append(mds, "docs/"+filepath.Base(d))
	}
	for _, md := range mds {
		headings[md] = map[string]bool{}
		for _, m := range heading.FindAllStringSubmatch(read(md), -1) {
			headings[md][anchor(m[1])] = true
			titles[md] = append(titles[md], strings.ToLower(m[1]))
		}
	}
	var broken []string
	check := func(from, file, a, as string) {
		if hs, ok := headings[file]; ok && !hs[a] {
			broken = append(broken, from+": "+as)
		}
	}
	// Markdown links: (#anchor) in the same file, (path.md#anchor) relative to it.
	link := regexp.MustCompile(`\]\(([A-Za-z0-9_./-]*\.md)?#([a-z0-9_-]+)\)`)
	for _, md := range mds {
		for _, m := range link.FindAllStringSubmatch(read(md), -1) {
			target := md
			if m[1] != "" {
				target = filepath.ToSlash(filepath.Clean(filepath.Join(filepath.Dir(md), m[1])))
			}
			check(md, target, m[2], m[0])
		}
	}
	// Named sections in SQL and Go comments and in the docs: docs/X.md, "Name"
	// (a name may stop short of a heading's end: "Known limits"), the name
	// possibly wrapped over comment lines.
	named := regexp.MustCompile(`(docs/[a-z]+\.md),? "([^"]+)"`)
	wrap := regexp.MustCompile(`\s*\n\s*(--|//)?\s*`)
	namedOK := func(file, name string) bool {
		for _, h := range titles[file] {
			if strings.HasPrefix(h, strings.ToLower(name)) {
				return true
			}
		}
		return titles[file] == nil
	}
	for _, dir := range []string{"sql/functions", "driver", "internal", "cmd", "docs"} {
		err := filepath.WalkDir(filepath.Join(root, dir), func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !(strings.HasSuffix(p, ".sql") || strings.HasSuffix(p, ".go") || strings.HasSuffix(p, ".md")) ||
				strings.Contains(p, "dbsqlc") {
				return err
			}
			rel, _ := filepath.Rel(root, p)
			b, err := os.ReadFile(p)
			if err != nil || strings.HasSuffix(p, "docs_links_test.go") {
				return err
			}
			for _, m := range named.FindAllStringSubmatch(wrap.ReplaceAllString(string(b), " "), -1) {
				if !namedOK(m[1], m[2]) {
					broken = append(broken, filepath.ToSlash(rel)+": "+m[0])
				}
			}
			return nil
		})
		if err != nil {
			t.Fatalf("walk %s: %v", dir, err)
		}
	}
	for _, b := range broken {
		t.Errorf("names a section that does not exist: %s", b)
	}
}
