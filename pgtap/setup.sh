#!/usr/bin/env bash
# Builds the pgTAP test database:  pgtap/setup.sh DSN [DB]
# DSN is any database on the target server (used for DROP/CREATE DATABASE);
# DB defaults to awa_pgtap. Recreates DB, installs pgTAP, applies sql/ (psql,
# via scripts/apply-sql.sh; honours AWA_SQL_DIR) and loads pgtap/helpers.sql.
# Prints the test database's DSN on stdout.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
DSN=${1:?usage: pgtap/setup.sh DSN [DB]}
DB=${2:-awa_pgtap}
TEST_DSN=$("$ROOT/scripts/dsn-db.sh" "$DSN" "$DB")

psql() { PGOPTIONS="${PGOPTIONS:-} -c client_min_messages=warning" command psql -X -q -v ON_ERROR_STOP=1 "$@"; }

# WITH (FORCE): a previous run killed mid-test may have left sessions behind.
psql -d "$DSN" -c "DROP DATABASE IF EXISTS $DB WITH (FORCE)" -c "CREATE DATABASE $DB"
psql -d "$TEST_DSN" -c 'CREATE EXTENSION pgtap' \
  || { echo "pgtap/setup.sh: pgTAP is not installed on the server (make tools)" >&2; exit 1; }
"$ROOT/scripts/apply-sql.sh" "$TEST_DSN"
psql -d "$TEST_DSN" --single-transaction -f "$ROOT/pgtap/helpers.sql"
# No autovacuum on the test database's tables: every file rolls its writes
# back, so autovacuum keeps visiting the ring's children between files, and
# its lock on a slot's table made a prune a test expects to end `pruned`
# (its bound is 20 ms) end skipped_blocked now and then. Tests that are about
# another session's lock take it themselves (awa_test.other_session_locks).
psql -d "$TEST_DSN" <<'SQL'
DO $$
DECLARE r regclass;
BEGIN
  FOR r IN SELECT c.oid::regclass FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
           WHERE n.nspname = 'awa' AND c.relkind = 'r' LOOP
    EXECUTE format('ALTER TABLE %s SET (autovacuum_enabled = off, toast.autovacuum_enabled = off)', r);
  END LOOP;
END
$$;
SQL
echo "$TEST_DSN"
