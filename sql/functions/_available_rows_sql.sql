-- awa._available_rows_sql(): the text of a query's WITH clause whose CTE
-- `open` lists the available rows of one queue slot (ready rows above their
-- lane's claim cursor, awa.claim_cursors, that no tombstone spends), lane by
-- lane, lowest positions first, at most $1 of them. format() it with the
-- slot's ready_entries child (%1$I) and ready_tombstones child (%2$I). It
-- visits only the lanes that have rows in the slot (a skip scan of the
-- slot's lane index). Shared by awa._carry_ready and awa._slot_available,
-- which run it as a PL/pgSQL statement of its own (docs/storage.md, "The
-- claim cursor": lock before snapshot). Immutable.
CREATE FUNCTION awa._available_rows_sql()
RETURNS text
LANGUAGE sql
IMMUTABLE
AS $$
    SELECT $q$
        WITH RECURSIVE lanes AS (
            (SELECT r.lane_id FROM awa.%1$I r ORDER BY r.lane_id LIMIT 1)
            UNION ALL
            SELECT n.lane_id
            FROM lanes l
            CROSS JOIN LATERAL (SELECT r.lane_id FROM awa.%1$I r
                                WHERE r.lane_id > l.lane_id
                                ORDER BY r.lane_id LIMIT 1) AS n
        ), open AS (
            SELECT a.lane_id, a.lane_seq
            FROM lanes l
            JOIN awa.claim_cursors h ON h.lane_id = l.lane_id
            CROSS JOIN LATERAL (
                SELECT r.lane_id, r.lane_seq FROM awa.%1$I r
                WHERE r.lane_id = h.lane_id AND r.lane_seq > h.claim_seq
                  AND NOT EXISTS (SELECT 1 FROM awa.%2$I t
                                  WHERE t.lane_id = r.lane_id AND t.lane_seq = r.lane_seq)
                ORDER BY r.lane_seq
                LIMIT $1) AS a
            LIMIT $1
        )$q$
$$;
