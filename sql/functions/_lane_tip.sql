-- awa._lane_tip(seq): the highest lane position that a lane drawing from the
-- position sequence seq can have reserved so far, or NULL when the sequence
-- was never used. Producers reserve positions in blocks of 1024: a call takes
-- one nextval per 1024 rows and gives row k of a block the position
-- block * 1024 + k (awa._append_ready). Non-transactional (a sequence read, no
-- lock), so it also covers producers that are still open or rolled back.
-- Called by awa.claim_ready_runtime and awa.queue_pending.
CREATE FUNCTION awa._lane_tip(p_seq regclass)
RETURNS bigint
LANGUAGE sql
VOLATILE
AS $$
    SELECT pg_sequence_last_value(p_seq) * 1024 + 1023
$$;
