-- awa.run_maintenance(holder, lease_ttl, ...): one whole maintenance tick for
-- deployments without the Go client (a pg_cron job, a cron entry running
-- psql, or a worker in any language calling it every second or so):
-- take or renew the leader lease 'maintenance' (the one Go clients elect on)
-- for holder; if another process leads, report leader false and do nothing.
-- Otherwise: promote due jobs, rescue stale claims, expired deadlines and timed-out callbacks,
-- then per ring what the Go leader does (queue, claim and lease rings: rotate
-- at most once per its interval, then prune while prune carries; cursor
-- ring: prune, then rotate), then the archive (awa.maintain_archive), then
-- remove rows of silent worker processes
-- and the progress checkpoints and unique key rows of jobs that are gone,
-- then retire idle key lanes (awa.retire_idle_key_lanes).
-- A PROCEDURE: it commits after each step, each step in its own READ
-- COMMITTED transaction (whatever the session's default level), so a prune's locks are
-- held only for that prune. Call it outside a transaction block
-- (CALL awa.run_maintenance(); pg_cron and autocommit clients do); inside
-- one, its first COMMIT raises 2D000 and nothing is written.
-- report (INOUT): {"leader", "promoted", "rescued_stale", "rescued_deadline", "rescued_callback",
-- "archive": [archive outcomes], "instances_removed", "rings": [ring outcomes],
-- "attempt_states_removed", "unique_keys_removed", "key_lanes_retired"}.
-- Locks: those of each function it calls, one step at a time.
-- Errors: AW010 holder NULL, lease_ttl outside 1 s..1 h, an interval not
-- positive, keep_sealed outside 0..14, batch outside 1..100000,
-- lock_timeout_ms outside 1..60000 (checked before anything is written);
-- 2D000 inside a transaction block.
CREATE PROCEDURE awa.run_maintenance(
    p_holder               uuid     DEFAULT md5('awa.run_maintenance')::uuid,
    p_lease_ttl            interval DEFAULT interval '2 minutes',
    p_stale_after          interval DEFAULT interval '90 seconds',
    p_queue_ring_interval  interval DEFAULT interval '5 seconds',
    p_claim_ring_interval  interval DEFAULT interval '2 seconds',
    p_cursor_ring_interval interval DEFAULT interval '2 seconds',
    p_keep_sealed          int      DEFAULT 14,
    p_batch                int      DEFAULT 1000,
    p_lock_timeout_ms      int      DEFAULT 50,
    INOUT report           jsonb    DEFAULT NULL
)
LANGUAGE plpgsql
AS $$
DECLARE
    v_leader   boolean;
    v_n        int;
    v_rings    jsonb := '[]';
    v_out      jsonb;
    v_bad      text;
    v_ring     text;
    v_interval interval;
    v_carried  boolean;
    v_until    timestamptz;
BEGIN
    IF p_holder IS NULL THEN
        RAISE EXCEPTION 'awa: holder must not be null' USING ERRCODE = 'AW010';
    END IF;
    -- Range checks written here, not with the internal _require_between (same
    -- messages): a caller's-rights procedure may call no internal, which its
    -- caller (awa_admin) may not execute (docs/privileges.md).
    IF p_lease_ttl IS NULL OR p_lease_ttl NOT BETWEEN interval '1 second' AND interval '1 hour' THEN
        RAISE EXCEPTION 'awa: lease ttl must be between 1 second and 1 hour, got %', coalesce(p_lease_ttl::text, 'null')
            USING ERRCODE = 'AW010';
    END IF;
    IF num_nulls(p_stale_after, p_queue_ring_interval, p_claim_ring_interval, p_cursor_ring_interval) > 0
       OR least(p_stale_after, p_queue_ring_interval, p_claim_ring_interval, p_cursor_ring_interval) <= interval '0' THEN
        RAISE EXCEPTION 'awa: stale_after and the ring intervals must be positive, got %, %, %, %',
            p_stale_after, p_queue_ring_interval, p_claim_ring_interval, p_cursor_ring_interval USING ERRCODE = 'AW010';
    END IF;
    SELECT format('awa: %s must be between %s and %s, got %s', r.name, r.lo, r.hi, coalesce(r.value::text, 'null'))
    INTO v_bad
    FROM (VALUES ('keep_sealed', p_keep_sealed, 0, 14), ('batch', p_batch, 1, 100000),
                 ('lock_timeout_ms', p_lock_timeout_ms, 1, 60000)) AS r (name, value, lo, hi)
    WHERE r.value IS NULL OR r.value NOT BETWEEN r.lo AND r.hi
    LIMIT 1;
    IF v_bad IS NOT NULL THEN
        RAISE EXCEPTION '%', v_bad USING ERRCODE = 'AW010';
    END IF;

    -- Nothing is written before this: inside a transaction block it raises
    -- 2D000. Every later COMMIT AND CHAIN starts the next step's transaction
    -- at READ COMMITTED too.
    COMMIT;
    SET TRANSACTION ISOLATION LEVEL READ COMMITTED;
    SELECT l.is_leader INTO v_leader FROM awa.acquire_leader_lease('maintenance', p_holder, p_lease_ttl) AS l;
    COMMIT AND CHAIN;
    IF NOT v_leader THEN
        report := jsonb_build_object('leader', false);
        RETURN;
    END IF;

    SELECT count(*) INTO v_n FROM awa.promote_due_jobs(p_batch);
    report := jsonb_build_object('leader', true, 'promoted', v_n);
    COMMIT AND CHAIN;
    SELECT count(*) INTO v_n FROM awa.rescue_stale_claims(p_stale_after, p_batch);
    report := report || jsonb_build_object('rescued_stale', v_n);
    COMMIT AND CHAIN;
    -- Applied only: its stale rows include own deadlines of attempts that
    -- ended otherwise, cleared as they came due.
    SELECT count(*) FILTER (WHERE r.outcome = 'applied') INTO v_n FROM awa.rescue_expired_deadlines(p_batch) r;
    report := report || jsonb_build_object('rescued_deadline', v_n);
    COMMIT AND CHAIN;
    SELECT count(*) INTO v_n FROM awa.rescue_expired_callbacks(p_batch);
    report := report || jsonb_build_object('rescued_callback', v_n);
    COMMIT AND CHAIN;

    FOREACH v_ring IN ARRAY ARRAY['queue', 'claim', 'lease', 'cursor'] LOOP
        v_interval := CASE v_ring WHEN 'queue' THEN p_queue_ring_interval WHEN 'claim' THEN p_claim_ring_interval
                                  WHEN 'lease' THEN p_queue_ring_interval ELSE p_cursor_ring_interval END;
        -- As the Go leader: a little under the interval, so a scheduler's
        -- jitter never skips a whole rotation.
        v_interval := v_interval * 0.9;
        IF v_ring <> 'cursor' THEN
            SELECT coalesce(jsonb_agg(to_jsonb(o)), '[]') INTO v_out FROM awa.rotate_ring(v_ring, NULL, v_interval) AS o;
            v_rings := v_rings || v_out;
            COMMIT AND CHAIN;
        END IF;
        -- A prune that carried available jobs goes on, each call its own
        -- transaction, for up to a quarter of the interval.
        v_until := clock_timestamp() + v_interval / 4;
        LOOP
            SELECT coalesce(jsonb_agg(to_jsonb(o)), '[]'), coalesce(bool_or(o.outcome = 'carried'), false)
            INTO v_out, v_carried
            FROM awa.prune_ring(v_ring, p_lock_timeout_ms, CASE WHEN v_ring = 'queue' THEN p_keep_sealed ELSE 0 END,
                                p_batch) AS o;
            v_rings := v_rings || v_out;
            COMMIT AND CHAIN;
            EXIT WHEN NOT v_carried OR clock_timestamp() >= v_until;
        END LOOP;
        IF v_ring = 'cursor' THEN
            SELECT coalesce(jsonb_agg(to_jsonb(o)), '[]') INTO v_out FROM awa.rotate_ring(v_ring, NULL, v_interval) AS o;
            v_rings := v_rings || v_out;
            COMMIT AND CHAIN;
        END IF;
    END LOOP;

    -- The archive: drain, create cohorts ahead, drop expired cohorts.
    SELECT coalesce(jsonb_agg(to_jsonb(o)), '[]') INTO v_out FROM awa.maintain_archive(p_lock_timeout_ms) AS o;
    report := report || jsonb_build_object('archive', v_out);
    COMMIT AND CHAIN;

    SELECT count(*) INTO v_n FROM awa.cleanup_runtime_instances(greatest(interval '1 hour', 2 * p_stale_after));
    report := report || jsonb_build_object('instances_removed', v_n, 'rings', v_rings);
    COMMIT AND CHAIN;
    SELECT count(*) INTO v_n FROM awa.cleanup_attempt_state(p_batch);
    report := report || jsonb_build_object('attempt_states_removed', v_n);
    COMMIT AND CHAIN;
    SELECT count(*) INTO v_n FROM awa.cleanup_unique_keys(p_batch);
    report := report || jsonb_build_object('unique_keys_removed', v_n);
    COMMIT AND CHAIN;
    SELECT count(*) INTO v_n FROM awa.retire_idle_key_lanes(p_batch);
    report := report || jsonb_build_object('key_lanes_retired', v_n);
    COMMIT AND CHAIN;
END;
$$;
