-- awa.claim_ready_runtime(queue, max, instance_id, now, attempt_deadline):
-- claims up to max jobs of a queue, highest priority (1) first, FIFO by lane
-- position within a lane; a priority's shard lanes in a rotation that starts
-- at a random shard. A lane's jobs are its per-row ready rows
-- (awa.ready_entries) and the items of its batch rows (awa.ready_batches),
-- merged by position (docs/batchready.md, "Claiming from a row's middle"). Each claimed job gets run_lease + 1 and a receipt
-- (claim_slot, receipt_id) that every finalizer must present; the batch's
-- deadline_at is the claim time plus the smaller of the queue's deadline and
-- attempt_deadline (NULL when neither is set). Cancelled jobs are skipped; a
-- paused queue (awa.pause_queue) claims nothing. A rate-limited queue
-- (awa.configure_queue rate_limit) claims at most floor(tokens) of its
-- bucket (awa.queue_rate_buckets), which the claim refills for the time
-- elapsed and charges for what it took; its claimed_at is never before the
-- bucket's refreshed_at (docs/storage.md, "Flow control"). A keyed queue
-- (awa.configure_queue concurrency) has a lane per key and priority too,
-- visited in the same rotation as shards while listed in
-- awa.active_key_lanes; a key lane is claimed from only
-- while the weights of its key's open attempts (awa.key_attempts: one row
-- per key and claim batch, deleted once all its attempts are closed) leave
-- room under the key's limit, taking jobs in lane order while they fit (a
-- job's weight: metadata flow_weight, default 1).
-- Writes only appends: one claim_batches row per ready slot drawn from and
-- one INSERT of claim marks (one per lane it advanced); on a rate-limited
-- queue, one UPDATE of its bucket row when it claimed something; on a
-- keyed queue, per key visited a DELETE of its rows whose attempts are all
-- closed (when there are some), and one INSERT of a row per key and batch
-- for the attempts it claimed.
-- Locks: on a rate-limited queue first its bucket row (FOR UPDATE SKIP
-- LOCKED: held by another claimer's transaction, this call claims nothing,
-- never waits; not taken when the bucket, read first without a lock, holds
-- less than one token); per lane with a row above its cursor, the claim lock (lane_claim,
-- lane_id), try only: a held lane is skipped, never waited for; on a key
-- lane then the key's claim lock (key_claim, hashtext(queue#key)), try only
-- (held: skipped), and once per call ACCESS SHARE on the claim ring's tables
-- before the open attempts are read (TRUNCATE is not MVCC-safe: see
-- awa._attempt_guard). Empty lanes
-- cost one sequence read (awa._lane_tip against a lower bound of the cursor:
-- the floor or this session's cache, awa._cursor_cache_key), and no lock.
-- How and why (the cheap skip, the producer-lock test, the cache, lock order):
-- docs/storage.md, "A job's life", "The claim cursor", "Lanes and positions".
-- Errors: AW002 queue NULL or a name no job can have (awa._require_queue_name);
-- AW010 max outside 1..1024, attempt_deadline not positive.
-- Called by workers (the Go driver) and by any SQL client.
-- Isolation: refuses a transaction not at READ COMMITTED (AW040, writes nothing).
CREATE FUNCTION awa.claim_ready_runtime(
    p_queue       text,
    p_max         int DEFAULT 1,
    p_instance_id uuid DEFAULT NULL,
    p_now         timestamptz DEFAULT NULL,
    p_attempt_deadline interval DEFAULT NULL
)
RETURNS SETOF awa.claimed_job
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
-- The lane reads must walk the lane index in order (Merge Append + LIMIT) so a
-- claim costs O(max), whatever the backlog. With statistics that misjudge a
-- lane (a new lane, an analyze taken while the slot was small) the planner
-- would rather fetch the lane's whole backlog and sort it; with sorts off
-- that plan loses. (Sorts the function needs still run: they have no
-- alternative.) The penalty that disabling adds to those plans' cost would
-- trigger JIT compilation, so JIT is off too (it never pays for these small
-- statements).
-- Every statement runs its generic plan, planned once per session: the
-- plan cache's default kept re-planning the lane probes (custom plans, their
-- estimated cost lower than the generic plan's), 0.6 ms of planning in a
-- 100-job claim of 1.8 ms (bench/sql/claim_complete_profile.sh). A generic
-- plan lives as long as the session (until its tables' statistics or
-- partitions change): made while the lane tables held a few rows, it read
-- them by sequential scan per lane probe, and a keyed queue that grew 10,000
-- key lanes then took 10 s a claim, against 0.7 s with custom plans. So
-- sequential scans are off too: a probe keeps its index whatever size the
-- table had when it was planned.
SET enable_sort = off
SET enable_seqscan = off
SET jit = off
SET plan_cache_mode = force_generic_plan
AS $$
DECLARE
    v_now         timestamptz := coalesce(p_now, now());
    v_ids         int[] := '{}';
    v_tips        bigint[];
    v_free        boolean[];
    v_has         boolean[];
    v_lows        bigint[];
    v_k           int;
    v_cursor      bigint;
    v_last        bigint;
    v_got         awa.ready_entries[];
    v_bgot        awa.ready_entries[];
    v_bslot_lo    int;
    v_bslot_hi    int;
    v_bound       bigint;
    v_spent       bigint[];
    v_pos         bigint;
    v_first       bigint;
    v_want        int;
    v_seen        int;
    v_rows        awa.ready_entries[] := '{}';
    v_claim_slot  int;
    v_deadline_at timestamptz;
    v_batches     awa._slot_batch[];
    v_spin        float8 := random();
    v_ckey        text;
    v_cache       text[];
    v_cids        int[] := '{}';
    v_ccur        bigint[] := '{}';
    v_i           int;
    v_dirty       boolean := false;
    v_mlanes      int[] := '{}';
    v_mseqs       bigint[] := '{}';
    v_paused      boolean;
    v_aging       interval;
    v_prios       smallint[];
    v_heads       timestamptz[];
    v_order       int[];
    v_max         int := p_max;
    v_rate        float8;
    v_burst       int;
    v_tokens      float8;
    v_refreshed   timestamptz;
    v_keyed       boolean;
    v_climit      int;
    v_climits     jsonb;
    v_qnames      text[];
    v_lkeys       text[];
    v_key         text;
    v_kk          text[] := '{}';
    v_kfree       int[] := '{}';
    v_klim        int[] := '{}';
    v_ki          int;
    v_ring_locked boolean := false;
    v_w           int;
    v_fit         int;
    v_akey        text[] := '{}';
    v_ajob        bigint[] := '{}';
    v_aw          int[] := '{}';
    v_used        bigint;
    v_done        bigint[];
    v_slot        int;
    v_slot_lo     int;
    v_slot_hi     int;
    v_one_slot    boolean := true;
    v_batch_id    bigint;
BEGIN
    PERFORM awa._require_read_committed('awa.claim_ready_runtime');
    IF p_queue IS NULL THEN
        RAISE EXCEPTION 'awa: queue must not be null' USING ERRCODE = 'AW002';
    END IF;
    PERFORM awa._require_queue_name(p_queue);
    -- Inline, not awa._require_between (same message): no extra call per claim.
    IF p_max IS NULL OR p_max NOT BETWEEN 1 AND 1024 THEN
        RAISE EXCEPTION 'awa: max must be between 1 and 1024, got %', p_max USING ERRCODE = 'AW010';
    END IF;
    IF p_attempt_deadline <= interval '0' THEN
        RAISE EXCEPTION 'awa: attempt_deadline must be positive, got %', p_attempt_deadline USING ERRCODE = 'AW010';
    END IF;
    -- A paused queue (awa.pause_queue) is not claimed: one probe of a table
    -- that holds a row per paused queue only. Its aging interval, if any
    -- (awa.configure_queue aging_seconds) and rate limit: one primary-key
    -- probe.
    SELECT EXISTS (SELECT 1 FROM awa.queue_pauses p WHERE p.queue = p_queue), o.aging, o.rate_per_second, o.rate_burst,
           coalesce(o.keyed, false), o.concurrency_limit, o.concurrency_limits
    INTO v_paused, v_aging, v_rate, v_burst, v_keyed, v_climit, v_climits
    FROM (SELECT) AS one LEFT JOIN awa.queue_options o ON o.queue = p_queue;
    IF v_paused THEN
        RETURN;
    END IF;
    -- Rate limit: the bucket refilled up to now (never before its last
    -- refill, so claim times follow the bucket's order); fewer than one token
    -- claims nothing and writes nothing (awa.queue_readiness says when one is due).
    -- The bucket row held by another claimer (until its transaction ends:
    -- an SQL client may claim inside a long one) is skipped, never waited
    -- for: this call claims nothing, as when every lane is held.
    IF v_rate IS NOT NULL THEN
        -- First read without a lock: the committed bucket holds at least
        -- what a claimer holding it will leave, so less than one token
        -- there is none now, and the claim ends without locking the row
        -- (a row lock is a WAL record and a transaction id).
        SELECT b.tokens, b.refreshed_at INTO v_tokens, v_refreshed
        FROM awa.queue_rate_buckets b WHERE b.queue = p_queue;
        IF FOUND AND least(v_burst::float8, v_tokens + v_rate
                           * greatest(0, extract(epoch FROM v_now - v_refreshed))::float8) < 1 THEN
            RETURN;
        END IF;
        SELECT b.tokens, b.refreshed_at INTO v_tokens, v_refreshed
        FROM awa.queue_rate_buckets b WHERE b.queue = p_queue FOR UPDATE SKIP LOCKED;
        IF FOUND THEN
            v_now := greatest(v_now, v_refreshed);
            v_tokens := least(v_burst::float8, v_tokens + v_rate * extract(epoch FROM v_now - v_refreshed)::float8);
            v_max := least(p_max::float8, floor(v_tokens))::int;
            IF v_max < 1 THEN
                RETURN;
            END IF;
        ELSIF EXISTS (SELECT 1 FROM awa.queue_rate_buckets b WHERE b.queue = p_queue) THEN
            RETURN;
        ELSE
            v_rate := NULL;
        END IF;
    END IF;

    -- This session's cursor cache for the queue (see the header): lane ids and
    -- cursors it saw, lower bounds since cursors only grow.
    v_ckey := awa._cursor_cache_key(p_queue);
    v_cache := string_to_array(current_setting(v_ckey, true), '|');
    IF v_cache[1] = p_queue THEN
        v_cids := string_to_array(v_cache[2], ',')::int[];
        v_ccur := string_to_array(v_cache[3], ',')::bigint[];
    END IF;

    -- The lanes are those named after the queue, and on a keyed queue its
    -- key lanes that may hold work (awa.active_key_lanes; a key lane is
    -- named '<queue>#<lane_id>'): idle keys cost nothing.
    v_qnames := ARRAY[p_queue];
    IF v_keyed THEN
        v_qnames := v_qnames || ARRAY(SELECT a.lane_queue FROM awa.active_key_lanes a WHERE a.queue = p_queue);
    END IF;

    -- Candidates, in visiting order: lanes whose tip passed a lower bound of
    -- their cursor (one sequence read each; the rest are empty).
    SELECT coalesce(array_agg(c.lane_id ORDER BY c.ord), '{}'), coalesce(array_agg(c.tip ORDER BY c.ord), '{}'),
           coalesce(array_agg(c.low ORDER BY c.ord), '{}'), coalesce(array_agg(c.priority ORDER BY c.ord), '{}')
    INTO v_ids, v_tips, v_lows, v_prios
    -- The cache joined once (not looked up per lane: a keyed queue's
    -- 10,000 lanes and cache entries made that lookup 2 s of a claim).
    FROM (SELECT l.lane_id, l.priority, awa._lane_tip(l.lane_seq) AS tip,
                 greatest(l.claim_seq, l.cached) AS low,
                 row_number() OVER (ORDER BY l.priority, l.r >= floor(v_spin * l.n) DESC, l.r) AS ord
          -- One index probe per lane name, and the head a primary-key probe
          -- per lane: the generic plan of `l.queue = ANY (v_qnames)` joined
          -- to the heads, made while the lane tables were small, read every
          -- queue's lanes in lane id order and tested each against the whole
          -- array (a keyed queue's 10,000 names: 10,000 squared comparisons).
          FROM (SELECT l.lane_id, l.lane_seq, l.priority,
                       (SELECT h.claim_seq FROM awa.queue_claim_heads h WHERE h.lane_id = l.lane_id) AS claim_seq,
                       x.cur AS cached,
                       count(*) OVER (PARTITION BY l.priority) AS n,
                       row_number() OVER (PARTITION BY l.priority ORDER BY l.shard, l.lane_id) - 1 AS r
                FROM unnest(v_qnames) AS q (name)
                CROSS JOIN LATERAL (SELECT l.lane_id, l.lane_seq, l.priority, l.shard FROM awa.queue_lanes l
                                    WHERE l.queue = q.name OFFSET 0) AS l
                LEFT JOIN unnest(v_cids, v_ccur) AS x (id, cur) ON x.id = l.lane_id) AS l) AS c
    WHERE c.tip > c.low;

    IF cardinality(v_ids) > 0 THEN
        -- Lock order (docs/storage.md, "Locks"): the marks before any ready
        -- row, as queue-ring prune takes them, so that a cursor-ring prune
        -- queued between the two cannot close a cycle with it.
        LOCK TABLE awa.cursor_marks IN ACCESS SHARE MODE;
        -- After the tips were read: is each lane's producer lock free (every
        -- position up to its tip belongs to a producer that has ended)?
        v_free := ARRAY(SELECT awa._producer_free(u.id) FROM unnest(v_ids) WITH ORDINALITY AS u (id, ord) ORDER BY u.ord);
        -- One statement after those tests: does a row lie above each
        -- candidate's lower bound (at or below its cursor, so none means
        -- none above the cursor)? A lane with none is skipped; when its
        -- producer lock was free it holds nothing unconsumed up to its tip,
        -- which the session cache remembers (its tip can pass its cursor
        -- without a job of its own: a rolled-back producer, or a busier lane
        -- drawing from the same pool sequence).
        -- On a keyed queue the probe starts at the lane's cursor (a lower
        -- bound: cursors only grow), not at the floor: a drained key lane
        -- whose key is at its limit would otherwise show its consumed rows
        -- between floor and cursor, be visited (lane and key locks, the
        -- key's attempts read) by every claim until the cursor ring turned,
        -- and never reach the session cache (10,000 such keys: 15 s a claim).
        -- Both planes are probed (docs/batchready.md): the per-row plane's
        -- first row above the bound, and the batch row holding the first
        -- position above it (the row whose block starts within 1,024 below
        -- it and ends above it, or a later one), each one step of its lane
        -- index. ready_entries comes first in each statement: a statement
        -- locks its tables in that order, and prune locks them so.
        IF v_aging IS NULL THEN
            v_has := ARRAY(
                -- A correlated LIMIT probe, not EXISTS: a semi-join could read
                -- the whole ready ring by sequential scan.
                SELECT coalesce((SELECT true FROM awa.ready_entries r
                                 WHERE r.lane_id = u.id AND r.lane_seq > x.low
                                 ORDER BY r.lane_seq LIMIT 1),
                                (SELECT true FROM awa.ready_batches b
                                 WHERE b.lane_id = u.id AND b.first_seq > x.low - 1024 AND b.first_seq + b.n - 1 > x.low
                                 ORDER BY b.first_seq LIMIT 1), false)
                FROM unnest(v_ids, v_lows) WITH ORDINALITY AS u (id, low, ord)
                CROSS JOIN LATERAL (SELECT greatest(u.low, CASE WHEN v_keyed THEN
                                        (SELECT c.claim_seq FROM awa.claim_cursors c WHERE c.lane_id = u.id) END)
                                    AS low) AS x
                ORDER BY u.ord);
        ELSE
            -- The same probes, reading the head's run_at: when the lane's
            -- oldest job (as far as the lower bound tells) became runnable,
            -- the lower position of the two planes' heads. A batch item's is
            -- the row's created_at unless the row has item_run_ats (one
            -- subscript per lane: one item of one row).
            v_heads := ARRAY(
                SELECT CASE WHEN b.pos < e.lane_seq OR e.lane_seq IS NULL THEN b.run_at ELSE e.run_at END
                FROM unnest(v_ids, v_lows) WITH ORDINALITY AS u (id, low, ord)
                CROSS JOIN LATERAL (SELECT greatest(u.low, CASE WHEN v_keyed THEN
                                        (SELECT c.claim_seq FROM awa.claim_cursors c WHERE c.lane_id = u.id) END)
                                    AS low) AS x
                LEFT JOIN LATERAL (SELECT r.lane_seq, r.run_at FROM awa.ready_entries r
                                   WHERE r.lane_id = u.id AND r.lane_seq > x.low
                                   ORDER BY r.lane_seq LIMIT 1) AS e ON true
                LEFT JOIN LATERAL (SELECT greatest(b.first_seq, x.low + 1) AS pos,
                                          coalesce(b.item_run_ats[greatest(b.first_seq, x.low + 1) - b.first_seq + 1],
                                                   b.created_at) AS run_at
                                   FROM awa.ready_batches b
                                   WHERE b.lane_id = u.id AND b.first_seq > x.low - 1024 AND b.first_seq + b.n - 1 > x.low
                                   ORDER BY b.first_seq LIMIT 1) AS b ON true
                ORDER BY u.ord);
            v_has := ARRAY(SELECT h IS NOT NULL FROM unnest(v_heads) WITH ORDINALITY AS u (h, ord) ORDER BY u.ord);
        END IF;

        -- Priority aging (docs/storage.md, "Priority aging"): a lane whose
        -- oldest job waited k aging intervals is visited as if k priorities
        -- higher (never above 1); among lanes of one effective priority the
        -- oldest job goes first. Rows are not touched: only the visiting
        -- order changes. Without aging the order stays the lanes' own.
        IF v_aging IS NOT NULL AND cardinality(v_ids) > 1 THEN
            SELECT array_agg(u.k ORDER BY
                       CASE WHEN u.h IS NULL THEN 5
                            ELSE greatest(1, u.p - floor(extract(epoch FROM v_now - u.h)
                                                         / extract(epoch FROM v_aging))::int) END,
                       u.h, u.k)
            INTO v_order
            FROM unnest(v_heads, v_prios) WITH ORDINALITY AS u (h, p, k);
            v_ids := ARRAY(SELECT v_ids[o] FROM unnest(v_order) WITH ORDINALITY AS x (o, n) ORDER BY x.n);
            v_tips := ARRAY(SELECT v_tips[o] FROM unnest(v_order) WITH ORDINALITY AS x (o, n) ORDER BY x.n);
            v_lows := ARRAY(SELECT v_lows[o] FROM unnest(v_order) WITH ORDINALITY AS x (o, n) ORDER BY x.n);
            v_free := ARRAY(SELECT v_free[o] FROM unnest(v_order) WITH ORDINALITY AS x (o, n) ORDER BY x.n);
            v_has := ARRAY(SELECT v_has[o] FROM unnest(v_order) WITH ORDINALITY AS x (o, n) ORDER BY x.n);
        END IF;
        -- Each candidate's key (NULL: a shard lane): a primary-key probe per
        -- lane (as a join, the generic plan, which counts ten rows for any
        -- unnest, rescanned every key lane for each candidate: 10,000 key
        -- lanes, 8 s a claim).
        IF v_keyed THEN
            v_lkeys := ARRAY(SELECT (SELECT k.key FROM awa.key_lanes k WHERE k.lane_id = u.id)
                             FROM unnest(v_ids) WITH ORDINALITY AS u (id, ord) ORDER BY u.ord);
        END IF;
    END IF;

    FOR v_k IN 1 .. cardinality(v_ids) LOOP
        IF NOT v_has[v_k] THEN
            -- No row above its lower bound: with its producer lock free, the
            -- lane holds nothing unconsumed up to its tip (a bound to cache).
            CONTINUE WHEN NOT v_free[v_k];
            v_pos := v_tips[v_k];
        ELSE
            -- Held by another claimer (or a cancel): skip it, never wait.
            CONTINUE WHEN NOT pg_try_advisory_xact_lock(awa._lock_key('lane_claim'), v_ids[v_k]);

            -- A key lane: the room its key has left (weights of open
            -- attempts against its limit), read once per key and call under
            -- the key's claim lock; none left, the lane is skipped.
            v_key := CASE WHEN v_keyed THEN v_lkeys[v_k] END;
            IF v_key IS NOT NULL THEN
                v_ki := array_position(v_kk, v_key);
                IF v_ki IS NULL THEN
                    CONTINUE WHEN NOT pg_try_advisory_xact_lock(awa._lock_key('key_claim'), hashtext(p_queue || '#' || v_key));
                    IF NOT v_ring_locked THEN
                        LOCK TABLE awa.claim_batches, awa.claim_closures IN ACCESS SHARE MODE;
                        v_ring_locked := true;
                    END IF;
                    v_kk := v_kk || v_key;
                    v_klim := v_klim || coalesce((v_climits ->> v_key)::int, v_climit, 2147483647);
                    v_ki := cardinality(v_kk);
                    -- The key's attempts, one row per claim batch: each
                    -- open one (its receipt in the batch and in no
                    -- closure: awa._attempt_open's test, written out so it
                    -- is planned once with the statement, not called per
                    -- attempt) counts its weight
                    -- capped at the limit now in force (not the one it was
                    -- claimed under: a raised limit must count a heavy job
                    -- whole again); rows with none open are deleted after.
                    SELECT coalesce(sum(x.used), 0), coalesce(array_agg(x.batch_id) FILTER (WHERE x.open = 0), '{}')
                    INTO v_used, v_done
                    FROM (SELECT a.batch_id, count(*) FILTER (WHERE o.open) AS open,
                                 coalesce(sum(least(coalesce(i.w, 1), v_klim[v_ki])) FILTER (WHERE o.open), 0) AS used
                          FROM awa.key_attempts a
                          CROSS JOIN LATERAL unnest(a.items, a.weights) AS i (item, w)
                          -- A primary-key probe per row (a LIMIT subquery is
                          -- not flattened): as a join, the generic plan made
                          -- while the claim ring was nearly empty read every
                          -- batch of the ring for each row.
                          LEFT JOIN LATERAL (SELECT b.batch_id, b.claim_slot FROM awa.claim_batches b
                                             WHERE b.batch_id = a.batch_id AND b.issued_slot = a.claim_slot
                                             LIMIT 1) AS b ON true
                          CROSS JOIN LATERAL (SELECT b.batch_id IS NOT NULL AND NOT EXISTS (
                                                  SELECT 1 FROM awa.claim_closures c
                                                  WHERE c.claim_slot = b.claim_slot
                                                    AND c.receipts @> awa._receipt_id(a.batch_id, i.item))) AS o (open)
                          WHERE a.queue = p_queue AND a.key = v_key
                          GROUP BY a.batch_id) AS x;
                    IF cardinality(v_done) > 0 THEN
                        DELETE FROM awa.key_attempts a
                        WHERE a.queue = p_queue AND a.key = v_key AND a.batch_id = ANY (v_done);
                    END IF;
                    v_kfree := v_kfree || (v_klim[v_ki] - v_used)::int;
                END IF;
                CONTINUE WHEN v_kfree[v_ki] < 1;
            END IF;

            -- A statement of its own, after the lock: it sees the previous
            -- holder's committed mark, and a floor raised by a prune it waited for.
            SELECT c.claim_seq INTO v_cursor FROM awa.claim_cursors c WHERE c.lane_id = v_ids[v_k];
            v_last := v_tips[v_k];

            -- Take the next rows above the cursor straight off the lane index (a
            -- LIMIT scan, whatever the backlog), then drop those cancelled while
            -- available (tombstoned); repeat only if tombstones left us short. The
            -- cursor moves to the last row examined.
            v_pos := v_cursor;
            WHILE v_last > v_pos LOOP
                v_want := v_max - cardinality(v_rows);
                IF v_key IS NOT NULL THEN
                    v_want := least(v_want, v_kfree[v_ki]);
                END IF;
                -- With the rows, the range of their ready slots: nearly always
                -- one, and then the batch is written and the rows returned
                -- without grouping them by slot (below). The rows are
                -- aggregated from the sorted LIMIT subquery with no join at
                -- the aggregating level, so they keep its order (PostgreSQL
                -- manual, "Aggregate Expressions").
                SELECT coalesce(array_agg(x.r), '{}'), min((x.r).ready_slot), max((x.r).ready_slot)
                INTO v_got, v_slot_lo, v_slot_hi
                FROM (SELECT r FROM awa.ready_entries r
                      WHERE r.lane_id = v_ids[v_k] AND r.lane_seq > v_pos
                      ORDER BY r.lane_seq
                      LIMIT v_want) AS x;
                -- The batch plane's next items above the cursor: its rows in
                -- lane order (each holds at least one such item), each
                -- expanded once from the first item above the cursor
                -- (awa._batch_items: every array sliced once), until v_want
                -- items. The LIMIT pulls rows lazily through the nested
                -- loop, so a claim of 100 out of rows of 1,024 expands one
                -- row (two when it crosses into the next), not v_want rows;
                -- the loop returns the rows' items in the lane index's order.
                -- When the per-row plane gave v_want rows, a batch row that
                -- starts above the last of them has nothing the claim takes:
                -- it is not read (a lane holding both planes expands a row
                -- only for items it claims). And a lane block holds one
                -- plane's jobs only (every writer draws fresh blocks, and a
                -- batch row is its block's only row): when every block from
                -- the cursor to the last of those rows holds one of them,
                -- no batch item lies in between and the batch plane is not
                -- probed at all (a per-row lane's claim within one insert's
                -- block reads one plane, as before the batch plane).
                v_bgot := '{}';
                v_bound := CASE WHEN cardinality(v_got) = v_want THEN v_got[v_want].lane_seq
                                ELSE 9223372036854775807 END;
                IF v_bound = 9223372036854775807
                   OR (v_pos + 1) / 1024 <> v_bound / 1024
                      AND (SELECT count(DISTINCT g.lane_seq / 1024) FROM unnest(v_got) AS g)
                          <> v_bound / 1024 - (v_pos + 1) / 1024 + 1 THEN
                    SELECT coalesce(array_agg(x.i), '{}'), min((x.i).ready_slot), max((x.i).ready_slot)
                    INTO v_bgot, v_bslot_lo, v_bslot_hi
                    FROM (SELECT i
                          FROM (SELECT b FROM awa.ready_batches b
                                WHERE b.lane_id = v_ids[v_k] AND b.first_seq > v_pos - 1024 AND b.first_seq < v_bound
                                  AND b.first_seq + b.n - 1 > v_pos
                                ORDER BY b.first_seq
                                LIMIT v_want) AS b
                          CROSS JOIN LATERAL awa._batch_items(b.b, v_pos, v_want) AS i
                          LIMIT v_want) AS x;
                END IF;
                -- Each list is its plane's next items in position order, all
                -- of them or v_want: the first v_want of the two merged are
                -- the lane's next v_want (usually one list is empty).
                IF cardinality(v_bgot) > 0 THEN
                    IF cardinality(v_got) = 0 THEN
                        v_got := v_bgot;
                        v_slot_lo := v_bslot_lo;
                        v_slot_hi := v_bslot_hi;
                    ELSE
                        v_got := ARRAY(SELECT g FROM unnest(v_got || v_bgot) AS g ORDER BY g.lane_seq LIMIT v_want);
                        v_slot_lo := least(v_slot_lo, v_bslot_lo);
                        v_slot_hi := greatest(v_slot_hi, v_bslot_hi);
                    END IF;
                END IF;
                EXIT WHEN cardinality(v_got) = 0;
                v_one_slot := v_one_slot AND v_slot_lo = v_slot_hi AND v_slot_lo = coalesce(v_slot, v_slot_lo);
                v_slot := v_slot_lo;
                v_seen := cardinality(v_got);
                v_first := v_got[1].lane_seq;
                v_pos := v_got[v_seen].lane_seq;
                v_spent := ARRAY(
                    SELECT t.lane_seq FROM awa.ready_tombstones t
                    WHERE t.lane_id = v_ids[v_k] AND t.lane_seq BETWEEN v_first AND v_pos);
                IF cardinality(v_spent) > 0 THEN
                    v_got := ARRAY(SELECT g FROM unnest(v_got) AS g WHERE g.lane_seq <> ALL (v_spent));
                END IF;
                -- A key lane: the jobs that fit the key's room, in lane order;
                -- the cursor stops just below the first that does not.
                IF v_key IS NOT NULL THEN
                    v_fit := 0;
                    FOR v_i IN 1 .. cardinality(v_got) LOOP
                        -- A weight over the key's limit counts as the limit:
                        -- such a job runs alone rather than never. Its row
                        -- keeps the whole weight (see the room above).
                        v_w := awa._job_weight(v_got[v_i].metadata);
                        IF least(v_w, v_klim[v_ki]) > v_kfree[v_ki] THEN
                            v_pos := v_got[v_i].lane_seq - 1;
                            v_seen := 0;
                            EXIT;
                        END IF;
                        v_kfree[v_ki] := v_kfree[v_ki] - least(v_w, v_klim[v_ki]);
                        v_akey := v_akey || v_key;
                        v_ajob := v_ajob || v_got[v_i].job_id;
                        v_aw := v_aw || v_w;
                        v_fit := v_i;
                    END LOOP;
                    v_got := v_got[1:v_fit];
                END IF;
                v_rows := v_rows || v_got;
                EXIT WHEN v_seen < v_want OR cardinality(v_rows) >= v_max;
            END LOOP;

            IF v_pos > v_cursor THEN
                v_mlanes := v_mlanes || v_ids[v_k];
                v_mseqs := v_mseqs || v_pos;
            END IF;
        END IF;
        -- v_pos (the tip passed, the cursor or the new mark) is a lower bound
        -- of the lane's cursor from now on: the session cache keeps it.
        IF v_pos > v_lows[v_k] THEN
            v_i := array_position(v_cids, v_ids[v_k]);
            IF v_i IS NULL THEN
                v_cids := v_cids || v_ids[v_k];
                v_ccur := v_ccur || v_pos;
            ELSIF v_ccur[v_i] < v_pos THEN
                v_ccur[v_i] := v_pos;
            END IF;
            v_dirty := true;
        END IF;
        EXIT WHEN cardinality(v_rows) >= v_max;
    END LOOP;

    IF cardinality(v_mlanes) > 0 THEN
        INSERT INTO awa.cursor_marks (cursor_slot, lane_id, claim_seq)
        SELECT s.slot, m.lane_id, m.claim_seq
        FROM awa._current_slot('cursor') AS s (slot), unnest(v_mlanes, v_mseqs) AS m (lane_id, claim_seq);
    END IF;
    IF v_dirty THEN
        PERFORM set_config(v_ckey, concat_ws('|', p_queue, array_to_string(v_cids, ','), array_to_string(v_ccur, ',')),
                           false);
    END IF;

    IF cardinality(v_rows) = 0 THEN
        RETURN;
    END IF;
    -- The bucket keeps what this claim did not take (HOT: no indexed column).
    IF v_rate IS NOT NULL THEN
        UPDATE awa.queue_rate_buckets SET tokens = v_tokens - cardinality(v_rows), refreshed_at = v_now
        WHERE queue = p_queue;
    END IF;

    v_claim_slot := awa._current_slot('claim');
    -- least() ignores NULLs: either bound alone applies.
    SELECT v_now + least(m.deadline, p_attempt_deadline) INTO v_deadline_at
    FROM (SELECT) AS one LEFT JOIN awa.queue_meta m ON m.queue = p_queue;

    -- One compact claim batch per ready slot drawn from; then the jobs in claim
    -- order (priority, then lane position), each with its batch's receipt.
    -- Nearly always the rows share one slot (they change slot at a queue-ring
    -- rotation): one batch, item = position in the claim, and no grouping,
    -- window or sort (docs/benchmarks.md, "Session 14"). The rows are unnested in claim
    -- order (WITH ORDINALITY: the planner knows that order, no sort), and the
    -- batch's arrays aggregated from that subquery with no join at the
    -- aggregating level keep it (PostgreSQL manual, "Aggregate Expressions").
    IF v_one_slot THEN
        v_batch_id := nextval('awa.claim_batch_id_seq');
        v_batches := ARRAY[ROW(v_slot, v_batch_id)::awa._slot_batch];
        INSERT INTO awa.claim_batches (
            claim_slot, batch_id, issued_slot, ready_slot, queue, claimed_at, instance_id, deadline_at,
            job_ids, run_leases, lane_ids, lane_seqs)
        SELECT v_claim_slot, v_batch_id, v_claim_slot, v_slot, p_queue, v_now, p_instance_id, v_deadline_at,
               array_agg(r.job_id), array_agg(r.run_lease + 1), array_agg(r.lane_id), array_agg(r.lane_seq)
        FROM (SELECT r.job_id, r.run_lease, r.lane_id, r.lane_seq
              FROM unnest(v_rows) WITH ORDINALITY AS r ORDER BY r.ordinality) AS r;
    ELSE
        v_batches := ARRAY(
            SELECT ROW(s.ready_slot, nextval('awa.claim_batch_id_seq'))::awa._slot_batch
            FROM (SELECT DISTINCT r.ready_slot FROM unnest(v_rows) AS r ORDER BY 1) AS s);

        INSERT INTO awa.claim_batches (
            claim_slot, batch_id, issued_slot, ready_slot, queue, claimed_at, instance_id, deadline_at,
            job_ids, run_leases, lane_ids, lane_seqs)
        SELECT v_claim_slot, b.batch_id, v_claim_slot, b.ready_slot, p_queue, v_now, p_instance_id, v_deadline_at,
               array_agg(r.job_id ORDER BY r.ordinality), array_agg(r.run_lease + 1 ORDER BY r.ordinality),
               array_agg(r.lane_id ORDER BY r.ordinality), array_agg(r.lane_seq ORDER BY r.ordinality)
        FROM unnest(v_rows) WITH ORDINALITY AS r
        JOIN unnest(v_batches) AS b ON b.ready_slot = r.ready_slot
        GROUP BY b.ready_slot, b.batch_id;
    END IF;

    -- Key lanes' attempts, for the next claimer of their key: one row per
    -- key and batch, its items' numbers in the batch (weights NULL when all
    -- weigh 1).
    IF cardinality(v_ajob) > 0 THEN
        INSERT INTO awa.key_attempts (queue, key, batch_id, claim_slot, items, weights)
        SELECT p_queue, k.key, x.batch_id, v_claim_slot, array_agg(x.item ORDER BY x.item),
               CASE WHEN bool_and(k.w = 1) THEN NULL ELSE array_agg(k.w ORDER BY x.item) END
        FROM (SELECT r.job_id, b.batch_id,
                     row_number() OVER (PARTITION BY r.ready_slot ORDER BY r.ordinality)::int AS item
              FROM unnest(v_rows) WITH ORDINALITY AS r
              JOIN unnest(v_batches) AS b ON b.ready_slot = r.ready_slot) AS x
        JOIN unnest(v_akey, v_ajob, v_aw) AS k (key, job_id, w) ON k.job_id = x.job_id
        GROUP BY k.key, x.batch_id;
    END IF;

    IF v_one_slot THEN
        RETURN QUERY
        SELECT r.job_id, r.run_lease + 1, v_claim_slot, awa._receipt_id(v_batch_id, r.ordinality),
               r.kind, r.queue, r.priority, r.args, r.attempt + 1, r.max_attempts,
               r.tags, r.metadata, r.errors, r.created_at, r.run_at, v_now, v_deadline_at
        FROM unnest(v_rows) WITH ORDINALITY AS r
        ORDER BY r.ordinality;
        RETURN;
    END IF;
    RETURN QUERY
    SELECT r.job_id, r.run_lease + 1, v_claim_slot,
           awa._receipt_id(b.batch_id, row_number() OVER (PARTITION BY r.ready_slot ORDER BY r.ordinality)),
           r.kind, r.queue, r.priority, r.args, r.attempt + 1, r.max_attempts,
           r.tags, r.metadata, r.errors, r.created_at, r.run_at, v_now, v_deadline_at
    FROM unnest(v_rows) WITH ORDINALITY AS r
    JOIN unnest(v_batches) AS b ON b.ready_slot = r.ready_slot
    ORDER BY r.ordinality;
END;
$$;
