-- awa._take_unique_key(key, job_id, states): makes job_id the holder of a
-- uniqueness key, or finds the job that holds it. Returns NULL when job_id
-- now holds the key (the caller inserts the job in the same transaction), or
-- the holder (awa._unique_holder) when it is in its key's states: a
-- duplicate, nothing written.
-- How: INSERT ... ON CONFLICT DO NOTHING of the key's row. A row inserted by
-- an open transaction makes it wait for that transaction's end (one job, one
-- duplicate). On a conflict, the key's row is locked (FOR UPDATE) and its
-- holder's state read; a holder outside its states (or gone from history)
-- releases the key: the row is taken over, under that lock, so two producers
-- racing for a released key take it once; a displaced holder still in history
-- is recorded in awa.unique_released for operator retries.
-- Locks: the key's row (insert or FOR UPDATE) until commit; the holder read's
-- ring locks only while it reads.
-- Isolation: any. Under REPEATABLE READ or SERIALIZABLE, a key row inserted
-- or changed by a transaction that committed after the snapshot raises 40001
-- (PostgreSQL's check of ON CONFLICT and FOR UPDATE): retry the transaction.
-- Called by awa._insert_unique.
CREATE FUNCTION awa._take_unique_key(p_key bytea, p_job_id bigint, p_states awa.job_state[], p_now timestamptz)
RETURNS awa.inserted_job
LANGUAGE plpgsql
AS $$
DECLARE
    v_row    awa.unique_keys;
    v_holder awa.inserted_job;
BEGIN
    LOOP
        INSERT INTO awa.unique_keys (unique_key, job_id, states, taken_at)
        VALUES (p_key, p_job_id, p_states, p_now)
        ON CONFLICT (unique_key) DO NOTHING;
        IF FOUND THEN
            RETURN NULL;
        END IF;
        SELECT * INTO v_row FROM awa.unique_keys k WHERE k.unique_key = p_key FOR UPDATE;
        -- Gone between the two statements (awa.prune_unique_keys): insert again.
        CONTINUE WHEN NOT FOUND;
        v_holder := awa._unique_holder(v_row.job_id);
        IF v_holder.state = ANY (v_row.states) THEN
            RETURN v_holder;
        END IF;
        UPDATE awa.unique_keys k SET job_id = p_job_id, states = p_states, taken_at = p_now
        WHERE k.unique_key = p_key;
        IF v_holder.id IS NOT NULL THEN
            INSERT INTO awa.unique_released (job_id, unique_key, states)
            VALUES (v_row.job_id, p_key, v_row.states)
            ON CONFLICT (job_id) DO UPDATE SET unique_key = EXCLUDED.unique_key, states = EXCLUDED.states;
        END IF;
        RETURN NULL;
    END LOOP;
END;
$$;
