-- awa.listen_queues(queues): makes the calling session LISTEN on each queue's
-- channel ("awa:<queue>"), where inserts and promotions notify when claimable
-- work appears, and on the control channel "awa:" (no queue name), where
-- awa.cancel_job announces a running attempt it closed ('<job_id>:<run_lease>'),
-- and on "awa:+promote", where a deferred job due before every other one wakes
-- the maintenance leader (awa._wake_promoter).
-- Takes effect when the calling transaction commits (at once
-- in autocommit). Session state: use a dedicated connection, not one shared
-- through a transaction-mode pooler (polling covers that case).
-- Errors: AW002 a NULL or invalid queue name.
CREATE FUNCTION awa.listen_queues(p_queues text[])
RETURNS void
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_queue text;
BEGIN
    FOREACH v_queue IN ARRAY coalesce(p_queues, ARRAY[]::text[]) LOOP
        IF NOT awa._queue_name_ok(v_queue) THEN
            RAISE EXCEPTION 'awa: queue must be 1 to 50 characters of [A-Za-z0-9_.:-], got %',
                coalesce(quote_literal(v_queue), 'null') USING ERRCODE = 'AW002';
        END IF;
        EXECUTE format('LISTEN %I', 'awa:' || v_queue);
    END LOOP;
    EXECUTE format('LISTEN %I', 'awa:');
    EXECUTE format('LISTEN %I', 'awa:+promote');
END;
$$;
