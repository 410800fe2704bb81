-- awa.maintain_archive(lock_timeout_ms, max_drops, now): one pass of archive
-- maintenance (docs/storage.md, "History archive"), in this order:
--   drain: chunks in the DEFAULT partition (a cohort had no partition) move
--          to their cohorts (created), with their tag rows; expired ones go;
--          at most 100 chunks (100,000 jobs) a pass;
--   create: the cohorts the next copies need, ahead: for each retention in
--          use, the hour of now + retention, one before and three after;
--   drop: up to max_drops cohorts whose end has passed (every row in it is
--          past its retention: expires_at < cohort end <= now), oldest first.
--          Under SHARE on the cohort (no writer; readers go on) the export
--          hook, if one is set, receives it; if it raises, the cohort is kept
--          and awa.archive_cohorts.export_error says why (skipped_export);
--          then DROP TABLE of the cohort and of its tags' partition.
-- Every lock is waited for at most lock_timeout_ms (a reader holding the
-- cohort: skipped_blocked, retried next pass), never longer.
-- Locks: try-lock (ring, hashtext('archive')) (skipped_locked); SHARE then
-- ACCESS EXCLUSIVE on a cohort and ACCESS EXCLUSIVE on awa.archived_chunks, then
-- on awa.archived_tags and the cohort's tags, for a drop, a drain or a
-- create, each within lock_timeout_ms, in a subtransaction.
-- Errors: AW010 lock_timeout_ms outside 1..60000, max_drops outside 0..1000;
-- AW040 outside READ COMMITTED. Called by the maintenance leader on a ticker
-- and by awa.run_maintenance.
-- Preamble as the other entry points' on purpose (definer rights, pinned
-- search_path, jit off, READ COMMITTED guard): SQL cannot share it.
CREATE FUNCTION awa.maintain_archive(p_lock_timeout_ms int DEFAULT 50, p_max_drops int DEFAULT 16,
                                     p_now timestamptz DEFAULT NULL)
RETURNS SETOF awa.archive_outcome
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
SET jit = off
AS $$
DECLARE
    v_now     timestamptz := coalesce(p_now, now());
    v_timeout text := p_lock_timeout_ms || 'ms';
    v_old     text := current_setting('lock_timeout');
    v_moved   awa.archived_chunks[];
    v_tags    awa.archived_tags[];
    v_tagrel  text;
    v_start   timestamptz;
    v_rel     text;
    v_fn      text;
    v_err     text;
    v_blocked text;
    v_bytes   bigint;
BEGIN
    PERFORM awa._require_read_committed('awa.maintain_archive');
    PERFORM awa._require_between('lock_timeout_ms', p_lock_timeout_ms, 1, 60000);
    PERFORM awa._require_between('max_drops', p_max_drops, 0, 1000);
    IF NOT pg_try_advisory_xact_lock(awa._lock_key('ring'), hashtext('archive')) THEN
        RETURN QUERY SELECT 'maintain', 'skipped_locked', NULL::timestamptz, NULL::bigint,
                            'another maintain_archive holds its lock';
        RETURN;
    END IF;

    -- Drain the DEFAULT partition: normally empty, so one probe.
    IF EXISTS (SELECT 1 FROM awa.archived_chunks_default) THEN
        BEGIN
            PERFORM set_config('lock_timeout', v_timeout, true);
            LOCK TABLE awa.archived_chunks, awa.archived_tags IN ACCESS EXCLUSIVE MODE;
            WITH d AS (DELETE FROM awa.archived_chunks_default x
                       WHERE x.ctid IN (SELECT y.ctid FROM awa.archived_chunks_default y LIMIT 100)
                       RETURNING x.*)
            SELECT array_agg(d) INTO v_moved FROM d;
            WITH d AS (DELETE FROM awa.archived_tags_default x
                       WHERE x.chunk_id IN (SELECT m.chunk_id FROM unnest(v_moved) AS m)
                       RETURNING x.*)
            SELECT array_agg(d) INTO v_tags FROM d;
            FOR v_start IN SELECT DISTINCT date_trunc('hour', m.expires_at, 'UTC') FROM unnest(v_moved) AS m
                           WHERE m.expires_at > v_now LOOP
                PERFORM awa._create_archive_cohort(v_start);
            END LOOP;
            INSERT INTO awa.archived_chunks SELECT m.* FROM unnest(v_moved) AS m WHERE m.expires_at > v_now;
            INSERT INTO awa.archived_tags SELECT t.* FROM unnest(v_tags) AS t WHERE t.expires_at > v_now;
            PERFORM set_config('lock_timeout', v_old, true);
            RETURN QUERY SELECT 'drain', 'drained', NULL::timestamptz,
                                (SELECT sum(m.n) FROM unnest(v_moved) AS m)::bigint,
                                format('moved %s jobs in %s chunks out of awa.archived_chunks_default'
                                       ' (expired ones dropped)',
                                       (SELECT sum(m.n) FROM unnest(v_moved) AS m), cardinality(v_moved));
        EXCEPTION WHEN lock_not_available OR deadlock_detected THEN
            RETURN QUERY SELECT 'drain', 'skipped_blocked', NULL::timestamptz, NULL::bigint,
                                format('awa.archived_chunks not free within %s ms', p_lock_timeout_ms);
        END;
    END IF;

    -- Create ahead: a copy gives a job expires_at = finalized_at + retention,
    -- finalized a minute or so before (the ring's kept slots).
    FOR v_start IN
        SELECT DISTINCT date_trunc('hour', v_now + r.retention, 'UTC') + h * interval '1 hour'
        FROM awa.archive_retention r CROSS JOIN generate_series(-1, 3) AS h
        WHERE r.retention > interval '0'
          AND NOT EXISTS (SELECT 1 FROM awa.archive_cohorts c
                          WHERE c.cohort_start = date_trunc('hour', v_now + r.retention, 'UTC') + h * interval '1 hour')
        ORDER BY 1
    LOOP
        BEGIN
            PERFORM set_config('lock_timeout', v_timeout, true);
            v_rel := awa._create_archive_cohort(v_start);
            PERFORM set_config('lock_timeout', v_old, true);
            RETURN QUERY SELECT 'create', 'created', v_start, 0::bigint, format('created awa.%s', v_rel);
        EXCEPTION
            WHEN lock_not_available OR deadlock_detected THEN
                RETURN QUERY SELECT 'create', 'skipped_blocked', v_start, NULL::bigint,
                                    format('awa.archived_chunks not free within %s ms', p_lock_timeout_ms);
                EXIT;
            WHEN check_violation THEN
                -- Rows of this cohort reached DEFAULT since the drain: the
                -- next pass drains them and creates it.
                RETURN QUERY SELECT 'create', 'skipped_default', v_start, NULL::bigint,
                                    'awa.archived_chunks_default holds chunks of this cohort: drained next pass';
        END;
    END LOOP;

    -- Drop expired cohorts.
    -- A hook whose function was dropped since is an export that fails: the
    -- cohorts are kept, never dropped unexported.
    SELECT coalesce((SELECT format('%I.%I', n.nspname, p.proname) FROM pg_proc p
                     JOIN pg_namespace n ON n.oid = p.pronamespace WHERE p.oid = e.export_function),
                    format('awa._archive_export_missing_%s', e.export_function::oid))
    INTO v_fn
    FROM awa.archive_export e;
    FOR v_start, v_rel IN
        SELECT c.cohort_start, c.relname FROM awa.archive_cohorts c
        WHERE c.cohort_end <= v_now ORDER BY c.cohort_start LIMIT p_max_drops
    LOOP
        v_err := NULL;
        v_blocked := NULL;
        v_tagrel := awa._cohort_tags_relname(v_rel);
        BEGIN
            PERFORM set_config('lock_timeout', v_timeout, true);
            EXECUTE format('LOCK TABLE awa.%I IN SHARE MODE', v_rel);
            IF v_fn IS NOT NULL THEN
                BEGIN
                    EXECUTE format('SELECT %s($1, $2, $3)', v_fn)
                    USING v_start, v_start + interval '1 hour', format('awa.%I', v_rel)::regclass;
                EXCEPTION WHEN OTHERS THEN
                    GET STACKED DIAGNOSTICS v_err = MESSAGE_TEXT;
                    v_err := coalesce(v_err, 'error') || ' (' || SQLSTATE || ')';
                END;
                IF v_err IS NOT NULL THEN
                    RAISE EXCEPTION 'awa: export refused' USING ERRCODE = 'AW099';
                END IF;
            END IF;
            v_bytes := pg_total_relation_size(format('awa.%I', v_rel)::regclass)
                       + coalesce(pg_total_relation_size(to_regclass(format('awa.%I', v_tagrel))), 0);
            EXECUTE format('DROP TABLE awa.%I', v_rel);
            EXECUTE format('DROP TABLE IF EXISTS awa.%I', v_tagrel);
            DELETE FROM awa.archive_cohorts c WHERE c.cohort_start = v_start;
            PERFORM set_config('lock_timeout', v_old, true);
        EXCEPTION
            WHEN lock_not_available OR deadlock_detected THEN
                v_blocked := format('awa.%s or awa.archived_chunks not free within %s ms', v_rel, p_lock_timeout_ms);
            WHEN SQLSTATE 'AW099' THEN
                NULL;
        END;
        IF v_err IS NOT NULL THEN
            UPDATE awa.archive_cohorts c SET export_error = v_err, export_failed_at = clock_timestamp()
            WHERE c.cohort_start = v_start;
            RETURN QUERY SELECT 'drop', 'skipped_export', v_start, NULL::bigint,
                                format('export by %s failed: %s', v_fn, v_err);
        ELSIF v_blocked IS NOT NULL THEN
            RETURN QUERY SELECT 'drop', 'skipped_blocked', v_start, NULL::bigint, v_blocked;
        ELSE
            RETURN QUERY SELECT 'drop', 'dropped', v_start, NULL::bigint,
                                format('dropped awa.%s (%s bytes)', v_rel, v_bytes);
        END IF;
    END LOOP;
END;
$$;
