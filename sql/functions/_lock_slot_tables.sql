-- awa._lock_slot_tables(rels, lock_timeout_ms, stalled): takes the locks a
-- prune needs on the named awa tables (ACCESS SHARE on cursor_marks, ACCESS
-- EXCLUSIVE on the others), all or none per attempt, within lock_timeout_ms.
-- Returns NULL once it holds them all (held to the end of the caller's
-- transaction), else why not (the caller's skipped_blocked detail).
-- Policy (docs/storage.md, "Rotation and prune", step 2): NOWAIT attempts 1
-- ms apart for three fifths of the budget, then attempts that wait in the
-- lock queue for a tenth of it each (at least 2 ms), all of it after the
-- first 1 ms when the ring is stalled; each lock_timeout is set inside the
-- attempt's subtransaction and so restored when it ends.
-- nowait_only: NOWAIT attempts for the whole budget (a caller that holds
-- another of the slot's locks must never wait in the lock queue). lock_timeout_ms 0:
-- one NOWAIT attempt (prune_ring, holding a lock out of order, never waits).
-- Called by awa.prune_ring only.
CREATE FUNCTION awa._lock_slot_tables(p_rels text[], p_lock_timeout_ms int, p_stalled boolean,
                                      p_nowait_only boolean DEFAULT false)
RETURNS text
LANGUAGE plpgsql
AS $$
DECLARE
    v_until   timestamptz := clock_timestamp() + make_interval(secs => p_lock_timeout_ms / 1000.0);
    v_queue_at timestamptz;
    v_step    interval := make_interval(secs => CASE WHEN p_stalled THEN p_lock_timeout_ms
                                                     ELSE greatest(p_lock_timeout_ms / 10, 2) END / 1000.0);
    v_wait    boolean;
    v_attempt_end timestamptz;
    v_left    int;
    v_rel     text;
    v_cycle   boolean := false;
    v_old     text := current_setting('lock_timeout');
BEGIN
    v_queue_at := CASE WHEN p_nowait_only THEN 'infinity'::timestamptz ELSE v_until END - make_interval(secs => greatest(CASE WHEN p_stalled THEN p_lock_timeout_ms - 1
                                                               ELSE p_lock_timeout_ms * 2 / 5 END, 1) / 1000.0);
    LOOP
        v_wait := clock_timestamp() >= v_queue_at;
        v_attempt_end := least(v_until, clock_timestamp() + v_step);
        BEGIN
            FOREACH v_rel IN ARRAY p_rels LOOP
                v_left := ceil(extract(epoch FROM v_attempt_end - clock_timestamp()) * 1000)::int;
                IF v_wait AND v_left >= 1 THEN
                    PERFORM set_config('lock_timeout', v_left || 'ms', true);
                END IF;
                EXECUTE format('LOCK TABLE awa.%I IN %s MODE%s', v_rel,
                               CASE WHEN v_rel = 'cursor_marks' THEN 'ACCESS SHARE' ELSE 'ACCESS EXCLUSIVE' END,
                               CASE WHEN v_wait AND v_left >= 1 THEN '' ELSE ' NOWAIT' END);
            END LOOP;
            IF v_wait THEN
                PERFORM set_config('lock_timeout', v_old, true);
            END IF;
            RETURN NULL;
        EXCEPTION WHEN lock_not_available OR deadlock_detected THEN
            v_cycle := SQLSTATE = '40P01';  -- the subtransaction released its locks and lock_timeout
        END;
        IF clock_timestamp() >= v_until THEN
            RETURN format('awa.%s not free within %s ms', v_rel, p_lock_timeout_ms)
                   || CASE WHEN v_cycle THEN ' (its wait closed a lock cycle)' ELSE '' END;
        END IF;
        PERFORM pg_sleep(least(0.001, greatest(extract(epoch FROM v_until - clock_timestamp()), 0)));
    END LOOP;
END;
$$;
