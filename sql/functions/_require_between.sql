-- awa._require_between(name, value, min, max, errcode, range): returns when
-- value lies in min..max; otherwise (NULL included) raises errcode (AW010 by
-- default) with 'awa: <name> must be between <min> and <max>, got <value>'
-- (range, when given, replaces '<min> and <max>'; a NULL value reads null).
-- The one range check of the public functions' arguments; no lock, no write.
-- Not on the per-job paths: _validate_job and claim_ready_runtime keep their
-- checks inline (a call per job would cost the hot path).
-- Called by run_maintenance, prune_ring, acquire_leader_lease, the limits of
-- promote_due_jobs, the rescues and purge_dlq, configure_queue (AW006) and
-- install_queue_storage_substrate.
CREATE FUNCTION awa._require_between(p_name text, p_value anycompatible, p_min anycompatible, p_max anycompatible,
                                     p_errcode text DEFAULT 'AW010', p_range text DEFAULT NULL)
RETURNS void
LANGUAGE plpgsql
AS $$
BEGIN
    IF p_value IS NULL OR p_value < p_min OR p_value > p_max THEN
        RAISE EXCEPTION 'awa: % must be between %, got %', p_name, coalesce(p_range, p_min || ' and ' || p_max),
            coalesce(p_value::text, 'null')
            USING ERRCODE = p_errcode;
    END IF;
END;
$$;
