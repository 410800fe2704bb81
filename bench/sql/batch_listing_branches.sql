-- Execution time and buffers of the listing's two ring branches on the same
-- pages: ready rows (ready_entries, walked by job_id) against batch rows
-- (ready_batches, walked by first_id, each row reached expanded once and its
-- items sorted), docs/batchready.md step 3.5.
-- On the pgTAP database (pgtap/setup.sh "$DSN": the substrate and the
-- awa_test fixtures, of which awa_test.batch_row writes the batch rows):
--   psql -X -d "$PGTAP_DSN" -f bench/sql/batch_listing_branches.sql
-- In one rolled-back transaction: 40 blocks of 1,024 jobs in queue default,
-- alternately one awa.insert_jobs call (ready rows) and one batch row, args
-- {"n": i, "to": md5(i)}, so the two planes' ids interleave block by block
-- and a page after any id finds a page in each branch. Then, for 200 random
-- cursors (and the first page), the listing statement (awa._list_jobs_sql,
-- no filter, pages of 50, under awa.list_jobs' settings) is run with
-- EXPLAIN (ANALYZE, BUFFERS); each branch's outermost Limit gives its
-- execution time and shared buffers (including the TOAST pages a batch
-- row's arrays take). Prints medians and p90 per branch.
\set ON_ERROR_STOP 1
\pset footer off
BEGIN;
SELECT count(*) AS blocks FROM generate_series(1, 40) AS g,
LATERAL (SELECT CASE WHEN g % 2 = 1
                     THEN (SELECT count(*) FROM awa.insert_jobs(
                               array_fill('bench'::text, ARRAY[1024]),
                               ARRAY(SELECT jsonb_build_object('n', g * 1024 + i, 'to', md5((g * 1024 + i)::text))
                                     FROM generate_series(1, 1024) AS i), NULL))
                     ELSE cardinality(awa_test.batch_row(
                               array_fill('bench'::text, ARRAY[1024]),
                               ARRAY(SELECT jsonb_build_object('n', g * 1024 + i, 'to', md5((g * 1024 + i)::text))
                                     FROM generate_series(1, 1024) AS i), NULL)) END AS n) AS x;
SELECT set_config(split_part(c, '=', 1), substr(c, strpos(c, '=') + 1), true)
FROM pg_proc p CROSS JOIN LATERAL unnest(p.proconfig) AS c
WHERE p.oid = 'awa.list_jobs'::regproc AND split_part(c, '=', 1) <> 'search_path';
CREATE TEMP TABLE runs (cursor bigint, branch text, ms float8, buffers bigint);
DO $$
DECLARE
    v_lo   bigint := (SELECT min(job_id) FROM awa.ready_entries);
    v_hi   bigint := (SELECT max(first_id + n) FROM awa.ready_batches);
    v_after bigint;
    v_plan jsonb;
BEGIN
    FOR i IN 0 .. 200 LOOP
        v_after := CASE WHEN i = 0 THEN NULL ELSE v_lo + 1000 + floor(random() * (v_hi - v_lo - 1000))::bigint END;
        EXECUTE 'EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) '
                || awa._list_jobs_sql(NULL, NULL, NULL, NULL, NULL, NULL, NULL, v_after, 50) INTO v_plan;
        INSERT INTO runs
        SELECT v_after, b.branch, (n ->> 'Actual Total Time')::float8, (n ->> 'Shared Hit Blocks')::bigint
                                                                       + (n ->> 'Shared Read Blocks')::bigint
        -- A branch's Limit: the costliest Limit over its walk and not over
        -- the other's (the page's Limit is over both): the walk of ready rows
        -- is ready_entries' job_id index as r (the probes of it are n), the
        -- batch rows' walk is batch_page.
        FROM (VALUES ('ready rows', 'strict $.** ? (@."Node Type" == "Limit"'
                                    ' && exists (@.** ? (@."Index Name" like_regex "^ready_entries_[0-9]+_job_id"'
                                    ' && @."Alias" like_regex "^r(_[0-9]+)?$"))'
                                    ' && !exists (@.** ? (@."Alias" == "batch_page")))'),
                     ('batch rows', 'strict $.** ? (@."Node Type" == "Limit" && exists (@.** ? (@."Alias" == "batch_page"))'
                                    ' && !exists (@.** ? (@."Index Name" like_regex "^ready_entries_[0-9]+_job_id"'
                                    ' && @."Alias" like_regex "^r(_[0-9]+)?$")))'))
             AS b (branch, path)
        CROSS JOIN LATERAL (SELECT n FROM jsonb_path_query(v_plan, b.path::jsonpath) AS n
                            ORDER BY (n ->> 'Actual Total Time')::float8 DESC LIMIT 1) AS x;
    END LOOP;
END
$$;
SELECT branch, count(*) AS pages,
       round(percentile_cont(0.5) WITHIN GROUP (ORDER BY ms)::numeric, 3) AS ms_p50,
       round(percentile_cont(0.9) WITHIN GROUP (ORDER BY ms)::numeric, 3) AS ms_p90,
       percentile_cont(0.5) WITHIN GROUP (ORDER BY buffers) AS buffers_p50
FROM runs GROUP BY branch ORDER BY branch;
ROLLBACK;
