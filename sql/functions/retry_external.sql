-- awa.retry_external(callback_id, error, run_at, now): an external system
-- reports the callback's work failed and may be tried again: the attempt is
-- counted, error appended, and the job is retryable at run_at (NULL: the
-- retry backoff), or failed (the DLQ) when its attempts are exhausted.
-- Returns one row: applied with the new state, or stale (nothing written).
-- docs/storage.md, "Callbacks".
-- Errors: AW010 callback_id NULL.
-- Isolation: refuses a transaction not at READ COMMITTED (AW040, writes nothing).
-- Called by callback receivers (the Go driver's CallbackHandler) and any SQL.
-- Signature as its siblings' on purpose: the body is awa._resolve_callback.
CREATE FUNCTION awa.retry_external(
    p_callback_id uuid,
    p_error       text DEFAULT NULL,
    p_run_at      timestamptz DEFAULT NULL,
    p_now         timestamptz DEFAULT NULL
)
RETURNS SETOF awa.callback_outcome
LANGUAGE sql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT * FROM awa._resolve_callback('retry', p_callback_id, NULL, p_error, p_run_at, p_now)
$$;
