#!/bin/bash
# WAL per job of the batch-shaped ready plane's prototype against today's
# plane, on one database (docs/batchready.md).
# On a fresh database with the substrate installed (scripts/apply-sql.sh),
# history retention off, it loads bench/sql/ready_batches_proto.sql and runs,
# into queue default, each phase from a CHECKPOINT:
#   A insert  N jobs by awa.insert_jobs (ready_entries), CALL jobs per call,
#             one transaction each
#   A work    claim_ready_runtime CLAIM at a time (one transaction),
#             complete_jobs of those (another), until the queue is empty
#   B insert  N jobs by awa_proto.insert_jobs (ready_batches), the same calls
#   B work    awa_proto.claim_ready CLAIM at a time, complete_jobs as above
# for (CALL, CLAIM) = (1000, 100) and then (10000, 1000), or the pairs
# SHAPES lists (SHAPES="10:10 100:100": calls of 10 claimed 10 at a time,
# then calls of 100; N must be a multiple of each CALL). Args are the bench's
# ({"n": i}, kind bench), which compress far better than most payloads:
# ARGS=md5 adds a 32-character hex string to each ({"n": i, "to": md5(i)}).
# Each phase's WAL is read back with pg_walinspect
# right after it (no wal_keep_size needed) and printed: B/job, records/job,
# then per relation (partitions and TOAST folded into their table) and
# record type.
# Usage: bench/sql/ready_batches_wal.sh DSN [N]    (N default 100000)
set -euo pipefail
DB=$1
N=${2:-100000}
q() { psql -X -qAt -v ON_ERROR_STOP=1 "$DB" "$@"; }

case "${ARGS:-bench}" in
  bench) ARGEXPR="jsonb_build_object('n', c * p_per + g)" ;;
  md5) ARGEXPR="jsonb_build_object('n', c * p_per + g, 'to', md5((c * p_per + g)::text))" ;;
  *) echo "ARGS must be bench or md5" >&2; exit 2 ;;
esac
q -c "SELECT count(*) FROM awa.configure_archive('{\"completed_seconds\": 0, \"failed_seconds\": 0, \"cancelled_seconds\": 0}'::jsonb)" >/dev/null
q -f "$(dirname "$0")/ready_batches_proto.sql" 2>/dev/null
q <<SQL
CREATE EXTENSION IF NOT EXISTS pg_walinspect;
DROP TABLE IF EXISTS public.rb_wal;
CREATE TABLE public.rb_wal (ord int, phase text, jobs int, rel text, rec text, bytes bigint, fpi bigint, records bigint);
-- p_plane: 'a' (awa.insert_jobs) or 'b' (awa_proto.insert_jobs).
CREATE OR REPLACE PROCEDURE public.rb_insert(p_plane text, p_calls int, p_per int)
LANGUAGE plpgsql AS \$\$
BEGIN
    FOR c IN 1 .. p_calls LOOP
        IF p_plane = 'a' THEN
            PERFORM count(*) FROM awa.insert_jobs(array_fill('bench'::text, ARRAY[p_per]),
                                                  ARRAY(SELECT $ARGEXPR FROM generate_series(1, p_per) g));
        ELSE
            PERFORM count(*) FROM awa_proto.insert_jobs(array_fill('bench'::text, ARRAY[p_per]),
                                                        ARRAY(SELECT $ARGEXPR FROM generate_series(1, p_per) g));
        END IF;
        COMMIT;
    END LOOP;
END \$\$;
CREATE OR REPLACE PROCEDURE public.rb_work(p_plane text, p_per int)
LANGUAGE plpgsql AS \$\$
DECLARE
    v_ids bigint[]; v_leases bigint[]; v_slots int[]; v_receipts bigint[];
BEGIN
    LOOP
        IF p_plane = 'a' THEN
            SELECT array_agg(c.id), array_agg(c.run_lease), array_agg(c.claim_slot), array_agg(c.receipt_id)
            INTO v_ids, v_leases, v_slots, v_receipts
            FROM awa.claim_ready_runtime('default', p_per) AS c;
        ELSE
            SELECT array_agg(c.id), array_agg(c.run_lease), array_agg(c.claim_slot), array_agg(c.receipt_id)
            INTO v_ids, v_leases, v_slots, v_receipts
            FROM awa_proto.claim_ready('default', p_per) AS c;
        END IF;
        COMMIT;
        EXIT WHEN v_ids IS NULL;
        PERFORM count(*) FROM awa.complete_jobs(v_ids, v_leases, v_slots, v_receipts);
        COMMIT;
    END LOOP;
END \$\$;
-- A phase's records by relation (partitions and TOAST folded into their
-- table) and record type, read while the WAL is still there.
CREATE OR REPLACE PROCEDURE public.rb_note(p_ord int, p_phase text, p_jobs int, p_lsn0 pg_lsn, p_lsn1 pg_lsn)
LANGUAGE plpgsql AS \$\$
BEGIN
    -- pg_walinspect reads flushed WAL only (the WAL writer flushes within
    -- wal_writer_delay).
    WHILE pg_current_wal_flush_lsn() < p_lsn1 LOOP
        PERFORM pg_sleep(0.05);
    END LOOP;
    -- Records grouped by file node first (a few groups), then named: a
    -- relation's TOAST table and its index as the table " (toast)".
    INSERT INTO public.rb_wal
    SELECT p_ord, p_phase, p_jobs, n.rel, w.rec, sum(w.bytes), sum(w.fpi), sum(w.records)
    FROM (SELECT w.resource_manager || '/' || w.record_type AS rec,
                 (regexp_match(w.block_ref, 'rel \d+/(\d+)/(\d+)'))[2]::oid AS node,
                 sum(w.record_length) AS bytes, sum(w.fpi_length) AS fpi, count(*) AS records
          FROM pg_get_wal_records_info(p_lsn0, p_lsn1) w
          -- This database's records, and those that name no relation
          -- (commits): another database's work in the window is left out.
          WHERE w.block_ref IS NULL OR w.block_ref !~ 'rel \d+/\d+/'
             OR (regexp_match(w.block_ref, 'rel \d+/(\d+)/'))[1]::oid
                = (SELECT d.oid FROM pg_database d WHERE d.datname = current_database())
          GROUP BY 1, 2) AS w
    CROSS JOIN LATERAL (
        SELECT CASE WHEN c.oid IS NULL THEN CASE WHEN w.node IS NULL THEN '-' ELSE 'other' END
                    ELSE regexp_replace(coalesce(t.oid, c.oid)::regclass::text, '_\d+$', '')
                         || CASE WHEN t.oid IS NOT NULL THEN ' (toast)' ELSE '' END END AS rel
        FROM (SELECT) AS one
        LEFT JOIN pg_class c ON c.oid = pg_filenode_relation(0, w.node)
        LEFT JOIN pg_class t ON t.reltoastrelid = coalesce((SELECT i.indrelid FROM pg_index i WHERE i.indexrelid = c.oid), c.oid)) AS n
    GROUP BY n.rel, w.rec;
END \$\$;
SQL

# Warm-up: lanes, caches and plans exist before anything is measured.
q -c "CALL public.rb_insert('a', 2, 1000)" -c "CALL public.rb_work('a', 100)" \
  -c "CALL public.rb_insert('b', 2, 1000)" -c "CALL public.rb_work('b', 100)"

ord=0
phase() { # name jobs command...
  local name=$1 jobs=$2 l0 l1; shift 2
  ord=$((ord + 1))
  q -c "CHECKPOINT"
  l0=$(q -c "SELECT pg_current_wal_insert_lsn()")
  "$@" >&2
  l1=$(q -c "SELECT pg_current_wal_insert_lsn()")
  q -c "CALL public.rb_note($ord, '$name', $jobs, '$l0', '$l1')"
}
for shape in ${SHAPES:-1000:100 10000:1000}; do
  per=${shape%:*} claim=${shape#*:}
  for plane in a b; do
    phase "$plane insert x$per" "$N" q -c "CALL public.rb_insert('$plane', $N / $per, $per)"
    phase "$plane claim $claim + complete" "$N" q -c "CALL public.rb_work('$plane', $claim)"
  done
done

q -F ' | ' <<'SQL'
\echo phase | jobs | B/job | FPI B/job | records/job
SELECT phase, max(jobs), round(sum(bytes)::numeric / max(jobs), 1), round(sum(fpi)::numeric / max(jobs), 1),
       round(sum(records)::numeric / max(jobs), 3)
FROM public.rb_wal GROUP BY ord, phase ORDER BY ord;
\echo
\echo phase | relation | record | B/job | records/job
SELECT phase, rel, rec, round(sum(bytes)::numeric / max(jobs), 2), round(sum(records)::numeric / max(jobs), 4)
FROM public.rb_wal GROUP BY ord, phase, rel, rec
HAVING sum(bytes)::numeric / max(jobs) >= 0.2
ORDER BY ord, sum(bytes) DESC;
SQL
