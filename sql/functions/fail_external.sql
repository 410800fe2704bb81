-- awa.fail_external(callback_id, error, now): an external system reports the
-- callback's work failed for good: the job ends failed (in the DLQ when its
-- queue has the DLQ on), error appended to its errors, the attempt counted.
-- Returns one row: applied with state 'failed', or stale (nothing written).
-- docs/storage.md, "Callbacks".
-- Errors: AW010 callback_id NULL.
-- Isolation: refuses a transaction not at READ COMMITTED (AW040, writes nothing).
-- Called by callback receivers (the Go driver's CallbackHandler) and any SQL.
-- Signature as its siblings' on purpose: the body is awa._resolve_callback.
CREATE FUNCTION awa.fail_external(p_callback_id uuid, p_error text DEFAULT NULL, p_now timestamptz DEFAULT NULL)
RETURNS SETOF awa.callback_outcome
LANGUAGE sql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT * FROM awa._resolve_callback('fail', p_callback_id, NULL, p_error, NULL, p_now)
$$;
