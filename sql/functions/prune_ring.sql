-- awa.prune_ring(ring, lock_timeout_ms, keep_sealed, carry_limit): reclaims the oldest
-- sealed slot of a ring by TRUNCATE, only after proving nothing live remains in
-- it. keep_sealed is how many of the most recently sealed slots to leave alone
-- (terminal history stays readable there); it is capped at slot_count - 2, so
-- the slot the next rotation needs can always be reclaimed.
-- Steps: (1) take the ring's maintenance try-lock (shared with rotate);
-- (2) pick the oldest sealed slot that holds rows, among all but the
-- keep_sealed newest; (3) prove it holds
-- nothing live (awa._slot_live_reason); (4) lock its child tables ACCESS
-- EXCLUSIVE with lock_timeout = lock_timeout_ms; (5) prove it again under the
-- locks, so rows that committed while we waited are seen; (6) queue ring:
-- move up to carry_limit available jobs out to the current slot
-- (awa._carry_ready), since they do not pin the slot; (7) TRUNCATE, once no
-- available job is left (else outcome carried: a later call goes on).
-- Outcomes: pruned; carried (detail: how many moved, how many remain);
-- already_empty (no sealed slot holds rows); skipped_live
-- (detail says what is live); skipped_blocked (a lock was not granted in time:
-- a long reader or writer holds the slot; retried on a later tick, never
-- forced); skipped_locked (another rotate or prune of this ring is running).
-- Errors: AW010 unknown ring, lock_timeout_ms outside 1..60000, negative
-- keep_sealed, carry_limit outside 1..100000. Called by the maintenance leader
-- on a ticker.
CREATE FUNCTION awa.prune_ring(p_ring text, p_lock_timeout_ms int DEFAULT 50, p_keep_sealed int DEFAULT 0,
                                p_carry_limit int DEFAULT 1000)
RETURNS SETOF awa.ring_outcome
LANGUAGE plpgsql
-- Short OLTP statements over many partitions: JIT compilation would cost
-- far more than it saves (and hold partition locks while it compiles).
SET jit = off
AS $$
DECLARE
    v_slots   int;
    v_gen     bigint;
    v_current int;
    v_target  int;
    v_reason  text;
    v_parent  text;
    v_old     text := current_setting('lock_timeout');
    v_moved   int := 0;
    v_left    int;
BEGIN
    SELECT c.slot_count INTO v_slots FROM awa.ring_config c WHERE c.ring = p_ring;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'awa: unknown ring %', coalesce(quote_literal(p_ring), 'null') USING ERRCODE = 'AW010';
    END IF;
    IF p_lock_timeout_ms IS NULL OR p_lock_timeout_ms NOT BETWEEN 1 AND 60000 THEN
        RAISE EXCEPTION 'awa: lock_timeout_ms must be between 1 and 60000, got %', p_lock_timeout_ms
            USING ERRCODE = 'AW010';
    END IF;
    IF p_keep_sealed IS NULL OR p_keep_sealed < 0 THEN
        RAISE EXCEPTION 'awa: keep_sealed must be zero or more, got %', coalesce(p_keep_sealed::text, 'null')
            USING ERRCODE = 'AW010';
    END IF;
    IF p_carry_limit IS NULL OR p_carry_limit NOT BETWEEN 1 AND 100000 THEN
        RAISE EXCEPTION 'awa: carry_limit must be between 1 and 100000, got %', coalesce(p_carry_limit::text, 'null')
            USING ERRCODE = 'AW010';
    END IF;
    IF NOT pg_try_advisory_xact_lock(1096237315, hashtext(p_ring)) THEN
        RETURN QUERY SELECT p_ring, 'prune', 'skipped_locked', NULL::int, NULL::bigint,
                            'another rotate or prune of this ring holds its lock';
        RETURN;
    END IF;

    SELECT r.generation, r.slot INTO v_gen, v_current
    FROM awa.ring_rotations r WHERE r.ring = p_ring ORDER BY r.generation DESC LIMIT 1;

    -- Sealed slots from oldest ((current + 1) mod n) to newest ((current - 1)
    -- mod n); the keep_sealed newest are not candidates.
    FOR i IN 1 .. v_slots - 1 - least(p_keep_sealed, v_slots - 2) LOOP
        IF awa._slot_has_rows(p_ring, (v_current + i) % v_slots) THEN
            v_target := (v_current + i) % v_slots;
            EXIT;
        END IF;
    END LOOP;
    IF v_target IS NULL THEN
        RETURN QUERY SELECT p_ring, 'prune', 'already_empty', NULL::int, v_gen,
                            CASE WHEN p_keep_sealed = 0 THEN 'no sealed slot holds rows'
                                 ELSE format('no sealed slot older than the %s kept holds rows',
                                             least(p_keep_sealed, v_slots - 2)) END;
        RETURN;
    END IF;

    v_reason := awa._slot_live_reason(p_ring, v_target, true);
    IF v_reason IS NOT NULL THEN
        RETURN QUERY SELECT p_ring, 'prune', 'skipped_live', v_target, v_gen, v_reason;
        RETURN;
    END IF;

    PERFORM set_config('lock_timeout', p_lock_timeout_ms || 'ms', true);
    BEGIN
        FOREACH v_parent IN ARRAY awa._ring_tables(p_ring) LOOP
            EXECUTE format('LOCK TABLE awa.%I IN ACCESS EXCLUSIVE MODE', v_parent || '_' || v_target);
        END LOOP;
    EXCEPTION WHEN lock_not_available THEN
        PERFORM set_config('lock_timeout', v_old, true);
        RETURN QUERY SELECT p_ring, 'prune', 'skipped_blocked', v_target, v_gen,
                            format('awa.%s not locked within %s ms', v_parent || '_' || v_target, p_lock_timeout_ms);
        RETURN;
    END;
    PERFORM set_config('lock_timeout', v_old, true);

    v_reason := awa._slot_live_reason(p_ring, v_target, true);
    IF v_reason IS NOT NULL THEN
        RETURN QUERY SELECT p_ring, 'prune', 'skipped_live', v_target, v_gen, v_reason || ' (seen under lock)';
        RETURN;
    END IF;

    IF p_ring = 'queue' THEN
        SELECT c.moved, c.remaining INTO v_moved, v_left FROM awa._carry_ready(v_target, v_current, p_carry_limit) AS c;
        IF v_left > 0 THEN
            RETURN QUERY SELECT p_ring, 'prune', 'carried', v_target, v_gen,
                                format('moved %s available jobs to slot %s, %s%s remain', v_moved, v_current,
                                       CASE WHEN v_left = p_carry_limit THEN 'at least ' ELSE '' END, v_left);
            RETURN;
        END IF;
    END IF;

    FOREACH v_parent IN ARRAY awa._ring_tables(p_ring) LOOP
        EXECUTE format('TRUNCATE awa.%I', v_parent || '_' || v_target);
    END LOOP;

    RETURN QUERY SELECT p_ring, 'prune', 'pruned', v_target, v_gen, format('truncated slot %s', v_target)
        || CASE WHEN v_moved > 0 THEN format(' after moving %s available jobs to slot %s', v_moved, v_current) ELSE '' END;
END;
$$;
