-- awa.install_queue_storage_substrate(queue_slots, claim_slots, lease_slots,
-- cursor_slots)
--
-- Creates the ring children (one partition per slot of every ring parent),
-- starts each append-only rotation ledger at generation 0, and creates the
-- fixed pool of 256 lane position sequences (awa.lane_positions_0 .. _255,
-- see awa._lane_position_seq): the only objects lanes use, so a new queue
-- creates none; the archive's DEFAULT partitions, default retentions and
-- their log (awa.archive_retention_log); lz4 compression for the id
-- arrays of the claim and completion batches and the item arrays of the
-- ready batches, where the server has it;
-- then applies the privileges (awa._apply_privileges: roles,
-- grants, nothing for PUBLIC). Idempotent: a second
-- call with the same slot counts changes nothing. A ring's slot count is fixed
-- once installed; asking for another raises AW031.
-- Locks: a transaction-scoped advisory lock serializes concurrent installers.
-- Called by the goose migration; safe to call again by hand.
CREATE FUNCTION awa.install_queue_storage_substrate(
    p_queue_slots int DEFAULT 16,
    p_claim_slots int DEFAULT 8,
    p_lease_slots int DEFAULT 8,
    p_cursor_slots int DEFAULT 2
)
RETURNS SETOF awa.ring_config
LANGUAGE plpgsql
AS $$
DECLARE
    v_ring   text;
    v_slots  int;
    v_have   int;
    v_parent text;
    v_slot   int;
    v_rel    regclass;
    v_col    name;
BEGIN
    PERFORM pg_advisory_xact_lock(awa._lock_key('install'), 0);

    FOR v_ring, v_slots IN
        SELECT * FROM (VALUES ('queue', p_queue_slots), ('claim', p_claim_slots), ('lease', p_lease_slots),
                              ('cursor', p_cursor_slots)) v
    LOOP
        PERFORM awa._require_between(v_ring || ' ring slot count', v_slots, 2, 256);

        SELECT slot_count INTO v_have FROM awa.ring_config WHERE ring = v_ring;
        IF v_have IS NULL THEN
            INSERT INTO awa.ring_config (ring, slot_count) VALUES (v_ring, v_slots);
        ELSIF v_have <> v_slots THEN
            RAISE EXCEPTION 'awa: % ring is installed with % slots, cannot change to %', v_ring, v_have, v_slots
                USING ERRCODE = 'AW031';
        END IF;

        -- Genesis (0, 0), once: after the ledger is trimmed the ring still has
        -- rows, and its cursor must not be reset.
        INSERT INTO awa.ring_rotations (ring, generation, slot, rotated_at)
        SELECT v_ring, 0, 0, now()
        WHERE NOT EXISTS (SELECT 1 FROM awa.ring_rotations r WHERE r.ring = v_ring);

        FOREACH v_parent IN ARRAY awa._ring_tables(v_ring) LOOP
            FOR v_slot IN 0 .. v_slots - 1 LOOP
                IF to_regclass(format('awa.%I', v_parent || '_' || v_slot)) IS NULL THEN
                    EXECUTE format('CREATE TABLE awa.%I PARTITION OF awa.%I FOR VALUES IN (%s)',
                                   v_parent || '_' || v_slot, v_parent, v_slot);
                END IF;
            END LOOP;
        END LOOP;
    END LOOP;

    FOR v_slot IN 0 .. 255 LOOP
        IF to_regclass(format('awa.%I', 'lane_positions_' || v_slot)) IS NULL THEN
            EXECUTE format('CREATE SEQUENCE awa.%I AS bigint', 'lane_positions_' || v_slot);
        END IF;
    END LOOP;

    -- The archive (docs/storage.md, "History archive"): its DEFAULT partitions,
    -- which stay empty (awa.maintain_archive creates cohorts ahead), the
    -- default retentions, once (an operator's are kept), and the log of the
    -- retentions in use.
    IF to_regclass('awa.archived_chunks_default') IS NULL THEN
        CREATE TABLE awa.archived_chunks_default PARTITION OF awa.archived_chunks DEFAULT;
    END IF;
    IF to_regclass('awa.archived_tags_default') IS NULL THEN
        CREATE TABLE awa.archived_tags_default PARTITION OF awa.archived_tags DEFAULT;
    END IF;
    INSERT INTO awa.archive_retention (queue, state, retention)
    VALUES ('*', 'completed', interval '24 hours'), ('*', 'failed', interval '7 days'),
           ('*', 'cancelled', interval '7 days')
    ON CONFLICT DO NOTHING;
    INSERT INTO awa.archive_retention_log (retention)
    SELECT DISTINCT r.retention FROM awa.archive_retention r WHERE r.retention > interval '0'
    ON CONFLICT DO NOTHING;

    -- A claim batch and a completion batch hold up to 1,024 jobs in four
    -- arrays (28 B a job), which PostgreSQL compresses on every insert: lz4
    -- takes 0.43 us a job where the default pglz takes 1.2 (docs/storage.md,
    -- "Batch rows"), for 9.2 B of WAL a job against 7.5; a batch of ready
    -- rows holds its jobs' bodies in its item_* arrays likewise. Every child
    -- and the parent (whose setting new children take), once: a server built
    -- without lz4 (0A000) keeps pglz.
    FOR v_rel, v_col IN
        SELECT a.attrelid::regclass, a.attname
        FROM pg_attribute a
        WHERE a.attrelid IN (SELECT p.oid FROM pg_class p
                             WHERE p.oid IN ('awa.claim_batches'::regclass, 'awa.done_completions'::regclass,
                                             'awa.ready_batches'::regclass)
                             UNION ALL
                             SELECT i.inhrelid FROM pg_inherits i
                             WHERE i.inhparent IN ('awa.claim_batches'::regclass, 'awa.done_completions'::regclass,
                                                   'awa.ready_batches'::regclass))
          AND (a.attname IN ('job_ids', 'run_leases', 'lane_ids', 'lane_seqs') OR a.attname LIKE 'item\_%')
          AND a.attcompression IS DISTINCT FROM 'l'
        ORDER BY 1, 2
    LOOP
        BEGIN
            EXECUTE format('ALTER TABLE %s ALTER COLUMN %I SET COMPRESSION lz4', v_rel, v_col);
        EXCEPTION WHEN feature_not_supported THEN
            EXIT;
        END;
    END LOOP;

    PERFORM awa._apply_privileges();

    RETURN QUERY SELECT * FROM awa.ring_config ORDER BY ring;
END;
$$;
