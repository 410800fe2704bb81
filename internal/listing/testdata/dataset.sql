-- The listings' data set (internal/listing, bench/sql/listing_latency.sql):
-- over 1,000,000 archived jobs and 100,000 live ones, built set-based. One
-- statement per paragraph (the Go test runs them one by one); psql runs the
-- file as it is. Needs a fresh database with the substrate installed.

-- The archive: a cohort per hour of the coming week, then a week of job ids
-- (4,800,000) of which the default retentions keep the completed ones of the
-- last 24 h and the failed and cancelled ones of the last 7 days, in queues
-- q0..q9 and kinds kind_0..kind_19, a fifth tagged (t0..t49, and u0..u6 on a
-- twentieth), in chunks with their rows in the tags table, as the copy
-- writes them.
SELECT count(awa._create_archive_cohort(g))
FROM generate_series(date_trunc('hour', now(), 'UTC'), date_trunc('hour', now() + interval '7 days 1 hour', 'UTC'),
                     interval '1 hour') AS g;

CREATE TEMP TABLE archived AS
SELECT s.fin + CASE WHEN s.st = 'completed' THEN interval '24 hours' ELSE interval '7 days' END AS expires_at,
       s.i AS job_id, s.st::awa.job_state AS state, 'q' || (s.i % 10) AS queue, 'kind_' || ((s.i * 7) % 20) AS kind,
       jsonb_build_object('n', s.i) AS args,
       CASE WHEN s.i % 20 = 0 THEN ARRAY['t' || (s.i % 50), 'u' || (s.i % 7)]
            WHEN s.i % 5 = 0 THEN ARRAY['t' || (s.i % 50)] ELSE '{}' END AS tags,
       CASE WHEN s.st = 'completed' THEN NULL ELSE '[{"error": "boom"}]'::jsonb END AS errors, s.cr, s.fin
FROM (SELECT i, now() - interval '7 days' + (i / 4800000.0) * interval '7 days' AS cr,
             now() - interval '7 days' + (i / 4800000.0) * interval '7 days' + (i % 11) * interval '1 second' AS fin,
             CASE WHEN hashint4(i) % 100 BETWEEN -6 AND 6 THEN 'failed'
                  WHEN hashint4(i) % 100 IN (7, 8, -7) THEN 'cancelled' ELSE 'completed' END AS st
      FROM generate_series(1, 4800000) AS i) AS s
WHERE (s.st = 'completed' AND s.fin > now() - interval '23 hours 58 minutes')
   OR (s.st <> 'completed' AND s.fin > now() - interval '6 days 23 hours 58 minutes');

-- In chunks as the copy cuts them (awa._archive_slot): by state, queue,
-- kind, cohort hour and aligned id block, at most 1,000 jobs each.
INSERT INTO awa.archived_chunks (expires_at, state, queue, kind, chunk_id, min_job_id, max_job_id, n, job_ids,
                                 run_leases, attempts, max_attempts, priorities, args, tags, metadata, errors,
                                 created_ats, run_ats, finalized_ats)
SELECT max(c.expires_at), c.state, c.queue, c.kind, nextval('awa.archive_chunk_id_seq'), min(c.job_id), max(c.job_id),
       count(*), array_agg(c.job_id ORDER BY c.job_id), array_agg(1::bigint ORDER BY c.job_id),
       array_agg(1 ORDER BY c.job_id), array_agg(25 ORDER BY c.job_id), array_agg(2::smallint ORDER BY c.job_id),
       array_agg(c.args ORDER BY c.job_id),
       CASE WHEN bool_or(cardinality(c.tags) > 0) THEN array_agg(c.tags::text ORDER BY c.job_id) END,
       array_agg('{}'::jsonb ORDER BY c.job_id), array_agg(c.errors ORDER BY c.job_id),
       array_agg(c.cr ORDER BY c.job_id), array_agg(c.cr ORDER BY c.job_id), array_agg(c.fin ORDER BY c.job_id)
FROM (SELECT a.*, date_trunc('hour', a.expires_at, 'UTC') AS cohort, a.job_id / awa._archive_span() AS block,
             (row_number() OVER (PARTITION BY a.state, a.queue, a.kind, date_trunc('hour', a.expires_at, 'UTC'),
                                              a.job_id / awa._archive_span() ORDER BY a.job_id) - 1) / 1000 AS part
      FROM archived a) AS c
GROUP BY c.state, c.queue, c.kind, c.cohort, c.block, c.part;

INSERT INTO awa.archived_tags (expires_at, tag, state, chunk_id, min_job_id, max_job_id, job_ids)
SELECT c.expires_at, g.tag, c.state, c.chunk_id, min(u.job_id), max(u.job_id), array_agg(DISTINCT u.job_id)
FROM awa.archived_chunks c
CROSS JOIN LATERAL unnest(c.job_ids, c.tags) AS u (job_id, tags)
CROSS JOIN LATERAL unnest(u.tags::text[]) AS g (tag)
WHERE c.tags IS NOT NULL
GROUP BY c.expires_at, c.state, c.chunk_id, g.tag;

DROP TABLE archived;

-- The live jobs, ids after the archive's: 10 rounds, each enqueues 10,000
-- through awa.insert_jobs in queues q0..q4 (a tenth scheduled a day ahead, a
-- tenth tagged), then claims 1,000 of each queue: 600 completed (compact
-- history in the queue ring), 20 failed, 20 retried, 10 cancelled, the rest
-- left running; then the queue and claim rings rotate, so the live jobs
-- spread over slots.
DO $$
DECLARE
    v_n bigint;
BEGIN
    PERFORM setval('awa.job_id_seq', 5000000);
    FOR v_round IN 1 .. 10 LOOP
        PERFORM awa.insert_jobs(
            ARRAY(SELECT 'kind_' || (g % 20) FROM generate_series(1, 1000) AS g),
            ARRAY(SELECT jsonb_build_object('n', g) FROM generate_series(1, 1000) AS g),
            ARRAY(SELECT jsonb_build_object('queue', 'q' || (g % 5),
                                            'tags', CASE WHEN g % 10 = 0 THEN jsonb_build_array('t' || (g % 50)) ELSE '[]' END)
                         || CASE WHEN g % 10 = 3
                                 THEN jsonb_build_object('run_at', to_char(now() + interval '1 day', 'YYYY-MM-DD"T"HH24:MI:SS"Z"'))
                                 ELSE '{}' END
                  FROM generate_series(1, 1000) AS g))
        FROM generate_series(1, 10);
        COMMIT;
        FOR v_q IN 0 .. 4 LOOP
            WITH c AS MATERIALIZED (SELECT c.*, row_number() OVER (ORDER BY c.id) AS n
                                    FROM awa.claim_ready_runtime('q' || v_q, 1000) AS c),
            done AS (SELECT count(*) AS n FROM awa.complete_jobs(
                       ARRAY(SELECT id FROM c WHERE n <= 600), ARRAY(SELECT run_lease FROM c WHERE n <= 600),
                       ARRAY(SELECT claim_slot FROM c WHERE n <= 600), ARRAY(SELECT receipt_id FROM c WHERE n <= 600))),
            failed AS (SELECT count(*) AS n FROM awa.fail_jobs(
                       ARRAY(SELECT id FROM c WHERE n BETWEEN 601 AND 620),
                       ARRAY(SELECT run_lease FROM c WHERE n BETWEEN 601 AND 620),
                       ARRAY(SELECT claim_slot FROM c WHERE n BETWEEN 601 AND 620),
                       ARRAY(SELECT receipt_id FROM c WHERE n BETWEEN 601 AND 620), array_fill('boom'::text, ARRAY[20]))),
            retried AS (SELECT count(*) AS n FROM awa.retry_jobs(
                       ARRAY(SELECT id FROM c WHERE n BETWEEN 621 AND 640),
                       ARRAY(SELECT run_lease FROM c WHERE n BETWEEN 621 AND 640),
                       ARRAY(SELECT claim_slot FROM c WHERE n BETWEEN 621 AND 640),
                       ARRAY(SELECT receipt_id FROM c WHERE n BETWEEN 621 AND 640), array_fill('again'::text, ARRAY[20]))),
            cancelled AS (SELECT count(*) AS n FROM awa.cancel_jobs(
                       ARRAY(SELECT id FROM c WHERE n BETWEEN 641 AND 650),
                       ARRAY(SELECT run_lease FROM c WHERE n BETWEEN 641 AND 650),
                       ARRAY(SELECT claim_slot FROM c WHERE n BETWEEN 641 AND 650),
                       ARRAY(SELECT receipt_id FROM c WHERE n BETWEEN 641 AND 650)))
            SELECT done.n + failed.n + retried.n + cancelled.n INTO v_n FROM done, failed, retried, cancelled;
            COMMIT;
        END LOOP;
        PERFORM awa.rotate_ring('queue'), awa.rotate_ring('claim');
        COMMIT;
    END LOOP;
END $$;

ANALYZE;
