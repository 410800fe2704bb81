#!/bin/bash
# Where a claim and a completion spend their time, statement by statement
# (docs/benchmarks.md, "Session 12"): a fresh database with this checkout's
# sql/ (or OTHER_SQL_DIR's, to compare with an older checkout), JOBS jobs
# enqueued in batches of 10,000, then CLIENTS pgbench clients each claiming
# 100 jobs and completing them, TX times, with pg_stat_statements tracking
# nested statements and their planning. Prints pgbench's tps (one claim and
# one completion of BATCH jobs per transaction), the jobs completed, the
# in-server time of the two calls per 1,000 of them (the top-level
# statements' planning and execution: the claim's includes the script's
# quoting of its four arrays, the same for any sql/), the pgbench
# backends' CPU per 1,000 jobs (utime+stime from /proc, so the server runs on
# this machine: wall time on a loaded machine counts the waits for a core too)
# and the WAL per job (from a CHECKPOINT just before the run), then the top
# statements: calls,
# plans (a count near calls means a statement is planned at every call),
# planning ms, rows, execution ms, mean ms.
# Usage: bench/sql/claim_complete_profile.sh SERVER_DSN [OTHER_SQL_DIR]
# (a server with shared_preload_libraries=pg_stat_statements; it drops and
# creates the database awa_ccprof). JOBS (200000), CLIENTS (2), TX (1000),
# TOP (25), BATCH (jobs per claim, 100) from the environment.
set -euo pipefail
SERVER=${1:?usage: claim_complete_profile.sh SERVER_DSN [OTHER_SQL_DIR]}
OTHER=${2:-}
JOBS=${JOBS:-200000}; CLIENTS=${CLIENTS:-2}; TX=${TX:-1000}; TOP=${TOP:-25}; BATCH=${BATCH:-100}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
DB=awa_ccprof
DSN=$("$ROOT/scripts/dsn-db.sh" "$SERVER" "$DB")
q() { psql -X -qAt -v ON_ERROR_STOP=1 "$@"; }
TCK=$(getconf CLK_TCK)
# ticks of this database's pgbench backends
# shellcheck source=bench/sql/backend_ticks.sh
. "$ROOT/bench/sql/backend_ticks.sh"
q -d "$SERVER" -c "DROP DATABASE IF EXISTS $DB WITH (FORCE)" -c "CREATE DATABASE $DB" >/dev/null 2>&1
if [ -n "$OTHER" ]; then
  AWA_SQL_DIR=$OTHER "$ROOT/scripts/apply-sql.sh" "$DSN" >/dev/null
else
  "$ROOT/scripts/apply-sql.sh" "$DSN" >/dev/null
fi
q -d "$DSN" -c "CREATE EXTENSION IF NOT EXISTS pg_stat_statements"
for _ in $(seq 1 $(( (JOBS + 9999) / 10000 ))); do
  q -d "$DSN" -c "SELECT count(*) FROM awa.insert_jobs(array_fill('profile'::text, ARRAY[10000]))" >/dev/null
done
SCRIPT=$(mktemp)
LAST=$(mktemp)
trap 'rm -f "$SCRIPT" "$LAST"' EXIT
cat > "$SCRIPT" <<'SQL'
SELECT quote_literal(coalesce(array_agg(id), '{}')::text) AS ids, quote_literal(coalesce(array_agg(run_lease), '{}')::text) AS ls, quote_literal(coalesce(array_agg(claim_slot), '{}')::text) AS cs, quote_literal(coalesce(array_agg(receipt_id), '{}')::text) AS rs FROM awa.claim_ready_runtime('default', :batch) \gset
SELECT count(*) FROM awa.complete_jobs(:ids::bigint[], :ls::bigint[], :cs::int[], :rs::bigint[]);
SQL
q -d "$DSN" -c "SELECT pg_stat_statements_reset()" -c "CHECKPOINT" >/dev/null
LSN=$(q -d "$DSN" -c "SELECT pg_current_wal_lsn()")
# The sessions' CPU is sampled every 0.1 s and the highest reading kept (the
# last before they end).
( while sleep 0.1; do backend_ticks "$SERVER" "$DB" >>"$LAST"; done ) &
SAMPLER=$!
PGOPTIONS="-c pg_stat_statements.track=all -c pg_stat_statements.track_planning=on" \
  pgbench -n -D batch=$BATCH -c "$CLIENTS" -j "$CLIENTS" -t "$TX" -f "$SCRIPT" "$DSN" 2>&1 | grep -E "^tps|failed|error|abort"
kill "$SAMPLER" 2>/dev/null; wait "$SAMPLER" 2>/dev/null || true
CPU=$(awk -v k="$TCK" '$1 > t { t = $1 } END { printf "%.6f", t / k * 1000 }' "$LAST")
WAL=$(q -d "$DSN" -c "SELECT pg_current_wal_lsn() - '$LSN'::pg_lsn")
q -d "$DSN" -c "SELECT format('jobs %s; ms per 1,000 jobs: claim %s, complete %s, backend CPU %s; WAL %s B per job', j.n,
       round((1000 * c.ms / nullif(j.n, 0))::numeric, 3), round((1000 * f.ms / nullif(j.n, 0))::numeric, 3),
       round((1000 * $CPU / nullif(j.n, 0))::numeric, 3), round($WAL / nullif(j.n, 0)))
FROM (SELECT coalesce(sum(cardinality(job_ids)), 0) AS n FROM awa.done_completions) AS j,
     (SELECT sum(total_exec_time + total_plan_time) AS ms FROM pg_stat_statements
      WHERE toplevel AND query LIKE '%awa.claim_ready_runtime(%') AS c,
     (SELECT sum(total_exec_time + total_plan_time) AS ms FROM pg_stat_statements
      WHERE toplevel AND query LIKE '%awa.complete_jobs(%') AS f"
q -d "$DSN" -F ' | ' -c "SELECT calls, plans, round(total_plan_time::numeric) AS plan_ms, rows,
       round(total_exec_time::numeric) AS exec_ms, round(mean_exec_time::numeric, 3) AS mean_ms,
       left(regexp_replace(query, '\s+', ' ', 'g'), 110)
FROM pg_stat_statements ORDER BY total_exec_time + total_plan_time DESC LIMIT $TOP"
