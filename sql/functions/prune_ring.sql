-- awa.prune_ring(ring, lock_timeout_ms, keep_sealed, carry_limit): reclaims the
-- oldest sealed slot of a ring that holds rows (leaving the keep_sealed newest,
-- capped at slot_count - 2) by TRUNCATE, only after proving nothing live
-- remains in it (awa._slot_live_reason, with the fingerprint
-- awa._slot_fingerprint taken in the same snapshot and compared again under
-- the locks). A slot with more than 10,000 available jobs is held out of
-- the rotation (outcome held, awa.ring_held_slots: nothing moves) while at
-- most half the slots are and 3 stay in it; a held slot is pruned (its last
-- available jobs carried out) and given back once 1,000 or fewer remain in
-- it and nothing runs from it. Other available jobs are carried to
-- the newest held slot or else the current one (up to carry_limit a call:
-- outcome carried); in any slot but the newest sealed one,
-- open attempts are carried too, and live leases out of any lease slot. The
-- cursor ring raises the floors its marks carry before the TRUNCATE. Steps and why: docs/storage.md, "Rotation and
-- prune" and "Long attempts".
-- Locks: the ring try-lock (ring, hashtext(ring)); then, all or none per
-- attempt (awa._lock_slot_tables, within lock_timeout_ms), for the queue ring
-- ACCESS SHARE on awa.cursor_marks and for every ring ACCESS EXCLUSIVE on the
-- slot's children in awa._ring_tables order. A queue slot with nothing to
-- carry first locks and truncates its done_completions child alone, so claims
-- wait only for the ready tables' TRUNCATE; holding it out of that order,
-- prune tries the rest with NOWAIT only, for a tenth of lock_timeout_ms, and
-- else gives it back and takes every lock in order (another lock_timeout_ms at most; docs/storage.md, "Locks").
-- Archive: with a retention on, the slot's terminal jobs are copied to
-- awa.archived_chunks before the locks (awa._archive_slot) and what is new under
-- them; a prune that ends without its TRUNCATE undoes the copy (AW098).
-- Outcomes: pruned; carried; held; already_empty; skipped_live (detail says what is
-- live); skipped_blocked (held through the whole budget; retried on a later
-- tick, never forced); skipped_locked (another rotate or prune of the ring).
-- Errors: AW010 unknown ring, lock_timeout_ms outside 1..60000, negative
-- keep_sealed, carry_limit outside 1..100000. Called by the maintenance leader
-- on a ticker.
-- Isolation: refuses a transaction not at READ COMMITTED (AW040, writes nothing).
-- Preamble as the other entry points' on purpose (definer rights, pinned
-- search_path, jit off, v_now, READ COMMITTED guard): SQL cannot share it.
CREATE FUNCTION awa.prune_ring(p_ring text, p_lock_timeout_ms int DEFAULT 50, p_keep_sealed int DEFAULT 0,
                               p_carry_limit int DEFAULT 1000)
RETURNS SETOF awa.ring_outcome
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
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
    v_rel     text;
    v_rels    text[];
    v_print   int8[];
    v_stalled boolean;
    v_moved   int := 0;
    v_rest    int := 0;
    v_urgent  boolean;
    v_runs    int := 0;
    v_open    bigint[] := '{}';
    v_history boolean;
    v_available boolean;
    v_detail  text;
    v_changed boolean;
    v_archive boolean := false;
    v_arch    awa._archived := ROW('{}', '{}', 0);
    v_arch0   awa._archived;
    v_slot    int;
    v_free    int;
    v_n       int := 0;
    v_held    boolean := false;
    v_into    int;
    v_count   int;
BEGIN
    PERFORM awa._require_read_committed('awa.prune_ring');
    v_slots := awa._ring_slot_count(p_ring);
    PERFORM awa._require_between('lock_timeout_ms', p_lock_timeout_ms, 1, 60000);
    IF p_keep_sealed IS NULL OR p_keep_sealed < 0 THEN
        RAISE EXCEPTION 'awa: keep_sealed must be zero or more, got %', coalesce(p_keep_sealed::text, 'null')
            USING ERRCODE = 'AW010';
    END IF;
    PERFORM awa._require_between('carry_limit', p_carry_limit, 1, 100000);
    IF NOT pg_try_advisory_xact_lock(awa._lock_key('ring'), hashtext(p_ring)) THEN
        RETURN QUERY SELECT p_ring, 'prune', 'skipped_locked', NULL::int, NULL::bigint,
                            'another rotate or prune of this ring holds its lock';
        RETURN;
    END IF;

    SELECT r.generation, r.slot INTO v_gen, v_current
    FROM awa.ring_rotations r WHERE r.ring = p_ring ORDER BY r.generation DESC LIMIT 1;
    -- Stalled: no rotation for twice the shortest interval the ledger (the
    -- last two wraps) shows, the ring's cadence: rotation waits for a prune.
    SELECT coalesce(now() - max(g.rotated_at) > 2 * min(g.gap), false) INTO v_stalled
    FROM (SELECT r.rotated_at, r.rotated_at - lag(r.rotated_at) OVER (ORDER BY r.generation) AS gap
          FROM awa.ring_rotations r WHERE r.ring = p_ring) AS g;

    -- Held slots first (docs/storage.md, "Held slots"): one with 1,000
    -- available jobs or fewer left whose proof passes is pruned as any slot
    -- (what remains is carried out first), so a few jobs nobody works never
    -- pin a held slot.
    -- Checked in a subtransaction rolled back at once, as the proof below:
    -- the share locks on the cursor ring must not last.
    FOR v_slot IN SELECT h.slot FROM awa.ring_held_slots h WHERE h.ring = p_ring ORDER BY h.held_at, h.slot LOOP
        BEGIN
            v_reason := CASE WHEN awa._slot_available(v_slot, 1001) > 1000 THEN 'available jobs remain'
                             ELSE awa._slot_live_reason(p_ring, v_slot, true, false) END;
            RAISE EXCEPTION 'awa: prune proof done' USING ERRCODE = 'AW099';
        EXCEPTION WHEN SQLSTATE 'AW099' THEN
            NULL;
        END;
        IF v_reason IS NULL THEN
            v_target := v_slot;
            v_held := true;
            EXIT;
        END IF;
    END LOOP;
    v_reason := NULL;
    -- Then the sealed slots in rotation, from the oldest (the one the next
    -- rotation takes) to the newest; held slots are not in it, and the
    -- keep_sealed newest are not candidates.
    v_free := v_slots - (SELECT count(*)::int FROM awa.ring_held_slots h WHERE h.ring = p_ring);
    FOR i IN 1 .. v_slots - 1 LOOP
        EXIT WHEN v_target IS NOT NULL OR v_n >= v_free - 1 - least(p_keep_sealed, v_free - 2);
        v_slot := (v_current + i) % v_slots;
        CONTINUE WHEN EXISTS (SELECT 1 FROM awa.ring_held_slots h WHERE h.ring = p_ring AND h.slot = v_slot);
        v_n := v_n + 1;
        IF awa._slot_has_rows(p_ring, v_slot) THEN
            v_target := v_slot;
        END IF;
    END LOOP;
    IF v_target IS NULL THEN
        RETURN QUERY SELECT p_ring, 'prune', 'already_empty', NULL::int, v_gen,
                            CASE WHEN p_keep_sealed = 0 THEN 'no sealed slot holds rows'
                                 ELSE format('no sealed slot older than the %s kept holds rows',
                                             least(p_keep_sealed, v_free - 2)) END;
        RETURN;
    END IF;

    -- Open attempts do not keep a slot (they are carried forward,
    -- docs/storage.md "Long attempts") unless it is the newest sealed slot:
    -- its attempts were claimed within the last interval and most close
    -- within seconds, so it waits for them rather than copy them all. An
    -- older slot's attempts that are still open are long ones: kept, they
    -- would hold the whole ring behind them for a wrap (every slot full,
    -- and every claim and finalizer probing all of them). In the lease ring
    -- such a slot's proof would also read every dead lease in it (10,000
    -- parked jobs' leases: about 0.2 s a tick) only to report skipped_live.
    v_urgent := v_target = awa._ring_next_slot(p_ring, v_current)
                OR (p_ring IN ('queue', 'claim', 'lease') AND v_target <> awa._ring_next_slot(p_ring, v_current, -1));

    -- One statement, one snapshot: the fingerprint describes what the proof saw.
    -- The proof runs in a subtransaction rolled back at once (AW099 never
    -- leaves this block), so the share locks it took on every partition it
    -- read (the queue ring's proof reads the whole cursor ring) are not held
    -- while prune waits for its own locks; the fingerprint is compared again
    -- under them.
    IF p_ring <> 'cursor' THEN
        BEGIN
            -- With the fingerprint, in its snapshot: the claim batches drawn
            -- from a queue slot the next rotation needs that are still open,
            -- the only ones the carry under the locks has to look at.
            SELECT awa._slot_live_reason(p_ring, v_target, true, v_urgent), awa._slot_fingerprint(p_ring, v_target),
                   CASE WHEN p_ring = 'queue' AND v_urgent THEN
                       ARRAY(SELECT b.batch_id FROM awa.claim_batches b
                             WHERE b.ready_slot = v_target
                               AND NOT awa._claim_batch_closed(b.claim_slot, b.batch_id, cardinality(b.job_ids)))
                   END
            INTO v_reason, v_print, v_open;
            RAISE EXCEPTION 'awa: prune proof done' USING ERRCODE = 'AW099';
        EXCEPTION WHEN SQLSTATE 'AW099' THEN
            NULL;
        END;
        IF v_reason IS NOT NULL THEN
            RETURN QUERY SELECT p_ring, 'prune', 'skipped_live', v_target, v_gen, v_reason;
            RETURN;
        END IF;
    END IF;

    -- Queue for the locks only late and briefly: while a request for ACCESS
    -- EXCLUSIVE waits, every claim and producer that reads the ring queues
    -- behind it (the policy: awa._lock_slot_tables). The queue ring reads the
    -- cursor under its exclusive locks (fingerprint, carry): it takes the
    -- cursor ring's share lock first, the order claims take them in.
    -- A queue slot with nothing to carry (no position above a cursor, no
    -- open claim drawn from it) first drops its completion history alone,
    -- under its own lock, which no claim reads (a finalizer can want it
    -- only for a job a late producer committed after the proof): the
    -- claims' wait below is then the ready tables' TRUNCATE only. A slot that changed
    -- meanwhile keeps everything. Holding that lock out of the order in which
    -- readers reach the slot (ready tables, then done_completions: awa.jobs),
    -- prune must never wait for the ready tables: NOWAIT attempts for a tenth
    -- of the budget, else the history step is undone (its lock released) and every lock is taken in
    -- order, as for any slot.
    -- The fingerprint's third entry per lane is the lane's first position in
    -- the slot above its cursor (-1: none): without one, nothing to carry.
    v_available := p_ring = 'queue' AND EXISTS (SELECT 1 FROM unnest(v_print) WITH ORDINALITY AS u (v, k)
                                                WHERE u.k % 3 = 0 AND u.v <> -1);
    v_history := p_ring = 'queue' AND coalesce(cardinality(v_open), 0) = 0 AND NOT v_available;
    -- A large backlog is held, not copied (docs/storage.md, "Held slots"):
    -- more than 10,000 available jobs, while at most half the slots would be
    -- held and at least 3 would stay in the rotation. Nothing moves and no
    -- lock of the slot is taken: rotation passes over it, claims keep
    -- reading it. Counted in a subtransaction rolled back at once, as the
    -- proof.
    IF v_available AND NOT v_held AND (v_slots - v_free + 1) * 2 <= v_slots AND v_free - 1 >= 3 THEN
        BEGIN
            v_count := awa._slot_available(v_target, 10001);
            RAISE EXCEPTION 'awa: prune count done' USING ERRCODE = 'AW099';
        EXCEPTION WHEN SQLSTATE 'AW099' THEN
            NULL;
        END;
        IF v_count > 10000 THEN
            INSERT INTO awa.ring_held_slots (ring, slot, held_at) VALUES (p_ring, v_target, now());
            RETURN QUERY SELECT p_ring, 'prune', 'held', v_target, v_gen,
                                format('slot %s holds more than 10000 available jobs: held out of the rotation', v_target);
            RETURN;
        END IF;
    END IF;
    -- Carried jobs go to the newest held slot, where they stay until they are
    -- worked (never copied again), else to the current slot.
    v_into := coalesce((SELECT h.slot FROM awa.ring_held_slots h WHERE h.ring = p_ring AND h.slot <> v_target
                        ORDER BY h.held_at DESC, h.slot DESC LIMIT 1), v_current);
    -- The archive (docs/storage.md, "History archive"): the slot's terminal
    -- rows are copied before the locks (stable once the proof saw no open
    -- attempt drawn from the slot), and under them only what is new since. A
    -- slot with available jobs to carry is copied under the locks, once its
    -- carry is done. Everything from here on runs in a block that a prune
    -- ending without its TRUNCATE rolls back (AW098), copies included: a job
    -- is never in the ring and the archive at once.
    v_archive := p_ring = 'queue' AND EXISTS (SELECT 1 FROM awa.archive_retention a WHERE a.retention > interval '0');
    BEGIN
    IF v_archive AND NOT v_available THEN
        v_arch := awa._archive_slot(v_target, '{}', '{}', now());
    END IF;
    v_arch0 := v_arch;
    v_rels := CASE WHEN p_ring = 'queue' THEN ARRAY['cursor_marks'] ELSE '{}' END
              || ARRAY(SELECT t || '_' || v_target FROM unnest(awa._ring_tables(p_ring)) AS t
                       WHERE NOT (v_history AND t = 'done_completions'));
    -- One subtransaction for both steps: a prune that ends skipped_blocked or
    -- skipped_live keeps nothing it did and holds no lock (AW099 never leaves
    -- this block).
    BEGIN
        IF v_history THEN
            BEGIN
                v_detail := awa._lock_slot_tables(ARRAY['done_completions_' || v_target], p_lock_timeout_ms,
                                                  v_stalled);
                IF v_detail IS NOT NULL THEN
                    RAISE EXCEPTION 'awa: prune blocked' USING ERRCODE = 'AW099';
                END IF;
                -- Compared in a subtransaction rolled back at once, as the
                -- proof is: its share locks on the cursor ring must not last
                -- while prune asks for the rest (a cursor-ring prune waits).
                BEGIN
                    v_changed := awa._slot_fingerprint(p_ring, v_target) IS DISTINCT FROM v_print;
                    RAISE EXCEPTION 'awa: prune check done' USING ERRCODE = 'AW099';
                EXCEPTION WHEN SQLSTATE 'AW099' THEN
                    NULL;
                END;
                IF v_changed THEN
                    RAISE EXCEPTION 'awa: prune slot changed' USING ERRCODE = 'AW099';
                END IF;
                IF v_archive THEN
                    v_arch := awa._archive_slot(v_target, v_arch.batch_ids, v_arch.entry_ids, now());
                END IF;
                IF pg_relation_size(format('awa.%I', 'done_completions_' || v_target)::regclass) > 0 THEN
                    EXECUTE format('TRUNCATE awa.%I', 'done_completions_' || v_target);
                END IF;
                -- NOWAIT only, for a tenth of the budget: holding the history's
                -- lock out of order, prune must never wait in a lock queue (a
                -- reader of both would be the victim of the cycle), and a late
                -- job's finalizer waits for it at most that long.
                IF awa._lock_slot_tables(v_rels, greatest(p_lock_timeout_ms / 10, 2), false, true) IS NOT NULL THEN
                    v_history := false;  -- given back (variables outlive the rollback)
                    v_arch := v_arch0;
                    v_rels := v_rels || ('done_completions_' || v_target);
                    RAISE EXCEPTION 'awa: prune history given back' USING ERRCODE = 'AW099';
                END IF;
            EXCEPTION WHEN SQLSTATE 'AW099' THEN
                NULL;
            END;
            IF v_detail IS NOT NULL OR v_changed THEN
                RAISE EXCEPTION 'awa: prune blocked' USING ERRCODE = 'AW099';
            END IF;
        END IF;
        IF NOT v_history THEN
            v_detail := awa._lock_slot_tables(v_rels, p_lock_timeout_ms, v_stalled);
        END IF;
        IF v_detail IS NOT NULL THEN
            RAISE EXCEPTION 'awa: prune blocked' USING ERRCODE = 'AW099';
        END IF;
        v_changed := p_ring <> 'cursor' AND awa._slot_fingerprint(p_ring, v_target) IS DISTINCT FROM v_print;
        IF v_changed THEN
            RAISE EXCEPTION 'awa: prune slot changed' USING ERRCODE = 'AW099';
        END IF;
    EXCEPTION WHEN SQLSTATE 'AW099' THEN
        NULL;
    END;
    IF v_detail IS NOT NULL THEN
        RETURN QUERY SELECT p_ring, 'prune', 'skipped_blocked', v_target, v_gen, v_detail;
        RAISE EXCEPTION 'awa: prune ends untruncated' USING ERRCODE = 'AW098';
    END IF;
    IF v_changed THEN
        RETURN QUERY SELECT p_ring, 'prune', 'skipped_live', v_target, v_gen,
                            format('slot %s changed while prune waited for its locks (seen under lock)', v_target);
        RAISE EXCEPTION 'awa: prune ends untruncated' USING ERRCODE = 'AW098';
    END IF;

    -- Under the locks, the hot path waits: only the work the fingerprint
    -- (unchanged since the proof) leaves: available jobs only if it showed
    -- some; running jobs only in batches the proof saw open.
    IF p_ring = 'queue' THEN
        IF v_available THEN
            SELECT c.moved, c.remaining INTO v_moved, v_rest FROM awa._carry_ready(v_target, v_into, p_carry_limit) AS c;
        END IF;
        IF v_rest > 0 THEN
            RETURN QUERY SELECT p_ring, 'prune', 'carried', v_target, v_gen,
                                format('moved %s available jobs to slot %s, %s%s remain', v_moved, v_into,
                                       CASE WHEN v_rest = p_carry_limit THEN 'at least ' ELSE '' END, v_rest);
            RETURN;  -- nothing archived yet (v_available): the carry stays
        END IF;
        IF v_urgent AND cardinality(v_open) > 0 THEN
            v_runs := awa._carry_running(v_target, v_current, v_open);
            IF v_runs IS NULL THEN
                RETURN QUERY SELECT p_ring, 'prune', 'skipped_live', v_target, v_gen,
                                    format('a closer holds the lock of a claim batch drawn from slot %s', v_target);
                RAISE EXCEPTION 'awa: prune ends untruncated' USING ERRCODE = 'AW098';
            END IF;
        END IF;
    ELSIF p_ring = 'claim' AND v_urgent THEN
        v_runs := awa._carry_open_claims(v_target, v_current, now());
    ELSIF p_ring = 'lease' THEN
        -- Every lease slot: the decision under the locks is the one that
        -- counts (the proof's snapshot may predate a claim-ring prune).
        v_runs := awa._carry_live_leases(v_target, v_current);
    END IF;

    -- The lanes whose newest mark goes with the slot keep their cursor as a
    -- floor (a busy lane has a newer mark in the current slot and needs none).
    -- A statement of its own after the lock: it sees a mark that a claim
    -- appended to this slot after the rotation and committed while we waited.
    -- A cursor reader that waited for the lock sees the floor and the
    -- truncated marks together.
    IF p_ring = 'cursor' THEN
        UPDATE awa.queue_claim_heads h SET claim_seq = s.claim_seq
        FROM (SELECT m.lane_id, max(m.claim_seq) AS claim_seq
              FROM awa.cursor_marks m WHERE m.cursor_slot = v_target GROUP BY m.lane_id) AS s
        WHERE h.lane_id = s.lane_id AND h.claim_seq < s.claim_seq
          AND NOT EXISTS (SELECT 1 FROM awa.cursor_marks o
                          WHERE o.lane_id = s.lane_id AND o.claim_seq >= s.claim_seq AND o.cursor_slot <> v_target);
    END IF;

    -- Under the locks: what committed into the slot since the first copy
    -- (usually nothing: two scans of the slot's done tables), or all of it for
    -- a slot that had jobs to carry.
    IF v_archive THEN
        v_arch := awa._archive_slot(v_target, v_arch.batch_ids, v_arch.entry_ids, now());
    END IF;

    -- Only the tables that hold pages (nothing can add any under the locks):
    -- each truncated table and index costs a new file, and each btree an
    -- fsync, while the hot path waits.
    v_rel := (SELECT string_agg(format('awa.%I', t), ', ')
              FROM unnest(v_rels) AS t
              WHERE t <> 'cursor_marks' AND pg_relation_size(format('awa.%I', t)::regclass) > 0);
    IF v_rel IS NOT NULL THEN
        EXECUTE 'TRUNCATE ' || v_rel;
    END IF;
    IF v_held THEN
        DELETE FROM awa.ring_held_slots h WHERE h.ring = p_ring AND h.slot = v_target;
    END IF;

    RETURN QUERY SELECT p_ring, 'prune', 'pruned', v_target, v_gen, format('truncated slot %s', v_target)
        || CASE WHEN v_moved > 0 THEN format(' after moving %s available jobs to slot %s', v_moved, v_into) ELSE '' END
        || CASE WHEN v_runs > 0 THEN format(' after carrying %s %s to slot %s', v_runs,
                                            CASE p_ring WHEN 'lease' THEN 'live leases' ELSE 'claim batches of running jobs' END,
                                            v_current)
                ELSE '' END;
    EXCEPTION WHEN SQLSTATE 'AW098' THEN
        NULL;  -- the outcome is returned; the copy to the archive is undone
    END;
END;
$$;
