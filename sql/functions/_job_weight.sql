-- awa._job_weight(metadata): how many slots a job takes: its metadata key
-- flow_weight (set from opts.weight by the insert paths), 1 when absent or
-- not a positive integer. Counted against its concurrency key's limit
-- (awa.claim_ready_runtime) and, in the Go runtime, against MaxWorkers.
-- IMMUTABLE LANGUAGE sql: inlined.
-- Called by awa.claim_ready_runtime.
CREATE FUNCTION awa._job_weight(p_metadata jsonb)
RETURNS int
LANGUAGE sql
IMMUTABLE
PARALLEL SAFE
AS $$
    SELECT CASE WHEN jsonb_typeof(p_metadata -> 'flow_weight') = 'number'
                     AND (p_metadata ->> 'flow_weight')::numeric BETWEEN 1 AND 100000
                THEN (p_metadata ->> 'flow_weight')::numeric::int ELSE 1 END
$$;
