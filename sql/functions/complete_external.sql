-- awa.complete_external(callback_id, payload, now): an external system
-- reports the callback's work done: the job ends completed, with payload
-- (optional, any JSON) in its metadata under callback_result. Returns
-- one row: applied with state 'completed', or stale (the token resolves
-- nothing now; nothing written). docs/storage.md, "Callbacks".
-- Errors: AW010 callback_id NULL, payload over 65536 bytes as text.
-- Isolation: refuses a transaction not at READ COMMITTED (AW040, writes nothing).
-- Called by callback receivers (the Go driver's CallbackHandler) and any SQL.
-- Signature as its siblings' on purpose (fail_, retry_, resume_external): one
-- public function per verb is the contract; the body is awa._resolve_callback.
CREATE FUNCTION awa.complete_external(p_callback_id uuid, p_payload jsonb DEFAULT NULL, p_now timestamptz DEFAULT NULL)
RETURNS SETOF awa.callback_outcome
LANGUAGE sql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT * FROM awa._resolve_callback('complete', p_callback_id, p_payload, NULL, NULL, p_now)
$$;
