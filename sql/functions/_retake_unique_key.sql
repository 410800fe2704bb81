-- awa._retake_unique_key(job_id): before an operator retry runs a failed or
-- cancelled job again, makes sure no other job holds its uniqueness key in the
-- key's states. A job holding its key keeps it (its key row is updated in
-- place, so a REPEATABLE READ producer that read it before gets 40001 rather
-- than taking it over). A job displaced by a takeover (awa.unique_released)
-- takes its key back when the new holder has left its states, and the retry
-- is refused otherwise. A job that never asked for uniqueness: two index
-- probes of small tables, nothing written.
-- Errors: AW021 another job holds the key in its states (names it and its
-- state).
-- Locks: the key's row (FOR UPDATE), the holder read as awa._unique_holder.
-- Called by awa.retry_job and awa.retry_dlq_job for a failed or cancelled job,
-- before they take its terminal record (a refusal writes nothing).
CREATE FUNCTION awa._retake_unique_key(p_job_id bigint, p_now timestamptz)
RETURNS void
LANGUAGE plpgsql
AS $$
DECLARE
    v_rel    awa.unique_released;
    v_row    awa.unique_keys;
    v_holder awa.inserted_job;
BEGIN
    UPDATE awa.unique_keys k SET taken_at = p_now WHERE k.job_id = p_job_id;
    IF FOUND THEN
        RETURN;
    END IF;
    SELECT * INTO v_rel FROM awa.unique_released r WHERE r.job_id = p_job_id;
    IF NOT FOUND THEN
        RETURN;
    END IF;
    LOOP
        SELECT * INTO v_row FROM awa.unique_keys k WHERE k.unique_key = v_rel.unique_key FOR UPDATE;
        IF NOT FOUND THEN
            INSERT INTO awa.unique_keys (unique_key, job_id, states, taken_at)
            VALUES (v_rel.unique_key, p_job_id, v_rel.states, p_now)
            ON CONFLICT (unique_key) DO NOTHING;
            CONTINUE WHEN NOT FOUND;
        ELSE
            v_holder := awa._unique_holder(v_row.job_id);
            IF v_holder.state = ANY (v_row.states) THEN
                RAISE EXCEPTION 'awa: job % cannot run again: job % holds its unique key (%)',
                    p_job_id, v_holder.id, v_holder.state USING ERRCODE = 'AW021';
            END IF;
            UPDATE awa.unique_keys k SET job_id = p_job_id, states = v_rel.states, taken_at = p_now
            WHERE k.unique_key = v_rel.unique_key;
            IF v_holder.id IS NOT NULL THEN
                INSERT INTO awa.unique_released (job_id, unique_key, states)
                VALUES (v_row.job_id, v_row.unique_key, v_row.states)
                ON CONFLICT (job_id) DO UPDATE SET unique_key = EXCLUDED.unique_key, states = EXCLUDED.states;
            END IF;
        END IF;
        DELETE FROM awa.unique_released r WHERE r.job_id = p_job_id;
        RETURN;
    END LOOP;
END;
$$;
