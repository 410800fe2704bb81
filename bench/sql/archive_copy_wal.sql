-- WAL per job of complete_jobs and of the archive copy (docs/benchmarks.md,
-- "Analysis"): enqueues :n jobs (40-byte args, tags :tags, retention on),
-- claims them in batches of :b, completes each batch in one call, rotates
-- the queue ring and prunes the sealed slot, which copies the jobs to the
-- archive. Each phase is measured from a CHECKPOINT with
-- pg_current_wal_lsn(). Run it on a fresh database with the substrate
-- installed, once per version to compare (scripts/apply-sql.sh of each):
--   psql -X -q -d "$DSN" -v n=10000 -v b=100 -v tags='[]' -f bench/sql/archive_copy_wal.sql
-- With -v single=1 the jobs are enqueued one per transaction (awa.insert_job
-- and a commit each), so their ids are a block of 1,024 apart
-- (docs/storage.md, "Job ids"), as a single-insert producer's are; otherwise
-- in calls of 1,000 (dense ids).
\set ON_ERROR_STOP 1
\if :{?single}
\else
\set single 0
\endif
SELECT set_config('bench.batch', :'b', false), set_config('bench.n', :'n', false),
       set_config('bench.tags', :'tags', false), :single = 1 AS one_per_tx \gset
SELECT count(*) FROM awa.maintain_archive() \g /dev/null
\if :one_per_tx
DO $$
BEGIN
    FOR i IN 1 .. current_setting('bench.n')::int LOOP
        PERFORM awa.insert_job('wal.k', '{"payload": "0123456789012345678901234"}',
                               jsonb_build_object('queue', 'w', 'tags', current_setting('bench.tags')::jsonb));
        COMMIT;
    END LOOP;
END $$;
\else
SELECT count(*) FROM (SELECT awa.insert_jobs(array_fill('wal.k'::text, ARRAY[1000]),
                                             array_fill('{"payload": "0123456789012345678901234"}'::jsonb, ARRAY[1000]),
                                             array_fill(jsonb_build_object('queue', 'w', 'tags', :'tags'::jsonb), ARRAY[1000]))
                      FROM generate_series(1, :n / 1000)) AS x \g /dev/null
\endif
CREATE TEMP TABLE claimed AS SELECT 0 AS grp, c.* FROM awa.claimed_job c WHERE false;
DO $$
BEGIN
    FOR g IN 0 .. 1000000 LOOP
        INSERT INTO claimed SELECT g, c.* FROM awa.claim_ready_runtime('w', current_setting('bench.batch')::int) AS c;
        EXIT WHEN NOT FOUND;
    END LOOP;
END $$;
CHECKPOINT;
SELECT pg_current_wal_lsn() AS lsn0 \gset
DO $$
DECLARE
    g int;
BEGIN
    FOR g IN SELECT DISTINCT grp FROM claimed ORDER BY 1 LOOP
        PERFORM awa.complete_jobs(array_agg(id), array_agg(run_lease), array_agg(claim_slot), array_agg(receipt_id))
        FROM claimed WHERE grp = g;
    END LOOP;
END $$;
SELECT round((pg_current_wal_lsn() - :'lsn0'::pg_lsn) / (SELECT count(*) FROM claimed)::numeric, 1) AS complete_wal \gset
SELECT count(*) FROM awa.rotate_ring('queue') \g /dev/null
CHECKPOINT;
SELECT pg_current_wal_lsn() AS lsn1 \gset
SELECT outcome AS prune FROM awa.prune_ring('queue') \gset
SELECT :'prune' AS prune, (SELECT sum(n) FROM awa.archived_chunks WHERE queue = 'w') AS archived,
       (SELECT count(*) FROM awa.archived_chunks WHERE queue = 'w') AS chunks,
       :complete_wal AS complete_wal_per_job,
       round((pg_current_wal_lsn() - :'lsn1'::pg_lsn) / (SELECT count(*) FROM claimed)::numeric, 1) AS copy_wal_per_job;
