-- awa._current_slot(ring): the ring's current slot, read from the rotation
-- ledger (its max-generation row, a backward primary-key scan). Read-only,
-- takes no lock. Called by every writer that appends into the current slot
-- (awa._append_one reads it in a statement with the cursor ring's generation).
-- PL/pgSQL, not SQL: its body cannot be inlined (it reads a table), and
-- PostgreSQL 15 parses and plans a non-inlined SQL function's query again in
-- every transaction, while PL/pgSQL keeps the plan for the session. A
-- one-job insert calls it twice (its slot, and the notify rule's cursor
-- slot): as SQL that was a fifth of the insert's server CPU.
CREATE FUNCTION awa._current_slot(p_ring text)
RETURNS int
LANGUAGE plpgsql
STABLE
AS $$
BEGIN
    RETURN (SELECT r.slot FROM awa.ring_rotations r WHERE r.ring = p_ring ORDER BY r.generation DESC LIMIT 1);
END;
$$;
