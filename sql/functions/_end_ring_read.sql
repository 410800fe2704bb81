-- awa._end_ring_read(surface, rings): ends a read surface's subtransaction.
-- Outside READ COMMITTED it first checks that no child of the rings read was
-- truncated after the transaction's snapshot: pg_class.relfilenode read by
-- SQL (the snapshot) against pg_relation_filenode (the catalog cache, current
-- once the read locked the child). A prune since the snapshot changed it, and
-- the rows read then never existed together: 40001 (retry the transaction).
-- Then raises the private AW099, which the caller catches to roll back the
-- subtransaction and release the locks of its read (docs/storage.md, "Read
-- surfaces"). Reads the catalog only; no lock of its own, no write.
-- Errors: 40001 as above; AW099 always (caught by the caller).
-- Called last in the read block of awa._read_jobs, awa._read_terminal_jobs,
-- awa.job, awa.queue_counts and awa.queue_depths.
CREATE FUNCTION awa._end_ring_read(p_surface text, p_rings text[])
RETURNS void
LANGUAGE plpgsql
AS $$
DECLARE
    v_rel text;
BEGIN
    IF current_setting('transaction_isolation') <> 'read committed' THEN
        SELECT c.oid::regclass::text INTO v_rel
        FROM unnest(p_rings) AS g (ring)
        CROSS JOIN LATERAL unnest(awa._ring_tables(g.ring)) AS t (parent)
        JOIN pg_catalog.pg_inherits i ON i.inhparent = ('awa.' || t.parent)::regclass
        JOIN pg_catalog.pg_class c ON c.oid = i.inhrelid
        WHERE c.relfilenode IS DISTINCT FROM pg_catalog.pg_relation_filenode(c.oid)
        LIMIT 1;
        IF v_rel IS NOT NULL THEN
            RAISE EXCEPTION 'awa: % read %, pruned after this % transaction took its snapshot: retry the transaction',
                p_surface, v_rel, current_setting('transaction_isolation')
                USING ERRCODE = '40001',
                      HINT = 'a read surface outside read committed cannot show a ring slot truncated since the snapshot';
        END IF;
    END IF;
    RAISE EXCEPTION 'awa: read of % done', p_surface USING ERRCODE = 'AW099';
END;
$$;
