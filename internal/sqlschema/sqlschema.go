// Package sqlschema installs and addresses awa under a schema name other than
// "awa". The migrations (db/migrations, the first one frozen) and the sqlc
// queries name the schema literally, `awa.`; Rewrite turns such text into the
// text for another schema, token by token, and refuses any occurrence of the
// name it has no rule for. docs/releases.md, "Schema name", lists every
// occurrence and how it is scoped.
package sqlschema

import (
	"errors"
	"fmt"
	"io/fs"
	"regexp"
	"strconv"
	"strings"
	"testing/fstest"
)

// Default is the schema awa installs into unless told otherwise.
const Default = "awa"

// MaxLen is the longest schema name: a notification channel is
// "<schema>:<queue>", a queue name has up to 50 characters and PostgreSQL
// identifiers 63 bytes.
const MaxLen = 12

var validName = regexp.MustCompile(`^[a-z_][a-z0-9_]*$`)

// ErrInvalidName is returned for a schema name awa cannot install into.
var ErrInvalidName = errors.New("invalid awa schema name")

// Check returns nil when name can hold an install: 1 to MaxLen characters of
// [a-z0-9_], not starting with a digit nor with "pg_" (PostgreSQL reserves
// those). Names are written unquoted: an SQL reserved word fails the install's
// CREATE SCHEMA with a syntax error.
func Check(name string) error {
	if len(name) == 0 || len(name) > MaxLen || !validName.MatchString(name) || strings.HasPrefix(name, "pg_") {
		return fmt.Errorf("%w %q: want 1 to %d characters of [a-z0-9_], not starting with a digit or pg_",
			ErrInvalidName, name, MaxLen)
	}
	return nil
}

// VersionTable is the goose version table of the install in schema.
func VersionTable(schema string) string { return schema + "_goose_db_version" }

// LockTable is the table goose's table locker uses to let one migration run
// of the install in schema at a time: awa_goose_lock for schema awa.
func LockTable(schema string) string { return schema + "_goose_lock" }

// Role is the group role name of an install's role kind (producer, worker,
// admin): awa_producer for schema awa, jobs_b_producer for jobs_b.
func Role(schema, kind string) string { return schema + "_" + kind }

// ChannelPrefix is what an install's notification channels start with
// ("awa:" then the queue name).
func ChannelPrefix(schema string) string { return schema + ":" }

// JobStage is the name of the session's temporary COPY stage table
// (pg_temp.<schema>_job_stage).
func JobStage(schema string) string { return schema + "_job_stage" }

// The advisory-lock class keys of awa._lock_key for schema awa: the first key
// of PostgreSQL's two-key advisory locks, 0x41574101 ("AWA" 01) onwards. The
// low 4 bits number the classes, so a class added later (up to 15) is
// rewritten too.
const (
	defaultLockBase = 0x41574100
	firstLockKey    = defaultLockBase + 1
	lastLockKey     = defaultLockBase + 15
)

// lockKey is class key n (1..15) of awa._lock_key for another schema: a
// constant expression over the schema's name, which PostgreSQL folds when it
// inlines awa._lock_key into the caller's plan (so it costs what the literal
// costs). Two schemas share a class only when their hashes agree in all but
// the low 4 bits (1 in 2^28): their locks then contend, nothing more.
func lockKey(schema string, n int64) string {
	return "(hashtext('lock keys of schema " + schema + "') & -16) + " + strconv.FormatInt(n, 10)
}

// Rewrite returns sql (a migration, an sql/ file or a query) for an install
// in schema: each occurrence of the name awa in SQL text and in string
// literals (dynamic SQL, regclass and regnamespace strings, channel prefixes)
// is renamed by the rules of docs/releases.md, and the lock class keys of
// awa._lock_key become the schema's own. Comments are kept as they
// are, and so is the "awa: " prefix of error messages. An occurrence no rule
// covers (a new name starting with awa_) is an error, so a migration cannot
// grow an unscoped name unnoticed. For schema awa it returns sql unchanged.
func Rewrite(sql, schema string) (string, error) {
	if err := Check(schema); err != nil {
		return "", err
	}
	if schema == Default {
		return sql, nil
	}
	return rewriter{schema: schema, lockKey: func(n int64) string { return lockKey(schema, n) }}.run(sql)
}

// FS returns the *.sql files at the top of fsys rewritten for schema (fsys
// itself for awa).
func FS(fsys fs.FS, schema string) (fs.FS, error) {
	if err := Check(schema); err != nil {
		return nil, err
	}
	if schema == Default {
		return fsys, nil
	}
	names, err := fs.Glob(fsys, "*.sql")
	if err != nil {
		return nil, err
	}
	out := fstest.MapFS{}
	for _, name := range names {
		body, err := fs.ReadFile(fsys, name)
		if err != nil {
			return nil, err
		}
		text, err := Rewrite(string(body), schema)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		out[name] = &fstest.MapFile{Data: []byte(text), Mode: 0o444}
	}
	return out, nil
}

// TemplateVar is the text/template variable Template writes for the schema.
const TemplateVar = "$awa_schema"

// Template returns sql as a Go text/template (tern's migrations) whose
// variable TemplateVar holds the schema name: the same rules as Rewrite, with
// {{$awa_schema}} for the name and, for the lock keys, the literal of awa or
// the expression Rewrite writes. The template must define the variable
// before its first use.
func Template(sql string) (string, error) {
	if strings.Contains(sql, "{{") || strings.Contains(sql, "}}") {
		return "", errors.New("sqlschema: the SQL holds {{ or }}, which text/template would read")
	}
	v := "{{" + TemplateVar + "}}"
	return rewriter{schema: v, lockKey: func(n int64) string {
		return fmt.Sprintf(`{{if eq %s "awa"}}%d{{else}}%s{{end}}`, TemplateVar, defaultLockBase+n, lockKey(v, n))
	}}.run(sql)
}

type rewriter struct {
	schema  string
	lockKey func(n int64) string
}

func (r rewriter) run(sql string) (string, error) {
	var b strings.Builder
	b.Grow(len(sql) + len(sql)/16)
	if err := r.code(&b, sql); err != nil {
		return "", err
	}
	return b.String(), nil
}

// suffixes are the names built on the schema name: <schema>_<suffix>.
var suffixes = map[string]bool{
	"producer":  true, // roles
	"worker":    true,
	"admin":     true,
	"job_stage": true, // the session's temporary COPY stage
	"behind":    true, // prepared statements of awa._claimers_behind (awa_behind_<oid>_...)
}

// code copies SQL text, renaming words outside comments and descending into
// string literals and dollar-quoted bodies (function bodies, dynamic SQL).
func (r rewriter) code(b *strings.Builder, s string) error {
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '-' && strings.HasPrefix(s[i:], "--"):
			end := strings.IndexByte(s[i:], '\n')
			if end < 0 {
				end = len(s) - i
			}
			b.WriteString(s[i : i+end])
			i += end
		case c == '/' && strings.HasPrefix(s[i:], "/*"):
			end, err := blockCommentEnd(s, i)
			if err != nil {
				return err
			}
			b.WriteString(s[i:end])
			i = end
		case c == '\'':
			escapes := i > 0 && (s[i-1] == 'E' || s[i-1] == 'e') && (i < 2 || !isWord(s[i-2]))
			end, err := quoteEnd(s, i, escapes)
			if err != nil {
				return err
			}
			b.WriteByte('\'')
			if err := r.text(b, s[i+1:end-1]); err != nil {
				return err
			}
			b.WriteByte('\'')
			i = end
		case c == '"':
			end := strings.IndexByte(s[i+1:], '"')
			if end < 0 {
				return fmt.Errorf("sqlschema: unterminated quoted identifier at byte %d", i)
			}
			if q := s[i+1 : i+1+end]; strings.HasPrefix(strings.ToLower(q), "awa") {
				return fmt.Errorf("sqlschema: no rule for the quoted identifier %q", q)
			}
			b.WriteString(s[i : i+end+2])
			i += end + 2
		case c == '$' && (i == 0 || !isWord(s[i-1])):
			tag, ok := dollarTag(s[i:])
			if !ok {
				b.WriteByte(c)
				i++
				continue
			}
			body := i + len(tag)
			end := strings.Index(s[body:], tag)
			if end < 0 {
				return fmt.Errorf("sqlschema: unterminated %s string at byte %d", tag, i)
			}
			b.WriteString(tag)
			if err := r.code(b, s[body:body+end]); err != nil {
				return err
			}
			b.WriteString(tag)
			i = body + end + len(tag)
		case isWord(c):
			j := i
			for j < len(s) && isWord(s[j]) {
				j++
			}
			if err := r.word(b, s[i:j], s[j:], false); err != nil {
				return err
			}
			i = j
		default:
			b.WriteByte(c)
			i++
		}
	}
	return nil
}

// text rewrites the raw contents of a string literal: the same word rules as
// code (dynamic SQL, 'awa.x'::regclass, 'awa'::regnamespace, the channel
// prefix 'awa:'), except that "awa: " (the error-message prefix) stays.
// Quotes inside it are doubled, so no nested literal needs lexing.
func (r rewriter) text(b *strings.Builder, s string) error {
	for i := 0; i < len(s); {
		if !isWord(s[i]) {
			b.WriteByte(s[i])
			i++
			continue
		}
		j := i
		for j < len(s) && isWord(s[j]) {
			j++
		}
		if err := r.word(b, s[i:j], s[j:], true); err != nil {
			return err
		}
		i = j
	}
	return nil
}

// word writes one identifier-like word; rest is the text after it.
func (r rewriter) word(b *strings.Builder, w, rest string, inString bool) error {
	lw := strings.ToLower(w)
	switch {
	case lw == "awa":
		if inString && strings.HasPrefix(rest, ": ") {
			b.WriteString(w) // an error message's prefix
			return nil
		}
		b.WriteString(r.schema)
		return nil
	case strings.HasPrefix(lw, "awa_"):
		for suffix := range suffixes {
			if lw == "awa_"+suffix || strings.HasPrefix(lw, "awa_"+suffix+"_") {
				b.WriteString(r.schema + w[3:])
				return nil
			}
		}
		return fmt.Errorf("sqlschema: no rule for the name %q (say in internal/sqlschema how it is scoped)", w)
	case !inString && len(w) == 10 && w[0] == '1':
		if n, err := strconv.ParseInt(w, 10, 64); err == nil && n >= firstLockKey && n <= lastLockKey {
			b.WriteString(r.lockKey(n - defaultLockBase))
			return nil
		}
	}
	b.WriteString(w)
	return nil
}

func isWord(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// quoteEnd returns the index after the literal opening at s[i] == '\”.
func quoteEnd(s string, i int, backslashEscapes bool) (int, error) {
	for j := i + 1; j < len(s); j++ {
		switch s[j] {
		case '\\':
			if backslashEscapes {
				j++
			}
		case '\'':
			if j+1 < len(s) && s[j+1] == '\'' {
				j++
				continue
			}
			return j + 1, nil
		}
	}
	return 0, fmt.Errorf("sqlschema: unterminated string literal at byte %d", i)
}

// blockCommentEnd returns the index after the (nestable) comment at s[i:].
func blockCommentEnd(s string, i int) (int, error) {
	depth := 0
	for j := i; j+1 < len(s); j++ {
		switch s[j : j+2] {
		case "/*":
			depth++
			j++
		case "*/":
			depth--
			j++
			if depth == 0 {
				return j + 1, nil
			}
		}
	}
	return 0, fmt.Errorf("sqlschema: unterminated comment at byte %d", i)
}

// dollarTag returns the $tag$ opening s, if s opens a dollar-quoted string
// (not a positional parameter such as $1).
func dollarTag(s string) (string, bool) {
	for j := 1; j < len(s); j++ {
		c := s[j]
		if c == '$' {
			return s[:j+1], true
		}
		if !isWord(c) || j == 1 && c >= '0' && c <= '9' {
			return "", false
		}
	}
	return "", false
}
