-- The listings' data set (internal/listing, bench/sql/listing_latency.sql):
-- over 1,000,000 archived jobs and 100,000 live ones, built set-based. One
-- statement per paragraph (the Go test runs them one by one); psql runs the
-- file as it is. Needs a fresh database with the substrate installed.

-- The archive: a cohort per hour of the coming week, then a week of job ids
-- (4,800,000) of which the default retentions keep the completed ones of the
-- last 24 h and the failed and cancelled ones of the last 7 days, in queues
-- q0..q9 and kinds kind_0..kind_19, a fifth tagged (t0..t49, and u0..u6 on a
-- twentieth), with their rows in the tags table, as the copy writes them.
SELECT count(awa._create_archive_cohort(g))
FROM generate_series(date_trunc('hour', now(), 'UTC'), date_trunc('hour', now() + interval '7 days 1 hour', 'UTC'),
                     interval '1 hour') AS g;

INSERT INTO awa.archived_jobs (expires_at, job_id, state, run_lease, attempt, max_attempts, priority, queue, kind, args,
                               tags, metadata, errors, created_at, run_at, finalized_at)
SELECT s.fin + CASE WHEN s.st = 'completed' THEN interval '24 hours' ELSE interval '7 days' END,
       s.i, s.st::awa.job_state, 1, 1, 25, 2, 'q' || (s.i % 10), 'kind_' || ((s.i * 7) % 20), jsonb_build_object('n', s.i),
       CASE WHEN s.i % 20 = 0 THEN ARRAY['t' || (s.i % 50), 'u' || (s.i % 7)]
            WHEN s.i % 5 = 0 THEN ARRAY['t' || (s.i % 50)] ELSE '{}' END,
       '{}', CASE WHEN s.st = 'completed' THEN NULL ELSE '[{"error": "boom"}]'::jsonb END, s.cr, s.cr, s.fin
FROM (SELECT i, now() - interval '7 days' + (i / 4800000.0) * interval '7 days' AS cr,
             now() - interval '7 days' + (i / 4800000.0) * interval '7 days' + (i % 11) * interval '1 second' AS fin,
             CASE WHEN hashint4(i) % 100 BETWEEN -6 AND 6 THEN 'failed'
                  WHEN hashint4(i) % 100 IN (7, 8, -7) THEN 'cancelled' ELSE 'completed' END AS st
      FROM generate_series(1, 4800000) AS i) AS s
WHERE (s.st = 'completed' AND s.fin > now() - interval '23 hours 58 minutes')
   OR (s.st <> 'completed' AND s.fin > now() - interval '6 days 23 hours 58 minutes');

INSERT INTO awa.archived_job_tags (expires_at, tag, state, job_id)
SELECT a.expires_at, g.tag, a.state, a.job_id FROM awa.archived_jobs a
CROSS JOIN LATERAL unnest(a.tags) AS g (tag) WHERE cardinality(a.tags) > 0;

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
