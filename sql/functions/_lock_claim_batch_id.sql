-- awa._lock_claim_batch_id(batch_id): the second key of a claim batch's
-- closure lock (awa._lock_claim_batch()): the batch id folded into int4.
-- Inlined like the lock keys.
CREATE FUNCTION awa._lock_claim_batch_id(p_batch_id bigint)
RETURNS int
LANGUAGE sql
IMMUTABLE
PARALLEL SAFE
AS $$
    SELECT (p_batch_id % 2147483647)::int
$$;
