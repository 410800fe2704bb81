-- awa._available_rows_sql(): the text of a query's WITH clause listing the
-- available jobs of one queue slot (positions above their lane's claim
-- cursor, awa.claim_cursors, that no tombstone spends), lane by lane, lowest
-- positions first, in two CTEs, one per plane:
--   open:         the slot's available ready rows (lane_id, lane_seq), at
--                 most $1 of them;
--   open_batches: the slot's batch rows (awa.ready_batches) that hold at
--                 least one available job, at most $1 of them: lane_id,
--                 first_seq, lo (the row's first position above the cursor),
--                 last (its last position) and avail (its available jobs:
--                 the positions lo..last less the tombstones among them).
--                 Arithmetic on the row's scalars and one range probe of the
--                 tombstones: no item array is read.
-- Each row of open_batches holds one available job or more, so $1 rows of
-- each CTE hold at least $1 jobs when the slot does. format() it with the
-- slot's ready_entries child (%1$I), ready_tombstones child (%2$I) and
-- ready_batches child (%3$I). It visits only the lanes that have rows in the
-- slot, in either plane (a skip scan of both children's lane indexes); a
-- batch row is found by the lane index from the cursor (first_seq above
-- cursor - 1024: a row spans at most 1,024 positions). Shared by
-- awa._carry_ready and awa._slot_available, which run it as a PL/pgSQL
-- statement of their own (docs/storage.md, "The claim cursor": lock before
-- snapshot). Immutable.
CREATE FUNCTION awa._available_rows_sql()
RETURNS text
LANGUAGE sql
IMMUTABLE
AS $$
    SELECT $q$
        WITH RECURSIVE lanes AS (
            -- The next lane of either plane: one skip scan of each child's
            -- lane index (a NULL row ends it).
            SELECT least((SELECT r.lane_id FROM awa.%1$I r ORDER BY r.lane_id LIMIT 1),
                         (SELECT r.lane_id FROM awa.%3$I r ORDER BY r.lane_id LIMIT 1)) AS lane_id
            UNION ALL
            SELECT least((SELECT r.lane_id FROM awa.%1$I r WHERE r.lane_id > l.lane_id ORDER BY r.lane_id LIMIT 1),
                         (SELECT r.lane_id FROM awa.%3$I r WHERE r.lane_id > l.lane_id ORDER BY r.lane_id LIMIT 1))
            FROM lanes l
            WHERE l.lane_id IS NOT NULL
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
        ), open_batches AS (
            SELECT a.lane_id, a.first_seq, a.lo, a.last, a.avail
            FROM lanes l
            JOIN awa.claim_cursors h ON h.lane_id = l.lane_id
            CROSS JOIN LATERAL (
                SELECT r.lane_id, r.first_seq, s.lo, s.last, s.last - s.lo + 1 - d.spent AS avail
                FROM awa.%3$I r
                CROSS JOIN LATERAL (SELECT greatest(r.first_seq, h.claim_seq + 1) AS lo,
                                           r.first_seq + r.n - 1 AS last) AS s
                CROSS JOIN LATERAL (SELECT count(*) AS spent FROM awa.%2$I t
                                    WHERE t.lane_id = r.lane_id AND t.lane_seq BETWEEN s.lo AND s.last) AS d
                WHERE r.lane_id = h.lane_id AND r.first_seq > h.claim_seq - 1024
                  AND r.first_seq + r.n - 1 > h.claim_seq
                  AND s.last - s.lo + 1 > d.spent
                ORDER BY r.first_seq
                LIMIT $1) AS a
            LIMIT $1
        )$q$
$$;
