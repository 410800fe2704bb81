-- awa._job_weight(metadata): how many slots a job takes: its metadata key
-- flow_weight (set from opts.weight by the insert paths): a JSON number with
-- an integer value in 1..100000 (2.0 is 2); anything else (absent, a
-- fraction, a string, out of range) is 1. Counted against its concurrency
-- key's limit (awa.claim_ready_runtime) and, in the Go runtime, against
-- MaxWorkers: ClaimedJob.Weight reads it by the same rule (a non-Go producer
-- may write any JSON there).
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
                     AND (p_metadata ->> 'flow_weight')::numeric = trunc((p_metadata ->> 'flow_weight')::numeric)
                THEN (p_metadata ->> 'flow_weight')::numeric::int ELSE 1 END
$$;
