#!/bin/bash
# What a claim reads, per plane and against another checkout (batch plane
# step 3.2, docs/batchready.md): per pair, a fresh database with this
# checkout's sql/ and one with OTHER_SQL_DIR's, in alternating order; in each,
# JOBS jobs inserted by awa.insert_jobs in calls of 1,000 (the per-row plane),
# then CLAIMS claims of BATCH in one transaction, counting the blocks the
# claims fetched from awa's relations (pg_stat_get_xact_blocks_fetched:
# shared hits and reads, a count the machine's load does not move) and their
# in-server time. With BATCHROWS=1 this checkout's database gets its JOBS as
# batch rows of 1,000 instead (written as awa_test.batch_row does: nothing
# in the product writes them yet), and only this checkout runs.
# Prints one line per run: side, blocks per claim, ms per claim.
# Usage: bench/sql/claim_planes_ab.sh SERVER_DSN OTHER_SQL_DIR
# JOBS (50000), CLAIMS (200), BATCH (100), PAIRS (3), BATCHROWS (0).
set -euo pipefail
SERVER=${1:?usage: claim_planes_ab.sh SERVER_DSN OTHER_SQL_DIR}
OTHER=${2:?usage: claim_planes_ab.sh SERVER_DSN OTHER_SQL_DIR}
JOBS=${JOBS:-50000}; CLAIMS=${CLAIMS:-200}; BATCH=${BATCH:-100}; PAIRS=${PAIRS:-3}; BATCHROWS=${BATCHROWS:-0}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
q() { psql -X -qAt -v ON_ERROR_STOP=1 "$@"; }

run() { # side sql_dir
  local db=awa_cpab_$1 dsn
  dsn=$("$ROOT/scripts/dsn-db.sh" "$SERVER" "$db")
  q -d "$SERVER" -c "DROP DATABASE IF EXISTS $db WITH (FORCE)" -c "CREATE DATABASE $db" >/dev/null
  AWA_SQL_DIR=$2 "$ROOT/scripts/apply-sql.sh" "$dsn" >/dev/null
  if [ "$BATCHROWS" = 1 ]; then
    q -d "$dsn" -c "
      INSERT INTO awa.ready_batches (ready_slot, lane_id, first_seq, first_id, n, priority, queue, created_at,
                                     kind, max_attempts, item_args)
      SELECT awa._current_slot('queue'), l.ids[1], nextval(l.seqs[1]) * 1024,
             setval('awa.job_id_seq', nextval('awa.job_id_seq') + 1023) - 1023, 1000, 2, 'cpab', now(), 'k', 25,
             ARRAY(SELECT jsonb_build_object('n', i * 1000 + g) FROM generate_series(1, 1000) g)
      FROM awa._resolve_lanes('cpab', 2::smallint) AS l, generate_series(0, $JOBS / 1000 - 1) AS i" >/dev/null
  else
    q -d "$dsn" -c "DO \$\$ BEGIN FOR i IN 1 .. $JOBS / 1000 LOOP
      PERFORM count(*) FROM awa.insert_jobs(array_fill('k'::text, ARRAY[1000]),
        ARRAY(SELECT jsonb_build_object('n', i * 1000 + g) FROM generate_series(1, 1000) g),
        array_fill('{\"queue\": \"cpab\"}'::jsonb, ARRAY[1000]));
      COMMIT; END LOOP; END \$\$" >/dev/null
  fi
  q -d "$dsn" -c "VACUUM ANALYZE" >/dev/null
  q -d "$dsn" -c "
    CREATE FUNCTION pg_temp.blocks() RETURNS bigint LANGUAGE sql AS
      \$\$ SELECT sum(pg_stat_get_xact_blocks_fetched(c.oid))::bigint FROM pg_class c
          WHERE c.relnamespace = 'awa'::regnamespace OR c.relnamespace = 'pg_toast'::regnamespace \$\$;
    DO \$\$
    DECLARE b0 bigint; t0 timestamptz; n bigint := 0; k int;
    BEGIN
      PERFORM count(*) FROM awa.claim_ready_runtime('cpab', $BATCH);  -- plans made
      b0 := pg_temp.blocks(); t0 := clock_timestamp();
      FOR i IN 1 .. $CLAIMS LOOP
        SELECT count(*) INTO k FROM awa.claim_ready_runtime('cpab', $BATCH);
        n := n + k;
      END LOOP;
      RAISE NOTICE '$1 % jobs, % blocks/claim, % ms/claim', n, round((pg_temp.blocks() - b0)::numeric / $CLAIMS, 1),
        round(extract(epoch FROM clock_timestamp() - t0)::numeric * 1000 / $CLAIMS, 3);
    END \$\$" 2>&1 | sed -n 's/^.*NOTICE:  //p'
  q -d "$SERVER" -c "DROP DATABASE $db WITH (FORCE)" >/dev/null
}

for p in $(seq 1 "$PAIRS"); do
  if [ "$BATCHROWS" = 1 ]; then run this "$ROOT/sql"; continue; fi
  if [ $((p % 2)) = 1 ]; then run this "$ROOT/sql"; run other "$OTHER"; else run other "$OTHER"; run this "$ROOT/sql"; fi
done
