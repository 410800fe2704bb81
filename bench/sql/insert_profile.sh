#!/bin/bash
# What a one-job insert costs the server (docs/benchmarks.md, "Session 12"):
# CLIENTS pgbench clients each running `SELECT id FROM awa.insert_job('k')`
# (prepared, one job per transaction) for DURATION seconds, against a fresh database
# with this checkout's sql/ and, given OTHER_SQL_DIR, a second one with that
# sql/ (an older checkout), the two run alternately PAIRS times. Per run:
# pgbench's tps, insert_job's mean execution time from pg_stat_statements
# (server time per call, commit excluded), and the backends' CPU per call
# (utime+stime of the pgbench sessions from /proc, so the server runs on this
# machine). With TRACK=all it also prints the nested statements of the last
# run of each database (calls, plans, mean µs): a statement planned at every
# call shows plans close to calls.
# Usage: bench/sql/insert_profile.sh SERVER_DSN [OTHER_SQL_DIR]
# (a server with shared_preload_libraries=pg_stat_statements; it drops and
# creates the databases awa_insprof_b and awa_insprof_a). CLIENTS (4),
# DURATION (10), PAIRS (3), TRACK (top), QUERY (the statement) from the
# environment.
set -euo pipefail
SERVER=${1:?usage: insert_profile.sh SERVER_DSN [OTHER_SQL_DIR]}
OTHER=${2:-}
CLIENTS=${CLIENTS:-4}; DURATION=${DURATION:-10}; PAIRS=${PAIRS:-3}; TRACK=${TRACK:-top}
QUERY=${QUERY:-"SELECT id FROM awa.insert_job('k')"}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
q() { psql -X -qAt -v ON_ERROR_STOP=1 "$@"; }
TCK=$(getconf CLK_TCK)

setup() { # db sql_dir
  local dsn
  dsn=$("$ROOT/scripts/dsn-db.sh" "$SERVER" "$1")
  q -d "$SERVER" -c "DROP DATABASE IF EXISTS $1 WITH (FORCE)" -c "CREATE DATABASE $1" >/dev/null 2>&1
  AWA_SQL_DIR=$2 "$ROOT/scripts/apply-sql.sh" "$dsn" >/dev/null
  q -d "$dsn" -c "CREATE EXTENSION IF NOT EXISTS pg_stat_statements"
  q -d "$dsn" -c "$QUERY" >/dev/null # the queue's lanes
}

SCRIPT=$(mktemp)
trap 'rm -f "$SCRIPT"' EXIT
echo "$QUERY;" >"$SCRIPT"

# ticks of the backends of database $1 whose application is pgbench
# shellcheck source=bench/sql/backend_ticks.sh
. "$ROOT/bench/sql/backend_ticks.sh"
ticks() { backend_ticks "$SERVER" "$1"; }

run() { # label db [last]
  local dsn out tps calls mean
  dsn=$("$ROOT/scripts/dsn-db.sh" "$SERVER" "$2")
  q -d "$dsn" -c "SELECT pg_stat_statements_reset()" >/dev/null
  # One session per client: their CPU is sampled every 0.3 s and the
  # highest reading kept (the last before they end).
  local last
  last=$(mktemp)
  ( while sleep 0.3; do ticks "$2" >>"$last"; done ) &
  local sampler=$!
  out=$(PGOPTIONS="-c pg_stat_statements.track=$TRACK -c pg_stat_statements.track_planning=on" \
    pgbench -n -M prepared -c "$CLIENTS" -j "$CLIENTS" -T "$DURATION" -f "$SCRIPT" "$dsn" 2>&1)
  kill "$sampler" 2>/dev/null; wait "$sampler" 2>/dev/null || true
  tps=$(echo "$out" | sed -nE 's/^tps = ([0-9.]+).*/\1/p')
  read -r calls mean < <(q -d "$dsn" -F ' ' -c "SELECT calls, round((mean_exec_time * 1000)::numeric) FROM pg_stat_statements
    WHERE toplevel AND dbid = (SELECT oid FROM pg_database WHERE datname = current_database())
      AND query LIKE '%insert_job%' ORDER BY calls DESC LIMIT 1")
  local cpu
  cpu=$(awk -v c="$calls" -v k="$TCK" '$1 > t { t = $1 } END { printf "%.0f", t / k * 1e6 / c }' "$last")
  rm -f "$last"
  printf '%s tps=%s calls=%s mean_us=%s cpu_us_per_call=%s\n' "$1" "$tps" "$calls" "$mean" "$cpu"
  if [ "$TRACK" = all ] && [ "$3" = last ]; then nested "$2"; fi
}

nested() { # db: its statements (pg_stat_statements is per cluster: run() resets it)
  local dsn
  dsn=$("$ROOT/scripts/dsn-db.sh" "$SERVER" "$1")
  q -d "$dsn" -F ' | ' -c "SELECT calls, plans, round(mean_exec_time::numeric * 1000, 1) AS mean_us,
         left(regexp_replace(query, '\s+', ' ', 'g'), 120)
  FROM pg_stat_statements WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())
  ORDER BY total_exec_time + total_plan_time DESC LIMIT 25"
}

setup awa_insprof_b "$ROOT/sql"
[ -n "$OTHER" ] && setup awa_insprof_a "$OTHER"
for i in $(seq 1 "$PAIRS"); do
  last=$([ "$i" = "$PAIRS" ] && echo last || true)
  if [ -n "$OTHER" ]; then run "pair $i other" awa_insprof_a "$last"; fi
  run "pair $i this " awa_insprof_b "$last"
done
