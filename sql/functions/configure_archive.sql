-- awa.configure_archive(opts, queue): sets how long terminal jobs are kept in
-- the archive and returns the retention rows of that scope (queue NULL: the
-- install's defaults, queue '*'). opts keys: completed_seconds,
-- failed_seconds, cancelled_seconds (0..315360000; 0: not archived; for a
-- queue, null removes its override, so the default applies again);
-- export_function (install-wide only: the name of a function
-- fn(timestamptz, timestamptz, regclass) that receives each cohort before it
-- is dropped, or null to remove the hook). Keys not given keep their value.
-- A retention applies to jobs archived from then on: an archived job keeps
-- the expiry it was given (docs/storage.md, "History archive").
-- Locks: the rows it upserts (a retention also in awa.archive_retention_log).
-- Idempotent.
-- Errors: AW002 bad queue name; AW004 unknown key; AW005 wrong type; AW006
-- a retention out of range; AW010 export_function with a queue, or naming no
-- function of that signature. Called by operators (awa_admin).
-- Preamble as the other entry points' on purpose (definer rights, pinned
-- search_path): SQL cannot share a function's attributes.
CREATE FUNCTION awa.configure_archive(p_opts jsonb, p_queue text DEFAULT NULL)
RETURNS SETOF awa.archive_retention
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    v_scope text := coalesce(p_queue, '*');
    v_key   text;
    v_val   jsonb;
    v_fn    regprocedure;
    v_pass  int;
BEGIN
    IF p_queue IS NOT NULL AND NOT awa._queue_name_ok(p_queue) THEN
        RAISE EXCEPTION 'awa: queue must be 1 to 50 characters of [A-Za-z0-9_.:-], got %',
            quote_literal(p_queue) USING ERRCODE = 'AW002';
    END IF;
    IF p_opts IS NULL OR jsonb_typeof(p_opts) <> 'object' THEN
        RAISE EXCEPTION 'awa: opts must be a JSON object, got %', coalesce(left(p_opts::text, 100), 'null')
            USING ERRCODE = 'AW005';
    END IF;

    -- Two passes: the first checks every key and writes nothing, the second
    -- writes (bad input writes nothing, whatever the order of the keys).
    FOR v_pass IN 1 .. 2 LOOP
    FOR v_key, v_val IN SELECT key, value FROM jsonb_each(p_opts) ORDER BY key LOOP
        CASE
        WHEN v_key IN ('completed_seconds', 'failed_seconds', 'cancelled_seconds') THEN
            IF jsonb_typeof(v_val) = 'null' AND p_queue IS NOT NULL THEN
                CONTINUE WHEN v_pass = 1;
                DELETE FROM awa.archive_retention r
                WHERE r.queue = v_scope AND r.state = split_part(v_key, '_', 1)::awa.job_state;
                CONTINUE;
            END IF;
            IF jsonb_typeof(v_val) <> 'number' OR v_val::numeric <> trunc(v_val::numeric) THEN
                RAISE EXCEPTION 'awa: opts.% must be an integer%, got %', v_key,
                    CASE WHEN p_queue IS NOT NULL THEN ' or null' ELSE '' END, v_val USING ERRCODE = 'AW005';
            END IF;
            PERFORM awa._require_between('opts.' || v_key, v_val::numeric, 0, 315360000, 'AW006');
            CONTINUE WHEN v_pass = 1;
            INSERT INTO awa.archive_retention AS r (queue, state, retention, updated_at)
            VALUES (v_scope, split_part(v_key, '_', 1)::awa.job_state, make_interval(secs => v_val::numeric), now())
            ON CONFLICT (queue, state) DO UPDATE SET retention = excluded.retention, updated_at = excluded.updated_at;
            -- Listings by finalization time look for jobs of every retention
            -- a copy may have used (awa.archive_retention_log).
            INSERT INTO awa.archive_retention_log (retention)
            SELECT make_interval(secs => v_val::numeric) WHERE v_val::numeric > 0
            ON CONFLICT DO NOTHING;
        WHEN v_key = 'export_function' THEN
            IF p_queue IS NOT NULL THEN
                RAISE EXCEPTION 'awa: export_function is set for the install, not for queue %', quote_literal(p_queue)
                    USING ERRCODE = 'AW010';
            END IF;
            IF jsonb_typeof(v_val) = 'null' THEN
                CONTINUE WHEN v_pass = 1;
                DELETE FROM awa.archive_export;
                CONTINUE;
            END IF;
            IF jsonb_typeof(v_val) <> 'string' THEN
                RAISE EXCEPTION 'awa: opts.export_function must be a function name or null, got %', v_val
                    USING ERRCODE = 'AW005';
            END IF;
            v_fn := to_regprocedure((v_val #>> '{}') || '(timestamptz, timestamptz, regclass)');
            IF v_fn IS NULL THEN
                RAISE EXCEPTION 'awa: export_function % names no function (timestamptz, timestamptz, regclass)',
                    quote_literal(v_val #>> '{}') USING ERRCODE = 'AW010';
            END IF;
            CONTINUE WHEN v_pass = 1;
            INSERT INTO awa.archive_export AS e (only_row, export_function, updated_at) VALUES (true, v_fn, now())
            ON CONFLICT (only_row) DO UPDATE SET export_function = excluded.export_function,
                                                 updated_at = excluded.updated_at;
        ELSE
            RAISE EXCEPTION 'awa: unknown archive option %', quote_literal(v_key)
                USING ERRCODE = 'AW004',
                      HINT = 'known options: completed_seconds, failed_seconds, cancelled_seconds, export_function';
        END CASE;
    END LOOP;
    END LOOP;

    RETURN QUERY SELECT * FROM awa.archive_retention r WHERE r.queue = v_scope ORDER BY r.state;
END;
$$;
