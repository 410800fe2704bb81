-- awa._lock_key(lock): the class key (first key of the two-key form) of the
-- named advisory lock, the one definition of every key the substrate uses:
--   lane_producer  (id lane_id)                 a lane's positions commit in order
--   claim_batch    (id awa._lock_claim_batch_id) a claim batch's closures
--   ring           (id hashtext(ring))          rotate and prune of one ring
--   lane_creation  (id hashtext(queue))         a queue's first lanes
--   install        (id 0)                       install (same class as lane_creation)
--   lane_claim     (id lane_id)                 a lane's claimers take turns
--   shard_creation (id hashtext(queue/priority/shard)) a further shard lane
--   key_lane       (id hashtext(queue#key#priority))   a concurrency key's lane
--   key_claim      (id hashtext(queue#key))  claimers of a concurrency key take turns
-- Holders, try or wait, and the lock order: docs/storage.md, "Locks".
-- IMMUTABLE LANGUAGE sql: inlined and folded to a constant when the caller's
-- statement is planned, so a lock costs nothing more than with a literal. An
-- unknown name fails that planning (invalid input syntax for type integer).
CREATE FUNCTION awa._lock_key(p_lock text)
RETURNS int
LANGUAGE sql
IMMUTABLE
PARALLEL SAFE
AS $$
    SELECT CASE p_lock
        WHEN 'lane_producer' THEN 1096237313
        WHEN 'claim_batch' THEN 1096237314
        WHEN 'ring' THEN 1096237315
        WHEN 'lane_creation' THEN 1096237316
        WHEN 'install' THEN 1096237316
        WHEN 'lane_claim' THEN 1096237317
        WHEN 'shard_creation' THEN 1096237318
        WHEN 'key_lane' THEN 1096237319
        WHEN 'key_claim' THEN 1096237320
        ELSE ('awa: no advisory lock named ' || p_lock)::int
    END
$$;
