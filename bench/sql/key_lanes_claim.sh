#!/bin/bash
# Claim cost on a keyed queue against its number of idle keys
# (docs/benchmarks.md, Analysis, "Flow control"): four databases, this
# checkout's sql/ (after) and OTHER_SQL_DIR's (before, e.g. an older
# checkout's sql/), each with 10 or 10,000 idle keys (one job each, claimed
# and completed; on "after" then retired, as the leader does after a minute)
# and 5 busy keys of 4,000 jobs. Rounds of 20 claims of 10 (each completed)
# per database, in a rotating order, each round a new session; per round the
# claim statement's calls, mean time and buffers (hit + read) per call from
# pg_stat_statements (track = all: the claim is nested in bench_round).
# Prints every round, then per database the median ms/call and buffers/call.
# Usage: bench/sql/key_lanes_claim.sh SERVER_DSN OTHER_SQL_DIR [ROUNDS]
# (a server with shared_preload_libraries=pg_stat_statements; it drops and
# creates databases kl_before10, kl_before10k, kl_after10, kl_after10k).
set -euo pipefail
SERVER=${1:?usage: key_lanes_claim.sh SERVER_DSN OTHER_SQL_DIR [ROUNDS]}
OTHER=${2:?usage: key_lanes_claim.sh SERVER_DSN OTHER_SQL_DIR [ROUNDS]}
ROUNDS=${3:-10}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
dsn() { "$ROOT/scripts/dsn-db.sh" "$SERVER" "$1"; }
q() { psql -X -qAt -v ON_ERROR_STOP=1 "$@"; }
dbs=(kl_before10 kl_after10 kl_before10k kl_after10k)
q -d "$SERVER" -c "CREATE EXTENSION IF NOT EXISTS pg_stat_statements" >/dev/null
for db in "${dbs[@]}"; do
  q -d "$SERVER" -c "DROP DATABASE IF EXISTS $db WITH (FORCE)" -c "CREATE DATABASE $db" 2>/dev/null
  case $db in *before*) AWA_SQL_DIR=$OTHER "$ROOT/scripts/apply-sql.sh" "$(dsn $db)" >/dev/null 2>&1 ;;
              *) "$ROOT/scripts/apply-sql.sh" "$(dsn $db)" >/dev/null 2>&1 ;; esac
  n=10; [[ $db == *10k ]] && n=10000
  q -d "$(dsn $db)" -v n=$n >/dev/null <<'SQL'
select * from awa.configure_queue('kq', '{"concurrency": {"key": "args.tenant", "limit": 5, "limits":
  {"busy0": 100000, "busy1": 100000, "busy2": 100000, "busy3": 100000, "busy4": 100000}}}');
select count(*) from awa.insert_jobs(array_fill('k'::text, array[:n]),
  array(select jsonb_build_object('tenant', 'idle' || g) from generate_series(1, :n) g),
  array_fill('{"queue":"kq"}'::jsonb, array[:n]));
do $$
declare v_n int;
begin
  loop
    with c as (select * from awa.claim_ready_runtime('kq', 1024))
    select count(*) into v_n from c, lateral awa.complete_jobs(array[c.id], array[c.run_lease], array[c.claim_slot], array[c.receipt_id]);
    exit when v_n = 0;
  end loop;
end $$;
do $$
begin
  if to_regproc('awa.retire_idle_key_lanes') is not null then
    perform count(*) from awa.retire_idle_key_lanes(100000, interval '0');
  end if;
end $$;
select count(*) from awa.insert_jobs(array_fill('k'::text, array[10000]),
  array(select jsonb_build_object('tenant', 'busy' || (g % 5)) from generate_series(1, 10000) g),
  array_fill('{"queue":"kq"}'::jsonb, array[10000]));
\g
create function public.bench_round(p_calls int) returns void language plpgsql as $f$
declare v_ids bigint[]; v_l bigint[]; v_s int[]; v_r bigint[];
begin
  for i in 1 .. p_calls loop
    select array_agg(x.id), array_agg(x.run_lease), array_agg(x.claim_slot), array_agg(x.receipt_id)
      into v_ids, v_l, v_s, v_r from awa.claim_ready_runtime('kq', 10) x;
    perform awa.complete_jobs(v_ids, v_l, v_s, v_r);
  end loop;
end $f$;
vacuum analyze;
SQL
done
stat() {
  q -d "$SERVER" -c "select coalesce(sum(calls),0) || ' ' || coalesce(sum(total_exec_time),0) || ' ' || coalesce(sum(shared_blks_hit + shared_blks_read),0)
    from pg_stat_statements s join pg_database d on d.oid = s.dbid
    where d.datname = '$1' and s.query ilike 'select array_agg(x.id)%claim_ready_runtime%'"
}
out=$(mktemp)
trap 'rm -f "$out"' EXIT
for r in $(seq 1 "$ROUNDS"); do
  for i in 0 1 2 3; do
    db=${dbs[$(( (i + r) % 4 ))]}
    read -r c0 t0 b0 <<<"$(stat $db)"
    q -d "$(dsn $db)" -c "set pg_stat_statements.track = 'all'" -c "select public.bench_round(20)" >/dev/null
    read -r c1 t1 b1 <<<"$(stat $db)"
    awk -v r=$r -v db=$db -v c=$((c1 - c0)) -v t="$t0 $t1" -v b="$b0 $b1" 'BEGIN {
      split(t, tt, " "); split(b, bb, " ");
      printf "%s %s calls=%d ms_per_call=%.3f buffers_per_call=%.1f\n", r, db, c, (tt[2] - tt[1]) / c, (bb[2] - bb[1]) / c }' | tee -a "$out"
  done
done
median() { sort -n | awk '{ v[NR] = $1 } END { printf "%.3f", (v[int((NR + 1) / 2)] + v[int(NR / 2) + 1]) / 2 }'; }
for db in "${dbs[@]}"; do
  t=$(grep " $db " "$out" | sed 's/.*ms_per_call=\([0-9.]*\).*/\1/' | median)
  b=$(grep " $db " "$out" | sed 's/.*buffers_per_call=\([0-9.]*\).*/\1/' | median)
  echo "$db: median $t ms/call, $b buffers/call ($(grep -c " $db " "$out") rounds)"
done
