-- In-server cost of awa.insert_job: a DO block runs :n calls, a COMMIT after
-- each (with -v per_tx=K, after every K calls: the first of a transaction
-- draws its id block, the others take the block's next ids; docs/storage.md,
-- "Job ids"). Prints the mean and median wall time of a call alone
-- (clock_timestamp() around it, the commit excluded) and the backend's CPU
-- time per call, commits included (utime + stime from /proc/self/stat, 10 ms
-- ticks, -v clk_tck=`getconf CLK_TCK` if not 100: with 10,000 calls, about
-- 1% of the figure). On a loaded machine the
-- wall times wait for the CPU; the CPU time does not. Run it as a superuser
-- (pg_read_file) on a database with the substrate installed, alternating with
-- the version to compare (scripts/apply-sql.sh of each), several times:
--   psql -X -q -d "$DSN" -v n=10000 -f bench/sql/insert_job_loop.sql
\set ON_ERROR_STOP 1
\if :{?per_tx}
\else
\set per_tx 1
\endif
\if :{?clk_tck}
\else
\set clk_tck 100
\endif
SELECT set_config('bench.n', :'n', false), set_config('bench.per_tx', :'per_tx', false) \g /dev/null
SELECT count(*) FROM awa.insert_job('k', '{}', '{"queue": "loop"}') \g /dev/null
CREATE TEMP TABLE bench_us (us float8) ON COMMIT PRESERVE ROWS;
CREATE TEMP TABLE bench_cpu (ticks bigint) ON COMMIT PRESERVE ROWS;
-- This backend's utime + stime, in clock ticks (fields 14 and 15 of its stat).
CREATE FUNCTION pg_temp.bench_ticks() RETURNS bigint LANGUAGE sql AS $$
    SELECT f[12]::bigint + f[13]::bigint
    FROM (SELECT string_to_array(split_part(pg_read_file('/proc/self/stat'), ') ', 2), ' ') AS f) AS s
$$;
DO $$
DECLARE
    v_t  timestamptz;
    v_c0 bigint := pg_temp.bench_ticks();
    v_us float8[] := '{}';
    v_k  int := current_setting('bench.per_tx')::int;
BEGIN
    FOR i IN 1 .. current_setting('bench.n')::int LOOP
        v_t := clock_timestamp();
        PERFORM awa.insert_job('k', '{}', '{"queue": "loop"}');
        v_us := v_us || extract(epoch FROM clock_timestamp() - v_t)::float8 * 1e6;
        IF i % v_k = 0 THEN
            COMMIT;
        END IF;
    END LOOP;
    COMMIT;
    INSERT INTO bench_cpu VALUES (pg_temp.bench_ticks() - v_c0);
    INSERT INTO bench_us SELECT unnest(v_us);
END $$;
SELECT :per_tx AS per_tx, count(*) AS calls, round(avg(us)::numeric, 1) AS mean_us,
       round(percentile_cont(0.5) WITHIN GROUP (ORDER BY us)::numeric, 1) AS median_us,
       round((SELECT ticks FROM bench_cpu) * 1e6 / :clk_tck / count(*), 1) AS cpu_us
FROM bench_us;
