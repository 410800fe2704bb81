#!/usr/bin/env bash
# Writes the goose migrations db/migrations/*.sql from sql/ (`make generate`),
# and the same migrations for tern (db/tern/*.sql, schema as a template value),
# following the release policy of docs/releases.md:
#
#   scripts/gen-migrations.sh            write db/migrations
#   scripts/gen-migrations.sh -check     fail if db/migrations is not what it would write
#   scripts/gen-migrations.sh release X.Y.Z   freeze the release (db/releases/vX.Y.Z)
#   AWA_ROOT=/path/to/tree ...           work on another tree (default: this repository)
#
# Released migrations (listed in the newest marker db/releases/v*) are frozen
# byte for byte; the one unreleased migration is the difference between sql/
# and that release (internal/tools/migrationgen says how it is written).
#
# This script checks the sources (and db/upgrade steps) first: each becomes goose
# statements (StatementBegin/End: a whole file in the first migration, one
# statement each in an upgrade), sent with a single parameterless Exec over the
# simple-query protocol, so DO blocks and dollar-quoted bodies work alike.
set -euo pipefail
export LC_ALL=C # byte-order globbing, whatever the caller's locale

HERE=$(cd "$(dirname "$0")/.." && pwd)
ROOT=${AWA_ROOT:-$HERE}
SQL_DIR=$ROOT/sql

die() { echo "gen-migrations: $*" >&2; exit 1; }

[ -d "$SQL_DIR" ] || die "no such directory: $SQL_DIR"
shopt -s nullglob
files=("$SQL_DIR"/substrate/*.sql "$SQL_DIR"/functions/*.sql "$ROOT"/db/upgrade/*.sql)
[ ${#files[@]} -gt 0 ] || die "no SQL files in $SQL_DIR/substrate or $SQL_DIR/functions"

# Reject what would run under psql but not under goose (or vice versa).
bad=0
for f in "${files[@]}"; do
  # goose reads any '--' line that mentions +goose as an annotation.
  if grep -n -- '^[[:space:]]*--.*+goose' "$f" >&2; then echo "  ^ $f: '+goose' in a comment line" >&2; bad=1; fi
  # psql meta-commands (\set, \i, ...) mean nothing to goose.
  # shellcheck disable=SC1003 # a literal backslash, not an escaped quote
  if grep -n '^[[:space:]]*\\' "$f" >&2; then echo "  ^ $f: psql meta-command" >&2; bad=1; fi
  # Both runners wrap everything in one transaction; files must not end it.
  # (Column 0 only: an indented COMMIT inside a procedure body is fine.)
  if grep -inE '^((begin|commit|rollback|abort)([[:space:]]+(work|transaction))?|end[[:space:]]+(work|transaction)|start[[:space:]]+transaction[^;]*)[[:space:]]*;' "$f" >&2; then
    echo "  ^ $f: top-level transaction control" >&2; bad=1
  fi
  # goose would send a comment-only block as an empty statement.
  grep -qvE '^[[:space:]]*(--.*)?$' "$f" || { echo "$f: no SQL in file" >&2; bad=1; }
done
[ $bad = 0 ] || die "fix the files above"

cd "$HERE" && exec go run ./internal/tools/migrationgen -root "$ROOT" "$@"
