package main

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"regexp"
	"strings"
)

// stmt is one top-level SQL statement of a source file.
type stmt struct {
	text string // as written, from its first token to its ';' (comments inside kept)
	norm string // comments removed, whitespace runs collapsed: what a change is judged on
	kind string // routine, view, privilege, comment or ddl
	name string // routine, view: the qualified name; comment: its target
	head string // routine: FUNCTION|PROCEDURE name(params) RETURNS ..., normalized
	drop string // routine: the DROP statement for this signature
}

func (s stmt) hash() string {
	h := sha256.Sum256([]byte(s.norm))
	return hex.EncodeToString(h[:8])
}

// splitSQL cuts src into statements at top-level semicolons, skipping
// comments, quoted strings and identifiers, and dollar-quoted bodies.
func splitSQL(src string) ([]stmt, error) {
	var out []stmt
	var norm strings.Builder
	start := -1 // byte offset of the current statement's first token
	space := false
	emit := func(b string) {
		if space && norm.Len() > 0 {
			norm.WriteByte(' ')
		}
		space = false
		norm.WriteString(b)
	}
	for i := 0; i < len(src); {
		c := src[i]
		switch {
		case c == '-' && strings.HasPrefix(src[i:], "--"):
			j := strings.IndexByte(src[i:], '\n')
			if j < 0 {
				j = len(src) - i
			}
			i += j
			space = true
			continue
		case c == '/' && strings.HasPrefix(src[i:], "/*"):
			j := strings.Index(src[i+2:], "*/")
			if j < 0 {
				return nil, fmt.Errorf("unterminated /* comment")
			}
			i += j + 4
			space = true
			continue
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
			space = true
			continue
		}
		if start < 0 {
			start = i
		}
		switch {
		case c == ';':
			emit(";")
			out = append(out, stmt{text: src[start : i+1], norm: norm.String()})
			norm.Reset()
			start, space = -1, false
			i++
		case c == '\'' || c == '"':
			j := i + 1
			for {
				k := strings.IndexByte(src[j:], c)
				if k < 0 {
					return nil, fmt.Errorf("unterminated %c quote", c)
				}
				j += k + 1
				if j < len(src) && src[j] == c { // doubled quote
					j++
					continue
				}
				break
			}
			emit(src[i:j])
			i = j
		case c == '$':
			if tag := dollarTag.FindString(src[i:]); tag != "" {
				k := strings.Index(src[i+len(tag):], tag)
				if k < 0 {
					return nil, fmt.Errorf("unterminated %s body", tag)
				}
				j := i + len(tag) + k + len(tag)
				emit(src[i:j]) // bodies are compared as written
				i = j
				continue
			}
			emit("$")
			i++
		default:
			j := i + 1
			for j < len(src) && !strings.ContainsRune(" \t\r\n;'\"$-/", rune(src[j])) {
				j++
			}
			emit(src[i:j])
			i = j
		}
	}
	if start >= 0 {
		return nil, fmt.Errorf("statement without a final ';': %.60q", src[start:])
	}
	for k := range out {
		classify(&out[k])
	}
	return out, nil
}

var (
	dollarTag  = regexp.MustCompile(`^\$[A-Za-z_]*\$`)
	reRoutine  = regexp.MustCompile(`(?i)^CREATE (?:OR REPLACE )?(FUNCTION|PROCEDURE) ([a-z_][a-z0-9_.]*) ?\(`)
	reView     = regexp.MustCompile(`(?i)^CREATE (?:OR REPLACE )?VIEW ([a-z_][a-z0-9_.]*)`)
	rePriv     = regexp.MustCompile(`(?i)^(GRANT|REVOKE|ALTER DEFAULT PRIVILEGES) `)
	reComment  = regexp.MustCompile(`(?i)^COMMENT ON (?:FUNCTION|PROCEDURE|VIEW|TABLE|TYPE|SCHEMA|SEQUENCE|INDEX|COLUMN) ([a-z_][a-z0-9_.]*)`)
	reAttrWord = regexp.MustCompile(`(?i)^(LANGUAGE|AS|IMMUTABLE|STABLE|VOLATILE|STRICT|CALLED|SECURITY|PARALLEL|SET|COST|ROWS|LEAKPROOF|NOT|WINDOW|SUPPORT|TRANSFORM|BEGIN|RETURN|EXTERNAL)\b`)
	reDefault  = regexp.MustCompile(`(?i)\s+(DEFAULT\s|=).*$`)
)

func classify(s *stmt) {
	n := s.norm
	if m := reRoutine.FindStringSubmatch(n); m != nil {
		s.kind, s.name = "routine", strings.ToLower(m[2])
		open := len(m[0]) - 1
		params, rest, ok := balanced(n[open:])
		if !ok {
			s.kind = "ddl"
			return
		}
		// RETURNS ... runs until the first routine attribute at depth 0.
		rest = strings.TrimSpace(rest)
		ret := rest
		topLevel(rest, func(i, depth int) bool {
			if depth == 0 && (i == 0 || rest[i] == ' ') && reAttrWord.MatchString(strings.TrimLeft(rest[i:], " ")) {
				ret = strings.TrimSpace(rest[:i])
				return false
			}
			return true
		})
		what := strings.ToUpper(m[1])
		s.head = fmt.Sprintf("%s %s(%s) %s", what, s.name, params, ret)
		var args []string
		for _, p := range splitTop(params) {
			args = append(args, reDefault.ReplaceAllString(strings.TrimSpace(p), ""))
		}
		s.drop = fmt.Sprintf("DROP %s %s(%s);", what, s.name, strings.Join(args, ", "))
		return
	}
	if m := reView.FindStringSubmatch(n); m != nil {
		s.kind, s.name = "view", strings.ToLower(m[1])
		return
	}
	if rePriv.MatchString(n) {
		s.kind = "privilege"
		return
	}
	if m := reComment.FindStringSubmatch(n); m != nil {
		s.kind, s.name = "comment", strings.ToLower(m[1])
		return
	}
	s.kind = "ddl"
}

// topLevel calls visit with each byte of s outside quoted strings and its
// parenthesis depth (after an opening parenthesis, before a closing one);
// visit returns false to stop.
func topLevel(s string, visit func(i, depth int) bool) {
	depth := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\'':
			if j := strings.IndexByte(s[i+1:], '\''); j >= 0 {
				i += j + 1
			}
			continue
		case '(':
			depth++
		case ')':
			depth--
		}
		if !visit(i, depth) {
			return
		}
	}
}

// balanced returns the text inside the parenthesis s starts with, and what
// follows it.
func balanced(s string) (inside, rest string, ok bool) {
	topLevel(s, func(i, depth int) bool {
		if s[i] == ')' && depth == 0 {
			inside, rest, ok = strings.TrimSpace(s[1:i]), s[i+1:], true
			return false
		}
		return true
	})
	return inside, rest, ok
}

// splitTop splits s at commas outside parentheses and quotes.
func splitTop(s string) []string {
	if s == "" {
		return nil
	}
	var out []string
	last := 0
	topLevel(s, func(i, depth int) bool {
		if s[i] == ',' && depth == 0 {
			out = append(out, s[last:i])
			last = i + 1
		}
		return true
	})
	return append(out, s[last:])
}

// asReplace turns a routine's or view's CREATE into CREATE OR REPLACE.
var reCreate = regexp.MustCompile(`(?i)^CREATE\s+(?:OR\s+REPLACE\s+)?(FUNCTION|PROCEDURE|VIEW)\b`)

func asReplace(text string) string {
	return reCreate.ReplaceAllString(text, "CREATE OR REPLACE $1")
}
