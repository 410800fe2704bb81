-- awa._due_attempt_deadlines(now, limit): the attempt_state rows whose own
-- attempt deadline (awa.set_attempt_deadline) passed before now, earliest
-- first, at most limit: a scan of the partial index attempt_state_deadline_at,
-- which holds only the rows with a deadline. The attempt named may have closed
-- since; the caller decides under the attempt's lock. Read-only.
-- A single-statement SQL function (not STRICT, no SET, not SECURITY DEFINER),
-- so the planner inlines it into the caller's statement, and an EXPLAIN of a
-- call shows the scan the rescue runs (sql/tests/rescue_expired_deadlines).
-- Called by awa.rescue_expired_deadlines.
CREATE FUNCTION awa._due_attempt_deadlines(p_now timestamptz, p_limit int)
RETURNS SETOF awa.attempt_state
LANGUAGE sql
STABLE
AS $$
    SELECT s.* FROM awa.attempt_state s
    WHERE s.deadline_at < p_now
    ORDER BY s.deadline_at
    LIMIT p_limit
$$;
