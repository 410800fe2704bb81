-- awa._slot_available(slot, limit): how many available jobs (positions above
-- their lane's claim cursor that no tombstone spends) queue slot slot holds,
-- in both ready planes, counted up to limit: its ready rows one each, its
-- batch rows by arithmetic (awa._available_rows_sql: no item array is read).
-- Read-only, no lock of its own (the statement takes ACCESS SHARE on what it
-- reads: the slot's ready children and the cursor ring). Plans as
-- awa._carry_ready's: each lane's index walked from its cursor. Called by
-- awa.prune_ring (whether to hold a slot, whether a held one is drained) and
-- awa._carry_ready.
CREATE FUNCTION awa._slot_available(p_slot int, p_limit int)
RETURNS int
LANGUAGE plpgsql
SET enable_sort = off
SET enable_hashjoin = off
SET enable_mergejoin = off
SET jit = off
AS $$
DECLARE
    v_n     int;
    v_batch boolean;
BEGIN
    -- The batch plane's CTE only where the slot holds a batch row: a slot
    -- without them does not pay its planning.
    EXECUTE format('SELECT EXISTS (SELECT 1 FROM awa.%I)', 'ready_batches_' || p_slot) INTO v_batch;
    EXECUTE format(awa._available_rows_sql()
                   || CASE WHEN v_batch
                           THEN ' SELECT least($1, (SELECT count(*) FROM open) + (SELECT coalesce(sum(avail), 0) FROM open_batches))::int'
                           ELSE ' SELECT count(*)::int FROM open' END,
                   'ready_entries_' || p_slot, 'ready_tombstones_' || p_slot, 'ready_batches_' || p_slot)
    INTO v_n
    USING p_limit;
    RETURN v_n;
END;
$$;
