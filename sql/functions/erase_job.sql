-- awa.erase_job(job_id, erase_errors, now): removes one job's data on request
-- (data-protection erasure) wherever it lives: args become '{}' and metadata
-- '{"erased_at": <now>}' in every row that holds the job's body (ready rows of
-- the queue ring and the job's item of its batch row, terminal snapshots,
-- the backlog, the parked plane, the DLQ, the archive); its progress
-- checkpoint is deleted and a callback result it was handed is cleared; with
-- erase_errors, its errors too. A job that has not ended is cancelled first
-- (awa.cancel_job: a running attempt's late result is then stale), so
-- nothing runs with the erased args; a DLQ job stays in the DLQ, erased.
-- Returns one row per plane that held the job (plane, rows; a batch row's
-- item counts as a ready row).
-- The hot path stays append-only: these are UPDATEs of the job's own rows, an
-- operator's rare act; each leaves a dead version that the slot's TRUNCATE
-- (rings) or VACUUM (plain tables, the archive) reclaims. docs/storage.md,
-- "Erasure".
-- Locks: first the queue ring's rotate/prune lock (ring, hashtext('queue')),
-- waited for: a prune that copied the job's slot to the archive commits first
-- and its copy is erased below, and no prune copies a half-erased slot (one
-- that starts meanwhile is skipped_locked until we commit); then as
-- awa.cancel_job; then ACCESS SHARE on the cursor ring and ROW EXCLUSIVE on
-- the queue ring's tables in prune's order (awa._ring_tables), before the
-- UPDATEs lock them in the planner's order.
-- Idempotent: a second call rewrites the same rows to the same values.
-- Errors: AW010 job_id NULL; AW020 no such job (or no longer retained); AW021
-- the job went on through five cancels in a row (racing workers), nothing erased.
-- Isolation: refuses a transaction not at READ COMMITTED (AW040, writes nothing).
-- Called by operators (awa jobs erase, Driver.EraseJob).
-- Preamble as the other entry points' on purpose (definer rights, pinned
-- search_path, jit off, v_now, READ COMMITTED guard): SQL cannot share it.
CREATE FUNCTION awa.erase_job(p_job_id bigint, p_erase_errors boolean DEFAULT false, p_now timestamptz DEFAULT NULL)
RETURNS SETOF awa.erasure_result
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
SET jit = off
AS $$
DECLARE
    v_now    timestamptz := coalesce(p_now, now());
    v_meta   jsonb;
    v_errors boolean := coalesce(p_erase_errors, false);
    v_state  awa.job_state;
    v_n      bigint;
    v_items  bigint;
    v_ended  boolean;
    v_plane  text;
    v_table  text;
BEGIN
    PERFORM awa._require_read_committed('awa.erase_job');
    IF p_job_id IS NULL THEN
        RAISE EXCEPTION 'awa: job_id must not be null' USING ERRCODE = 'AW010';
    END IF;
    v_meta := jsonb_build_object('erased_at', v_now);
    PERFORM pg_advisory_xact_lock(awa._lock_key('ring'), hashtext('queue'));

    -- A job that has not ended is cancelled. A worker may end it meanwhile
    -- (cancel_job then raises AW021: nothing left to cancel), or finalize its
    -- attempt so that it goes on (stale: a retry, say): then it is cancelled
    -- where it went.
    FOR i IN 1 .. 5 LOOP
        v_state := awa._job_state(p_job_id);
        IF v_state IS NULL THEN
            RAISE EXCEPTION 'awa: job % not found', p_job_id USING ERRCODE = 'AW020';
        END IF;
        v_ended := v_state IN ('completed', 'failed', 'cancelled');
        EXIT WHEN v_ended;
        BEGIN
            v_ended := (SELECT c.outcome FROM awa.cancel_job(p_job_id, 'cancelled to erase its data', v_now) AS c)
                       = 'applied';
        EXCEPTION WHEN SQLSTATE 'AW021' THEN
            v_ended := true;
        END;
        EXIT WHEN v_ended;
    END LOOP;
    IF NOT v_ended THEN  -- five stale cancels in a row: the job keeps moving; nothing is erased
        RAISE EXCEPTION 'awa: job % kept running through five cancels; erase it again', p_job_id
            USING ERRCODE = 'AW021';
    END IF;

    PERFORM awa._lock_ring_reads(ARRAY['cursor']);
    EXECUTE 'LOCK TABLE ' || (SELECT string_agg(format('awa.%I', t), ', ' ORDER BY k)
                              FROM unnest(awa._ring_tables('queue')) WITH ORDINALITY AS u (t, k))
            || ' IN ROW EXCLUSIVE MODE';

    -- The planes that hold the job's body, the archive last: a statement of
    -- its own, it sees the copy of a prune that committed while we waited
    -- for the ring lock.
    FOR v_plane, v_table IN VALUES ('ready', 'ready_entries'), ('done', 'done_entries'), ('deferred', 'deferred_jobs'),
                                   ('parked', 'external_waits'), ('dlq', 'dlq_entries'), ('archive', 'archived_chunks') LOOP
        IF v_plane = 'archive' THEN
            DELETE FROM awa.attempt_state WHERE job_id = p_job_id;
            GET DIAGNOSTICS v_n = ROW_COUNT;
            IF v_n > 0 THEN RETURN QUERY SELECT 'progress'::text, v_n; END IF;
            UPDATE awa.callbacks SET result = NULL WHERE job_id = p_job_id AND result IS NOT NULL;
            GET DIAGNOSTICS v_n = ROW_COUNT;
            IF v_n > 0 THEN RETURN QUERY SELECT 'callbacks'::text, v_n; END IF;
            -- The job's elements of its chunk, found by the chunks' id bounds
            -- (awa._archived_job): one row rewritten per archived job.
            UPDATE awa.archived_chunks c
            SET args[a.k::int] = '{}', metadata[a.k::int] = v_meta,
                errors[a.k::int] = CASE WHEN v_errors THEN NULL ELSE c.errors[a.k::int] END
            FROM awa._archived_job(p_job_id) AS a
            WHERE c.expires_at = a.expires_at AND c.chunk_id = a.chunk_id;
        ELSE
            EXECUTE format('UPDATE awa.%I SET args = ''{}'', metadata = $1,
                                   errors = CASE WHEN $2 THEN NULL ELSE errors END
                            WHERE job_id = $3', v_table)
            USING v_meta, v_errors, p_job_id;
        END IF;
        GET DIAGNOSTICS v_n = ROW_COUNT;
        IF v_plane = 'ready' THEN
            -- The job's item of its batch row (its first run: no errors),
            -- rewritten in place; the row's other jobs keep theirs. A NULL
            -- item_metadata (every item's {}) becomes an array. The row is
            -- found by the id index: its first_id is within 1,024 below the id.
            UPDATE awa.ready_batches b
            SET item_args[(p_job_id - b.first_id + 1)::int] = '{}',
                item_metadata = array_cat(
                    array_append(coalesce(b.item_metadata[:(p_job_id - b.first_id)::int],
                                          array_fill('{}'::jsonb, ARRAY[(p_job_id - b.first_id)::int])), v_meta),
                    coalesce(b.item_metadata[(p_job_id - b.first_id + 2)::int:],
                             array_fill('{}'::jsonb, ARRAY[(b.first_id + b.n - 1 - p_job_id)::int])))
            WHERE b.first_id <= p_job_id AND b.first_id > p_job_id - 1024 AND p_job_id < b.first_id + b.n;
            GET DIAGNOSTICS v_items = ROW_COUNT;
            v_n := v_n + v_items;
        END IF;
        IF v_n > 0 THEN RETURN QUERY SELECT v_plane, v_n; END IF;
    END LOOP;
END;
$$;
