-- What awa._archive_span() costs the archive's reads by id: the buffers and
-- in-database time of a lookup by id (awa._archived_job, awa.get_job) and of
-- a page after an id (awa.list_jobs, every state and failed only), on the data
-- set of internal/listing (dense ids: over 1,000,000 archived jobs). A wider
-- span lets a chunk of single-insert jobs (ids a block of 1,024 apart) fill
-- up, and makes these reads walk the chunks in [id, id + span) of every
-- cohort (docs/storage.md, "Job ids"). Build the data set once per span,
-- with the span set before it (the copy's cut uses it), then run this:
--   scripts/apply-sql.sh "$DSN"
--   psql -X -q -d "$DSN" -c 'CREATE OR REPLACE FUNCTION awa._archive_span() RETURNS bigint
--       LANGUAGE sql IMMUTABLE AS $$ SELECT 65536::bigint $$'     # or the span to compare
--   psql -X -q -d "$DSN" -f internal/listing/testdata/dataset.sql
--   psql -X -q -d "$DSN" -f bench/sql/archive_span_lookup.sql
\set ON_ERROR_STOP 1
\ir latency_fn.sql
-- Buffers (shared hit + read) of one run of a statement.
CREATE FUNCTION pg_temp.bench_buffers(p_call text)
RETURNS bigint
LANGUAGE plpgsql
AS $$
DECLARE
    v_plan json;
BEGIN
    EXECUTE 'EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) ' || p_call INTO v_plan;
    RETURN (v_plan -> 0 -> 'Plan' ->> 'Shared Hit Blocks')::bigint + (v_plan -> 0 -> 'Plan' ->> 'Shared Read Blocks')::bigint;
END;
$$;
SELECT awa._archive_span() AS span, count(*) AS chunks, round(avg(n)) AS jobs_per_chunk FROM awa.archived_chunks;
SELECT c.name, pg_temp.bench_buffers(c.call) AS buffers, pg_temp.bench_latency(c.name, c.call)
FROM (VALUES
    ('_archived_job(3000000)', 'SELECT count(*) FROM awa._archived_job(3000000)'),
    ('_archived_job(4700001)', 'SELECT count(*) FROM awa._archived_job(4700001)'),
    ('get_job(3000000)', 'SELECT count(*) FROM awa.get_job(3000000)'),
    ('page after 3000000', 'SELECT count(*) FROM awa.list_jobs(p_after => 3000000)'),
    ('failed page after 3000000', 'SELECT count(*) FROM awa.list_jobs(p_after => 3000000, p_states => ''{failed}'')')
) AS c (name, call);
