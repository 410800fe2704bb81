-- awa.rotate_ring(ring, now, min_interval): seals the ring's current slot and
-- makes the next one current by appending a row to the rotation ledger (never
-- an UPDATE). The next slot is the first one after it that prune has not held
-- (awa.ring_held_slots: a slot left to a large unworked backlog).
-- Outcomes: rotated; skipped_recent (the last rotation is younger than
-- min_interval: the cadence lives in the database, so a new maintenance
-- leader does not rotate early); skipped_idle (the current slot is empty:
-- nothing to seal, the cursor stays); skipped_busy (the incoming slot still
-- holds rows: prune has not reclaimed it); skipped_locked (another rotate or
-- prune of this ring is running); skipped_race (another rotator appended this
-- generation first).
-- Every 2 wraps the ledger is trimmed to its last 2 wraps.
-- Locks: the ring try-lock (ring, hashtext(ring); awa._lock_key), shared with
-- awa.prune_ring, so a tick skips rather than queues.
-- Errors: AW010 unknown ring, negative min_interval.
-- Called by the maintenance leader on a ticker.
-- Isolation: refuses a transaction not at READ COMMITTED (AW040, writes nothing).
CREATE FUNCTION awa.rotate_ring(p_ring text, p_now timestamptz DEFAULT NULL, p_min_interval interval DEFAULT NULL)
RETURNS SETOF awa.ring_outcome
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_slots int;
    v_gen   bigint;
    v_slot  int;
    v_next  int;
    v_at    timestamptz;
    v_now   timestamptz := coalesce(p_now, now());
BEGIN
    PERFORM awa._require_read_committed('awa.rotate_ring');
    v_slots := awa._ring_slot_count(p_ring);
    IF p_min_interval < interval '0' THEN
        RAISE EXCEPTION 'awa: min_interval must not be negative, got %', p_min_interval USING ERRCODE = 'AW010';
    END IF;
    IF NOT pg_try_advisory_xact_lock(awa._lock_key('ring'), hashtext(p_ring)) THEN
        RETURN QUERY SELECT p_ring, 'rotate', 'skipped_locked', NULL::int, NULL::bigint,
                            'another rotate or prune of this ring holds its lock';
        RETURN;
    END IF;

    SELECT r.generation, r.slot, r.rotated_at INTO v_gen, v_slot, v_at
    FROM awa.ring_rotations r WHERE r.ring = p_ring ORDER BY r.generation DESC LIMIT 1;
    -- The next slot that is not held (docs/storage.md, "Held slots").
    v_next := awa._ring_next_slot(p_ring, v_slot);

    IF p_min_interval IS NOT NULL AND v_at > v_now - p_min_interval THEN
        RETURN QUERY SELECT p_ring, 'rotate', 'skipped_recent', v_slot, v_gen,
                            format('last rotation at %s is younger than %s', v_at, p_min_interval);
        RETURN;
    END IF;

    IF NOT awa._slot_has_rows(p_ring, v_slot) THEN
        RETURN QUERY SELECT p_ring, 'rotate', 'skipped_idle', v_slot, v_gen, 'current slot is empty';
        RETURN;
    END IF;
    IF v_next IS NULL THEN
        RETURN QUERY SELECT p_ring, 'rotate', 'skipped_busy', NULL::int, v_gen, 'every other slot is held';
        RETURN;
    END IF;
    IF awa._slot_has_rows(p_ring, v_next) THEN
        RETURN QUERY SELECT p_ring, 'rotate', 'skipped_busy', v_next, v_gen,
                            format('incoming slot %s still holds rows; prune has not reclaimed it', v_next);
        RETURN;
    END IF;

    INSERT INTO awa.ring_rotations (ring, generation, slot, rotated_at)
    VALUES (p_ring, v_gen + 1, v_next, v_now)
    ON CONFLICT DO NOTHING;
    IF NOT FOUND THEN
        RETURN QUERY SELECT p_ring, 'rotate', 'skipped_race', v_slot, v_gen,
                            format('generation %s was appended by another rotator', v_gen + 1);
        RETURN;
    END IF;

    IF (v_gen + 1) % (2 * v_slots) = 0 THEN
        DELETE FROM awa.ring_rotations r WHERE r.ring = p_ring AND r.generation <= v_gen + 1 - 2 * v_slots;
    END IF;

    RETURN QUERY SELECT p_ring, 'rotate', 'rotated', v_next, v_gen + 1, format('sealed slot %s', v_slot);
END;
$$;
