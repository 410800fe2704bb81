#!/bin/bash
# WAL per job of the flow-control options (docs/benchmarks.md, Analysis,
# "Flow control"): on a fresh awa database (awa migrate up), for each queue
# option, 1,000 jobs inserted in batches of 100 (10 tenants), then claimed 10
# at a time and completed, each claim+complete in its own transaction.
# Prints queue | insert kB | claim+complete kB | completed jobs.
# Usage: bench/sql/flow_wal.sh DSN   (a database holding nothing else)
set -euo pipefail
DB=$1
run() {
  local q=$1 cfg=$2
  psql -qAt "$DB" -c "select queue from awa.configure_queue('$q', '$cfg')" >/dev/null
  local l0 l1 l2
  l0=$(psql -qAt "$DB" -c "checkpoint" -c "select pg_current_wal_insert_lsn()")
  for _ in $(seq 10); do
    echo "select count(*) from awa.insert_jobs(array_fill('k'::text, array[100]), array(select ('{\"tenant\":\"t' || (g % 10) || '\"}')::jsonb from generate_series(1, 100) g), array_fill('{\"queue\":\"$q\"}'::jsonb, array[100]));"
  done | psql -qAt "$DB" >/dev/null
  l1=$(psql -qAt "$DB" -c "select pg_current_wal_insert_lsn()")
  for _ in $(seq 100); do
    echo "with c as (select * from awa.claim_ready_runtime('$q', 10)) select count(*) from awa.complete_jobs((select array_agg(id) from c), (select array_agg(run_lease) from c), (select array_agg(claim_slot) from c), (select array_agg(receipt_id) from c));"
  done | psql -qAt "$DB" >/dev/null
  l2=$(psql -qAt "$DB" -c "select pg_current_wal_insert_lsn()")
  psql -qAt "$DB" -c "select '$q', round(pg_wal_lsn_diff('$l1', '$l0') / 1000.0), round(pg_wal_lsn_diff('$l2', '$l1') / 1000.0), (select count(*) from awa.jobs where queue = '$q' and state = 'completed')"
}
run plain '{}'
run rate '{"rate_limit": {"per_second": 1000000, "burst": 1000000}}'
run depth '{"max_depth": 100000}'
run keyed '{"concurrency": {"key": "args.tenant", "limit": 100}}'
