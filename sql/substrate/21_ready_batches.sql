-- Batch-shaped ready rows (docs/batchready.md): the queue ring's second ready
-- plane. One row holds up to 1,024 fresh jobs that one insert call put into
-- one lane: item k is the job first_id + k - 1 at lane position
-- first_seq + k - 1 (one block of the lane's pool sequence and one block of
-- awa.job_id_seq, both 1,024 wide), with run_lease 0, attempt 0 and no
-- errors. What every item shares is a scalar; the item_* arrays hold the
-- rest, NULL when every item takes the default (kind and max_attempts: the
-- scalar; tags {}, metadata {}, run_at = created_at). item_tags is a JSON
-- array of each item's tag array (tag arrays differ in length, which a
-- two-dimensional text[] cannot hold). The arrays are lz4-compressed
-- (awa.install_queue_storage_substrate), so a job costs its compressed args
-- and a share of the row's framing: no heap tuple and no index entry per job.
-- Partitioned by ready_slot like ready_entries and reclaimed with it: listed
-- right after it in awa._ring_tables, so prune locks and truncates it in the
-- same order claims and readers reach them. Rows are never updated on the hot
-- path; erasure rewrites an item, prune's carry moves a row whole.
CREATE TABLE awa.ready_batches (
    ready_slot        int         NOT NULL,
    lane_id           int         NOT NULL,
    first_seq         bigint      NOT NULL,
    first_id          bigint      NOT NULL,
    n                 int         NOT NULL,
    priority          smallint    NOT NULL,
    queue             text        NOT NULL,
    created_at        timestamptz NOT NULL,
    kind              text,
    max_attempts      int,
    item_kinds        text[],
    item_max_attempts int[],
    item_args         jsonb[]     NOT NULL,
    item_tags         jsonb,
    item_metadata     jsonb[],
    item_run_ats      timestamptz[],
    -- One lane block: a position names its row (first_seq = lane_seq & ~1023).
    CONSTRAINT ready_batches_block CHECK (n BETWEEN 1 AND 1024 AND first_seq & 1023 = 0),
    -- Each item's kind and max_attempts: the scalar or the array, not both.
    CONSTRAINT ready_batches_kind CHECK ((kind IS NULL) <> (item_kinds IS NULL)),
    CONSTRAINT ready_batches_max_attempts CHECK ((max_attempts IS NULL) <> (item_max_attempts IS NULL))
) PARTITION BY LIST (ready_slot);

-- Claims walk a lane's rows in position order from its cursor (the rows with
-- first_seq above cursor - 1024), the notify rule steps back in it.
CREATE INDEX ready_batches_lane ON awa.ready_batches (lane_id, first_seq);

-- A lookup by id takes the row with the greatest first_id at or below it
-- (rows hold disjoint id blocks, so that row is the job's if any is).
CREATE INDEX ready_batches_first_id ON awa.ready_batches (first_id);

-- awa._batch_items(batch, after, max): the items of one awa.ready_batches row
-- as ready rows (awa.ready_entries' columns), in position order: those at a
-- lane position above after (-1: from the first), at most max of them. Item
-- k is the job first_id + k - 1 at position first_seq + k - 1, run_lease 0,
-- attempt 0, no errors; a NULL item array gives every item the default (the
-- scalar kind and max_attempts, tags {}, metadata {}, run_at = created_at).
-- Each array is sliced once, whatever the number of items taken: an item_*
-- array subscripted once per item would be decompressed once per item
-- (docs/batchready.md, "Risks"). Every reader of the batch plane expands rows
-- through this one definition. Pure; called by the readers of ready rows.
CREATE FUNCTION awa._batch_items(p_batch awa.ready_batches, p_after bigint DEFAULT -1, p_max int DEFAULT 1024)
RETURNS SETOF awa.ready_entries
LANGUAGE sql
IMMUTABLE
PARALLEL SAFE
AS $$
    SELECT p_batch.ready_slot, p_batch.lane_id, p_batch.first_seq + o.lo + u.k - 2,
           p_batch.first_id + o.lo + u.k - 2, 0::bigint, 0,
           coalesce(u.max_attempts, p_batch.max_attempts), p_batch.priority, p_batch.queue,
           coalesce(u.kind, p_batch.kind), u.args,
           coalesce(ARRAY(SELECT jsonb_array_elements_text(u.tags)), '{}'),
           coalesce(u.metadata, '{}'), NULL::jsonb, p_batch.created_at, coalesce(u.run_at, p_batch.created_at)
    FROM (SELECT greatest(1, p_after - p_batch.first_seq + 2)::int AS lo, greatest(p_max, 0) AS m) AS o
    CROSS JOIN LATERAL unnest(p_batch.item_args[o.lo:o.lo + o.m - 1], p_batch.item_kinds[o.lo:o.lo + o.m - 1],
                              p_batch.item_max_attempts[o.lo:o.lo + o.m - 1],
                              p_batch.item_metadata[o.lo:o.lo + o.m - 1], p_batch.item_run_ats[o.lo:o.lo + o.m - 1],
                              ARRAY(SELECT t.v FROM jsonb_array_elements(p_batch.item_tags) WITH ORDINALITY AS t (v, i)
                                    WHERE t.i BETWEEN o.lo AND o.lo + o.m - 1 ORDER BY t.i))
         WITH ORDINALITY AS u (args, kind, max_attempts, metadata, run_at, tags, k)
    WHERE o.lo <= p_batch.n AND u.k <= p_batch.n - o.lo + 1
$$;
