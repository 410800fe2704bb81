-- Latency of awa.list_jobs and awa.get_job on over 1,000,000 archived and
-- 100,000 live jobs (the data set of internal/listing, whose test proves the
-- plans index-served): each call 21 times in one session, p50 and p95 of the
-- wall time inside the database (planning included: every call plans its
-- statement). Run it on a fresh database with the substrate installed
-- (docs/benchmarks.md, "Analysis"):
--   psql -X -q -d postgres -c 'CREATE DATABASE awa_listing'
--   scripts/apply-sql.sh "$DSN"    # DSN of awa_listing
--   psql -X -q -d "$DSN" -f bench/sql/listing_latency.sql
\set ON_ERROR_STOP 1
\ir ../../internal/listing/testdata/dataset.sql
\ir latency_fn.sql
SELECT pg_temp.bench_latency(c.name, c.call) FROM (VALUES
    ('first page', 'SELECT count(*) FROM awa.list_jobs()'),
    ('page in the archive', 'SELECT count(*) FROM awa.list_jobs(p_after => 3000000)'),
    ('state failed', 'SELECT count(*) FROM awa.list_jobs(p_states => ''{failed}'')'),
    ('state running', 'SELECT count(*) FROM awa.list_jobs(p_states => ''{running}'')'),
    ('queue (live and archived)', 'SELECT count(*) FROM awa.list_jobs(p_queue => ''q3'')'),
    ('queue (archived only)', 'SELECT count(*) FROM awa.list_jobs(p_queue => ''q7'')'),
    ('kind', 'SELECT count(*) FROM awa.list_jobs(p_kind => ''kind_7'')'),
    ('tag (live and archived)', 'SELECT count(*) FROM awa.list_jobs(p_tag => ''t10'')'),
    ('tag (archived only)', 'SELECT count(*) FROM awa.list_jobs(p_tag => ''u3'')'),
    ('finished 3 to 2 hours ago', 'SELECT count(*) FROM awa.list_jobs(p_from => now() - interval ''3 hours'','
                                  ' p_to => now() - interval ''2 hours'')'),
    ('get_job, archived', 'SELECT count(*) FROM awa.get_job(3000000)'),
    ('get_job, live', 'SELECT count(*) FROM awa.get_job(5050000)')
) AS c (name, call) \g /dev/null
