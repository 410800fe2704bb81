-- awa.resume_external(callback_id, payload, now): an external system hands
-- the callback's result back to the job, which goes on. A handler waiting in
-- sequence (awa.take_callback_result) gets payload and continues the same
-- attempt (state 'running'); a parked job goes back to its queue (state
-- 'available', the parked attempt not counted), its next run reading payload
-- in metadata.callback_result. Returns one row: applied, or stale
-- (already resolved or resumed, forged, timed out: nothing written).
-- docs/storage.md, "Callbacks".
-- Errors: AW010 callback_id NULL, payload over 65536 bytes as text.
-- Isolation: refuses a transaction not at READ COMMITTED (AW040, writes nothing).
-- Called by callback receivers (the Go driver's CallbackHandler) and any SQL.
-- Signature as its siblings' on purpose: the body is awa._resolve_callback.
CREATE FUNCTION awa.resume_external(p_callback_id uuid, p_payload jsonb DEFAULT NULL, p_now timestamptz DEFAULT NULL)
RETURNS SETOF awa.callback_outcome
LANGUAGE sql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT * FROM awa._resolve_callback('resume', p_callback_id, p_payload, NULL, NULL, p_now)
$$;
