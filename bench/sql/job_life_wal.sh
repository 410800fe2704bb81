#!/bin/bash
# Where a job's WAL goes over its life (docs/benchmarks.md, Analysis, "WAL per
# job, record by record"). On a fresh database with the substrate installed
# (scripts/apply-sql.sh, or awa migrate up), history retention off, it runs
# three producer paths, each followed by the claim and completion of what it
# inserted, every phase from a CHECKPOINT (CHECKPOINT=0: none), and reads the
# WAL of each phase with pg_walinspect:
#   batch   N jobs by awa.insert_jobs, 1,000 per call, one transaction each
#   copy    N jobs by COPY into the job stage + awa.insert_staged_jobs,
#           10,000 per transaction
#   single  N/5 jobs by awa.insert_job, one transaction each
#   work    after each: claim_ready_runtime 100 at a time (one transaction),
#           complete_jobs of those (another), as the Go worker does
#   reclaim after the three: the queue ring rotated and its slot pruned
#           (TRUNCATE; with a retention, the archive copy first), per job
#           of all three paths
# Args are the bench's ({"n": i}, kind bench, queue default).
# RETENTION=on keeps the install's retention (completed jobs archived for
# 24 h); by default every retention is 0 (nothing archived).
# Prints, per phase: jobs, WAL B/job, of which full-page images, records/job;
# then per relation (partitions folded into their parent) and per record type.
# Autovacuum runs as it would (its VISIBLE, PRUNE and catalog records show in
# the phase they fall in; the per-relation table tells them apart).
# Usage: bench/sql/job_life_wal.sh DSN [N]    (N default 100000)
# pg_walinspect reads the phases' WAL after the run: keep it (wal_keep_size
# of a few GB on the bench cluster).
set -euo pipefail
DB=$1
N=${2:-100000}
CKPT=${CHECKPOINT:-1}
q() { psql -X -qAt -v ON_ERROR_STOP=1 "$DB" "$@"; }

if [ "${RETENTION:-off}" != on ]; then
  q -c "SELECT count(*) FROM awa.configure_archive('{\"completed_seconds\": 0, \"failed_seconds\": 0, \"cancelled_seconds\": 0}'::jsonb)" >/dev/null
fi
q <<'SQL'
CREATE EXTENSION IF NOT EXISTS pg_walinspect;
DROP TABLE IF EXISTS public.wal_phase, public.wal_rel;
CREATE TABLE public.wal_phase (ord serial, phase text, jobs int, lsn0 pg_lsn, lsn1 pg_lsn);
CREATE OR REPLACE PROCEDURE public.wal_batch(p_calls int, p_per int)
LANGUAGE plpgsql AS $$
BEGIN
    FOR c IN 1 .. p_calls LOOP
        PERFORM count(*) FROM awa.insert_jobs(array_fill('bench'::text, ARRAY[p_per]),
                                              ARRAY(SELECT jsonb_build_object('n', c * p_per + g) FROM generate_series(1, p_per) g));
        COMMIT;
    END LOOP;
END $$;
CREATE OR REPLACE PROCEDURE public.wal_single(p_n int)
LANGUAGE plpgsql AS $$
BEGIN
    FOR i IN 1 .. p_n LOOP
        PERFORM awa.insert_job('bench', jsonb_build_object('n', i));
        COMMIT;
    END LOOP;
END $$;
CREATE OR REPLACE PROCEDURE public.wal_work(p_per int)
LANGUAGE plpgsql AS $$
DECLARE
    v_ids bigint[]; v_leases bigint[]; v_slots int[]; v_receipts bigint[];
BEGIN
    LOOP
        SELECT array_agg(c.id), array_agg(c.run_lease), array_agg(c.claim_slot), array_agg(c.receipt_id)
        INTO v_ids, v_leases, v_slots, v_receipts
        FROM awa.claim_ready_runtime('default', p_per) AS c;
        COMMIT;
        EXIT WHEN v_ids IS NULL;
        PERFORM count(*) FROM awa.complete_jobs(v_ids, v_leases, v_slots, v_receipts);
        COMMIT;
    END LOOP;
END $$;
SQL

# Warm-up: lanes, caches and plans exist before anything is measured.
q -c "CALL public.wal_batch(2, 1000)" -c "CALL public.wal_single(10)" -c "CALL public.wal_work(100)"

phase() { # name jobs command...
  local name=$1 jobs=$2 l0 l1; shift 2
  [ "$CKPT" = 1 ] && q -c "CHECKPOINT"
  l0=$(q -c "SELECT pg_current_wal_insert_lsn()")
  "$@" >&2
  l1=$(q -c "SELECT pg_current_wal_insert_lsn()")
  q -c "INSERT INTO public.wal_phase (phase, jobs, lsn0, lsn1) VALUES ('$name', $jobs, '$l0', '$l1')"
}
copy_path() {
  local per=10000 t
  for ((t = 0; t < N / per; t++)); do
    {
      echo "BEGIN;"
      echo "SELECT awa.open_job_stage();"
      echo "COPY pg_temp.awa_job_stage (kind, args) FROM STDIN;"
      seq $((t * per + 1)) $((t * per + per)) | sed 's/.*/bench\t{"n": &}/'
      echo '\.'
      echo "SELECT count(*) FROM awa.insert_staged_jobs();"
      echo "COMMIT;"
    } | q >/dev/null
  done
}

phase "batch insert (insert_jobs x1000)" "$N" q -c "CALL public.wal_batch($N / 1000, 1000)"
phase "batch claim+complete (100)" "$N" q -c "CALL public.wal_work(100)"
phase "copy insert (stage, 10,000/tx)" "$N" copy_path
phase "copy claim+complete (100)" "$N" q -c "CALL public.wal_work(100)"
phase "single insert (insert_job)" "$((N / 5))" q -c "CALL public.wal_single($N / 5)"
phase "single claim+complete (100)" "$((N / 5))" q -c "CALL public.wal_work(100)"
# Relation names by file node, before prune's TRUNCATE gives the slot new ones.
q -c "CREATE TABLE public.wal_rel AS SELECT c.relfilenode AS node, c.oid::regclass::text AS rel FROM pg_class c WHERE c.relfilenode <> 0"
total=$((2 * N + N / 5 + 2010))
phase "reclaim (rotate, prune the slot)" "$total" q -c "SELECT count(*) FROM awa.rotate_ring('queue')" \
  -c "SELECT count(*) FROM awa.maintain_archive()" -c "SELECT outcome FROM awa.prune_ring('queue')"

q -F ' | ' <<'SQL'
\echo phase | jobs | B/job | FPI B/job | records/job
SELECT p.phase, p.jobs, round(pg_wal_lsn_diff(p.lsn1, p.lsn0) / p.jobs, 1),
       round(coalesce(sum(r.fpi_length), 0) / p.jobs, 1), round(count(r.*)::numeric / p.jobs, 2)
FROM public.wal_phase p
LEFT JOIN LATERAL pg_get_wal_records_info(p.lsn0, p.lsn1) r ON true
GROUP BY p.ord, p.phase, p.jobs, p.lsn0, p.lsn1 ORDER BY p.ord;
\echo
\echo phase | relation | record | B/job | FPI B/job | records/job
WITH w AS (
    SELECT p.ord, p.phase, p.jobs, w.resource_manager || '/' || w.record_type AS rec,
           w.record_length, w.fpi_length,
           (regexp_match(w.block_ref, 'rel \d+/\d+/(\d+)'))[1]::oid AS node
    FROM public.wal_phase p, pg_get_wal_records_info(p.lsn0, p.lsn1) w
), r AS (
    SELECT w.*, CASE WHEN w.node IS NULL THEN '-'
                     ELSE coalesce(regexp_replace(coalesce(n.rel, pg_filenode_relation(0, w.node)::text), '_\d+(_|$)', '\1'),
                                   'other') END AS rel
    FROM w LEFT JOIN public.wal_rel n ON n.node = w.node
)
SELECT phase, rel, rec, round(sum(record_length) / max(jobs)::numeric, 1) AS b_job,
       round(sum(fpi_length) / max(jobs)::numeric, 1) AS fpi_job,
       round(count(*) / max(jobs)::numeric, 3) AS recs_job
FROM r GROUP BY ord, phase, rel, rec
HAVING sum(record_length) / max(jobs)::numeric >= 0.5
ORDER BY ord, sum(record_length) DESC;
SQL
