-- Prototype of the batch-shaped ready plane (docs/batchready.md), in the
-- scratch schema awa_proto beside an installed awa. An instrument, not the
-- product: it measures the row shape, the claim from a row's middle and the
-- id lookups; it has no notify rule, no flow control, no carry and no tests.
-- Runs on a fresh database after scripts/apply-sql.sh (it reuses awa's lanes,
-- cursors, claim ring and completion path, which it does not change):
--   psql -X -v ON_ERROR_STOP=1 -d "$DSN" -f bench/sql/ready_batches_proto.sql
-- bench/sql/ready_batches_wal.sh and ready_batches_latency.sql measure it
-- against awa.insert_jobs and awa.claim_ready_runtime on the same database.
DROP SCHEMA IF EXISTS awa_proto CASCADE;
CREATE SCHEMA awa_proto;

-- Ids in blocks of 1,024: one nextval per row, item k has first_id + k - 1.
-- Started at 2^40 so that the prototype's ids never meet awa.job_id_seq's in
-- the bench's database (the design's ids share awa.job_id_seq).
CREATE SEQUENCE awa_proto.job_id_seq AS bigint INCREMENT BY 1024 START WITH 1099511627776;

-- One row per insert call, lane and 1,024 jobs: one lane block (item k at
-- position first_seq + k - 1) and one id block. Values every item shares are
-- scalars; item_* arrays hold the rest, NULL when every item has the
-- default (kind, max_attempts: the scalar; tags {}, metadata {}, run_at =
-- created_at). Fresh inserts only: run_lease and attempt are 0, errors NULL.
CREATE TABLE awa_proto.ready_batches (
    ready_slot        int           NOT NULL,
    lane_id           int           NOT NULL,
    first_seq         bigint        NOT NULL,
    first_id          bigint        NOT NULL,
    n                 int           NOT NULL CHECK (n BETWEEN 1 AND 1024),
    priority          smallint      NOT NULL,
    queue             text          NOT NULL,
    created_at        timestamptz   NOT NULL,
    kind              text,
    max_attempts      int,
    item_kinds        text[],
    item_max_attempts int[],
    item_args         jsonb[]       NOT NULL,
    item_tags         jsonb,
    item_metadata     jsonb[],
    item_run_ats      timestamptz[]
) PARTITION BY LIST (ready_slot);
ALTER TABLE awa_proto.ready_batches
    ALTER COLUMN item_kinds SET COMPRESSION lz4, ALTER COLUMN item_max_attempts SET COMPRESSION lz4,
    ALTER COLUMN item_args SET COMPRESSION lz4, ALTER COLUMN item_tags SET COMPRESSION lz4,
    ALTER COLUMN item_metadata SET COMPRESSION lz4, ALTER COLUMN item_run_ats SET COMPRESSION lz4;
-- Claims walk a lane's rows in position order; a lookup by id takes the row
-- with the greatest first_id at or below it.
CREATE INDEX ready_batches_lane ON awa_proto.ready_batches (lane_id, first_seq);
CREATE INDEX ready_batches_first_id ON awa_proto.ready_batches (first_id);
DO $$
BEGIN
    FOR s IN 0 .. (SELECT c.slot_count FROM awa.ring_config c WHERE c.ring = 'queue') - 1 LOOP
        EXECUTE format('CREATE TABLE awa_proto.ready_batches_%s PARTITION OF awa_proto.ready_batches FOR VALUES IN (%s)', s, s);
    END LOOP;
END $$;

-- The items of a batch row from position p_after (exclusive), at most p_max,
-- in position order, as ready rows. Each array is sliced once (one detoast
-- per column and row), never subscripted per item.
CREATE FUNCTION awa_proto._items(b awa_proto.ready_batches, p_after bigint, p_max int)
RETURNS SETOF awa.ready_entries
LANGUAGE sql
STABLE
AS $$
    SELECT b.ready_slot, b.lane_id, b.first_seq + o.lo + u.k - 2, b.first_id + o.lo + u.k - 2, 0::bigint, 0,
           coalesce(u.max_attempts, b.max_attempts), b.priority, b.queue, coalesce(u.kind, b.kind), u.args,
           CASE WHEN b.item_tags IS NULL THEN '{}'::text[]
                ELSE ARRAY(SELECT jsonb_array_elements_text(b.item_tags -> (o.lo + u.k::int - 2))) END,
           coalesce(u.metadata, '{}'), NULL::jsonb, b.created_at, coalesce(u.run_at, b.created_at)
    FROM (SELECT greatest(1, p_after - b.first_seq + 2)::int AS lo) AS o
    CROSS JOIN LATERAL unnest(b.item_args[o.lo:o.lo + p_max - 1], b.item_kinds[o.lo:o.lo + p_max - 1],
                              b.item_max_attempts[o.lo:o.lo + p_max - 1], b.item_metadata[o.lo:o.lo + p_max - 1],
                              b.item_run_ats[o.lo:o.lo + p_max - 1])
         WITH ORDINALITY AS u (args, kind, max_attempts, metadata, run_at, k)
    WHERE o.lo <= b.n
$$;

-- awa.insert_jobs' plain path (every request plain and due now), writing batch
-- rows: per (queue, priority) a shard lane under its producer lock, as
-- awa._append_ready picks it, and per 1,024 of its jobs one lane block, one id
-- block and one row. Returns one row per job, in input order.
CREATE FUNCTION awa_proto.insert_jobs(p_kinds text[], p_args jsonb[] DEFAULT NULL, p_opts jsonb[] DEFAULT NULL)
RETURNS SETOF awa.inserted_job
LANGUAGE plpgsql
SET jit = off
AS $$
DECLARE
    v_now   timestamptz := now();
    v_n     int := coalesce(cardinality(p_kinds), 0);
    v_slot  int := awa._current_slot('queue');
    v_jobs  awa._job_body[];
    v_lids  int[];
    v_seqs  regclass[];
    v_lane  int;
    v_seq   regclass;
    v_cnt   int;
    v_home  int;
    v_blocks bigint[];
    v_firsts bigint[];
    v_ord   bigint[] := '{}';
    v_jid   bigint[] := '{}';
    g       record;
BEGIN
    IF v_n = 0 OR v_n > 10000 THEN
        RAISE EXCEPTION 'awa: kinds must hold 1 to 10000 jobs, got %', v_n USING ERRCODE = 'AW010';
    END IF;
    IF EXISTS (SELECT 1
               FROM unnest(p_kinds, coalesce(p_args, array_fill('{}'::jsonb, ARRAY[v_n])),
                           coalesce(p_opts, array_fill(NULL::jsonb, ARRAY[v_n]))) AS u (kind, args, opts)
               WHERE NOT awa._request_plain(u.kind, u.args, u.opts)) THEN
        RAISE EXCEPTION 'awa_proto: plain requests only' USING ERRCODE = 'AW010';
    END IF;
    v_jobs := ARRAY(
        SELECT awa._build_job_body(u.ord, u.kind, u.args, u.opts, v_now)
        FROM unnest(p_kinds, coalesce(p_args, array_fill('{}'::jsonb, ARRAY[v_n])),
                    coalesce(p_opts, array_fill(NULL::jsonb, ARRAY[v_n])))
             WITH ORDINALITY AS u (kind, args, opts, ord)
        ORDER BY u.ord);

    FOR g IN SELECT j.queue, j.priority, count(*)::int AS n
             FROM unnest(v_jobs) AS j GROUP BY j.queue, j.priority ORDER BY j.queue, j.priority LOOP
        SELECT l.ids, l.seqs INTO v_lids, v_seqs FROM awa._resolve_lanes(g.queue, g.priority) AS l;
        v_home := pg_backend_pid() % cardinality(v_lids);
        v_lane := NULL;
        FOR s IN 0 .. cardinality(v_lids) - 1 LOOP
            IF pg_try_advisory_xact_lock(awa._lock_key('lane_producer'), v_lids[(v_home + s) % cardinality(v_lids) + 1]) THEN
                v_lane := v_lids[(v_home + s) % cardinality(v_lids) + 1];
                v_seq := v_seqs[(v_home + s) % cardinality(v_lids) + 1];
                EXIT;
            END IF;
        END LOOP;
        IF v_lane IS NULL THEN
            v_lane := v_lids[v_home + 1];
            v_seq := v_seqs[v_home + 1];
            PERFORM pg_advisory_xact_lock(awa._lock_key('lane_producer'), v_lane);
        END IF;
        -- One lane block and one id block per 1,024 jobs (the pool sequence is
        -- shared, so a call's blocks need not be adjacent), then one INSERT
        -- of every row of the group.
        v_blocks := ARRAY(SELECT nextval(v_seq) * 1024 FROM generate_series(1, (g.n + 1023) / 1024));
        v_firsts := ARRAY(SELECT nextval('awa_proto.job_id_seq') FROM generate_series(1, (g.n + 1023) / 1024));
        INSERT INTO awa_proto.ready_batches (
            ready_slot, lane_id, first_seq, first_id, n, priority, queue, created_at, kind, max_attempts,
            item_kinds, item_max_attempts, item_args, item_tags, item_metadata, item_run_ats)
        SELECT v_slot, v_lane, v_blocks[j.c], v_firsts[j.c], count(*), g.priority, g.queue, v_now,
               CASE WHEN min(j.kind) = max(j.kind) THEN min(j.kind) END,
               CASE WHEN min(j.max_attempts) = max(j.max_attempts) THEN min(j.max_attempts) END,
               CASE WHEN min(j.kind) <> max(j.kind) THEN array_agg(j.kind ORDER BY j.k) END,
               CASE WHEN min(j.max_attempts) <> max(j.max_attempts) THEN array_agg(j.max_attempts ORDER BY j.k) END,
               array_agg(j.args ORDER BY j.k),
               CASE WHEN bool_or(j.tags <> '{}') THEN jsonb_agg(to_jsonb(j.tags) ORDER BY j.k) END,
               CASE WHEN bool_or(j.metadata <> '{}') THEN array_agg(j.metadata ORDER BY j.k) END,
               CASE WHEN bool_or(j.run_at <> j.created_at) THEN array_agg(j.run_at ORDER BY j.k) END
        FROM (SELECT j.*, (j.k - 1) / 1024 + 1 AS c
              FROM (SELECT j.*, row_number() OVER () AS k
                    FROM unnest(v_jobs) AS j WHERE j.queue = g.queue AND j.priority = g.priority) AS j) AS j
        GROUP BY j.c;
        -- job_id held the input ordinal until here (unnest keeps the array's
        -- order, so row_number() OVER () numbers the group's jobs in it).
        SELECT v_ord || array_agg(j.job_id ORDER BY j.k), v_jid || array_agg(v_firsts[(j.k - 1) / 1024 + 1] + (j.k - 1) % 1024 ORDER BY j.k)
        INTO v_ord, v_jid
        FROM (SELECT j.job_id, row_number() OVER () AS k
              FROM unnest(v_jobs) AS j WHERE j.queue = g.queue AND j.priority = g.priority) AS j;
    END LOOP;

    RETURN QUERY
    SELECT x.id, 'available'::awa.job_state, j.queue, j.priority, j.kind, j.run_at
    FROM unnest(v_ord, v_jid) AS x (ord, id)
    JOIN unnest(v_jobs) AS j ON j.job_id = x.ord
    ORDER BY x.ord;
END;
$$;

-- awa.claim_ready_runtime's plain path (no pause, rate, keys or aging) over
-- both planes: per lane (priority, shard order) the claim lock (try), the
-- cursor, then the next rows above it from ready_entries and from
-- ready_batches (a batch row from its middle: the items past the cursor),
-- merged by position, tombstones dropped. Writes what the product claim
-- writes (cursor marks, one claim_batches row per ready slot), so
-- awa.complete_jobs finishes what it returns: those statements repeat
-- claim_ready_runtime's on purpose (the WAL compared must be the same, and
-- sql/ has no function for that part that a scratch schema could call).
CREATE FUNCTION awa_proto.claim_ready(p_queue text, p_max int DEFAULT 1, p_instance_id uuid DEFAULT NULL,
                                      p_now timestamptz DEFAULT NULL)
RETURNS SETOF awa.claimed_job
LANGUAGE plpgsql
SET enable_seqscan = off
SET jit = off
SET plan_cache_mode = force_generic_plan
AS $$
DECLARE
    v_now        timestamptz := coalesce(p_now, now());
    v_ids        int[];
    v_tips       bigint[];
    v_lows       bigint[];
    v_cursor     bigint;
    v_pos        bigint;
    v_want       int;
    v_seen       int;
    v_a          awa.ready_entries[];
    v_b          awa.ready_entries[];
    v_got        awa.ready_entries[];
    v_spent      bigint[];
    v_rows       awa.ready_entries[] := '{}';
    v_mlanes     int[] := '{}';
    v_mseqs      bigint[] := '{}';
    v_claim_slot int;
    v_batches    awa._slot_batch[];
BEGIN
    SELECT coalesce(array_agg(l.lane_id ORDER BY l.priority, l.shard), '{}'),
           coalesce(array_agg(awa._lane_tip(l.lane_seq) ORDER BY l.priority, l.shard), '{}'),
           coalesce(array_agg((SELECT h.claim_seq FROM awa.queue_claim_heads h WHERE h.lane_id = l.lane_id)
                              ORDER BY l.priority, l.shard), '{}')
    INTO v_ids, v_tips, v_lows
    FROM awa.queue_lanes l WHERE l.queue = p_queue;
    IF cardinality(v_ids) > 0 THEN
        LOCK TABLE awa.cursor_marks IN ACCESS SHARE MODE;
    END IF;

    FOR k IN 1 .. cardinality(v_ids) LOOP
        CONTINUE WHEN v_tips[k] <= v_lows[k];
        CONTINUE WHEN NOT pg_try_advisory_xact_lock(awa._lock_key('lane_claim'), v_ids[k]);
        SELECT c.claim_seq INTO v_cursor FROM awa.claim_cursors c WHERE c.lane_id = v_ids[k];
        v_pos := v_cursor;
        LOOP
            v_want := p_max - cardinality(v_rows);
            v_a := ARRAY(SELECT r FROM awa.ready_entries r
                         WHERE r.lane_id = v_ids[k] AND r.lane_seq > v_pos ORDER BY r.lane_seq LIMIT v_want);
            -- A row holds one lane block: the row of position v_pos + 1 starts
            -- above v_pos - 1024.
            v_b := ARRAY(SELECT i FROM (SELECT b FROM awa_proto.ready_batches b
                                        WHERE b.lane_id = v_ids[k] AND b.first_seq > v_pos - 1024
                                          AND b.first_seq + b.n - 1 > v_pos
                                        ORDER BY b.first_seq LIMIT v_want) AS b
                         CROSS JOIN LATERAL awa_proto._items(b.b, v_pos, v_want) AS i
                         LIMIT v_want);
            IF cardinality(v_a) = 0 THEN
                v_got := v_b;
            ELSIF cardinality(v_b) = 0 THEN
                v_got := v_a;
            ELSE
                v_got := ARRAY(SELECT g FROM unnest(v_a || v_b) AS g ORDER BY g.lane_seq LIMIT v_want);
            END IF;
            EXIT WHEN cardinality(v_got) = 0;
            v_seen := cardinality(v_got);
            v_pos := v_got[v_seen].lane_seq;
            v_spent := ARRAY(SELECT t.lane_seq FROM awa.ready_tombstones t
                             WHERE t.lane_id = v_ids[k] AND t.lane_seq BETWEEN v_got[1].lane_seq AND v_pos);
            IF cardinality(v_spent) > 0 THEN
                v_got := ARRAY(SELECT g FROM unnest(v_got) AS g WHERE g.lane_seq <> ALL (v_spent));
            END IF;
            v_rows := v_rows || v_got;
            EXIT WHEN v_seen < v_want OR cardinality(v_rows) >= p_max;
        END LOOP;
        IF v_pos > v_cursor THEN
            v_mlanes := v_mlanes || v_ids[k];
            v_mseqs := v_mseqs || v_pos;
        END IF;
        EXIT WHEN cardinality(v_rows) >= p_max;
    END LOOP;

    IF cardinality(v_mlanes) > 0 THEN
        INSERT INTO awa.cursor_marks (cursor_slot, lane_id, claim_seq)
        SELECT s.slot, m.lane_id, m.claim_seq
        FROM awa._current_slot('cursor') AS s (slot), unnest(v_mlanes, v_mseqs) AS m (lane_id, claim_seq);
    END IF;
    IF cardinality(v_rows) = 0 THEN
        RETURN;
    END IF;
    v_claim_slot := awa._current_slot('claim');
    v_batches := ARRAY(
        SELECT ROW(s.ready_slot, nextval('awa.claim_batch_id_seq'))::awa._slot_batch
        FROM (SELECT DISTINCT r.ready_slot FROM unnest(v_rows) AS r ORDER BY 1) AS s);
    INSERT INTO awa.claim_batches (
        claim_slot, batch_id, issued_slot, ready_slot, queue, claimed_at, instance_id, deadline_at,
        job_ids, run_leases, lane_ids, lane_seqs)
    SELECT v_claim_slot, b.batch_id, v_claim_slot, b.ready_slot, p_queue, v_now, p_instance_id, NULL,
           array_agg(r.job_id ORDER BY r.ordinality), array_agg(r.run_lease + 1 ORDER BY r.ordinality),
           array_agg(r.lane_id ORDER BY r.ordinality), array_agg(r.lane_seq ORDER BY r.ordinality)
    FROM unnest(v_rows) WITH ORDINALITY AS r
    JOIN unnest(v_batches) AS b ON b.ready_slot = r.ready_slot
    GROUP BY b.ready_slot, b.batch_id;
    RETURN QUERY
    SELECT r.job_id, r.run_lease + 1, v_claim_slot,
           awa._receipt_id(b.batch_id, row_number() OVER (PARTITION BY r.ready_slot ORDER BY r.ordinality)),
           r.kind, r.queue, r.priority, r.args, r.attempt + 1, r.max_attempts,
           r.tags, r.metadata, r.errors, r.created_at, r.run_at, v_now, NULL::timestamptz
    FROM unnest(v_rows) WITH ORDINALITY AS r
    JOIN unnest(v_batches) AS b ON b.ready_slot = r.ready_slot
    ORDER BY r.ordinality;
END;
$$;

-- A job's ready row by id, from either plane: the job-id index of
-- ready_entries, else the batch row with the greatest first_id at or below
-- the id (one backward step per slot's index) when the id falls in it.
CREATE FUNCTION awa_proto.ready_job(p_id bigint)
RETURNS SETOF awa.ready_entries
LANGUAGE sql
STABLE
AS $$
    SELECT r.* FROM awa.ready_entries r WHERE r.job_id = p_id
    UNION ALL
    SELECT i.*
    FROM (SELECT b FROM awa_proto.ready_batches b WHERE b.first_id <= p_id ORDER BY b.first_id DESC LIMIT 1) AS b
    CROSS JOIN LATERAL awa_proto._items(b.b, (b.b).first_seq + p_id - (b.b).first_id - 1, 1) AS i
    WHERE p_id < (b.b).first_id + (b.b).n
$$;

-- A page of ready rows by id, newest first, below p_after: the top p_limit of
-- each plane, merged. Batch rows hold disjoint id blocks, so walking them by
-- first_id descending and each row's items backwards is id order; the walk
-- stops after p_limit items (it detoasts the rows it reaches, usually one,
-- and sorts at most p_limit items of each).
CREATE FUNCTION awa_proto.ready_page(p_after bigint, p_limit int)
RETURNS SETOF awa.ready_entries
LANGUAGE sql
STABLE
AS $$
    SELECT t.* FROM (
        (SELECT r.* FROM awa.ready_entries r WHERE r.job_id < p_after ORDER BY r.job_id DESC LIMIT p_limit)
        UNION ALL
        (SELECT i.*
         FROM (SELECT b FROM awa_proto.ready_batches b WHERE b.first_id < p_after ORDER BY b.first_id DESC LIMIT p_limit) AS b
         -- The row's last p_limit items below p_after: one slice, sorted.
         CROSS JOIN LATERAL (SELECT least((b.b).n, p_after - (b.b).first_id)::int AS hi) AS h
         CROSS JOIN LATERAL (SELECT i.* FROM awa_proto._items(b.b, (b.b).first_seq + greatest(1, h.hi - p_limit + 1) - 2,
                                                               h.hi - greatest(1, h.hi - p_limit + 1) + 1) AS i
                             ORDER BY i.job_id DESC) AS i
         LIMIT p_limit)) AS t
    ORDER BY t.job_id DESC LIMIT p_limit
$$;
