-- pg_temp.bench_latency(name, call): runs the statement call
-- bench.reps times (a session setting, default 21) in this session and
-- reports p50 and p95 of its wall time inside the database (planning
-- included) as a WARNING. Included (\ir) by the latency scripts of this
-- directory.
CREATE FUNCTION pg_temp.bench_latency(p_name text, p_call text)
RETURNS void
LANGUAGE plpgsql
AS $$
DECLARE
    v_t  timestamptz;
    v_ms float8[] := '{}';
BEGIN
    FOR i IN 1 .. coalesce(current_setting('bench.reps', true), '21')::int LOOP
        v_t := clock_timestamp();
        EXECUTE p_call;
        v_ms := v_ms || extract(epoch FROM clock_timestamp() - v_t)::float8 * 1000;
    END LOOP;
    RAISE WARNING '%: p50 % ms, p95 % ms', rpad(p_name, 26),
        (SELECT round(percentile_cont(0.5) WITHIN GROUP (ORDER BY m)::numeric, 2) FROM unnest(v_ms) AS m),
        (SELECT round(percentile_cont(0.95) WITHIN GROUP (ORDER BY m)::numeric, 2) FROM unnest(v_ms) AS m);
END;
$$;
