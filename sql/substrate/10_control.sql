-- Control plane: narrow tables. None of them is updated per job.

-- Slot count of each ring, fixed at install.
CREATE TABLE awa.ring_config (
    ring       text PRIMARY KEY CHECK (ring IN ('queue', 'claim', 'lease', 'cursor')),
    slot_count int  NOT NULL CHECK (slot_count BETWEEN 2 AND 256)
);

-- Append-only rotation ledger, one row per rotation. The current cursor of a ring
-- is its max-generation row; genesis (0, 0). Each rotation takes the next slot
-- (mod slot_count) that is not held (awa.ring_held_slots).
-- Rotation appends with a compare-and-swap on the primary key.
CREATE TABLE awa.ring_rotations (
    ring       text        NOT NULL REFERENCES awa.ring_config (ring),
    generation bigint      NOT NULL CHECK (generation >= 0),
    slot       int         NOT NULL CHECK (slot >= 0),
    rotated_at timestamptz NOT NULL,
    PRIMARY KEY (ring, generation)
);

-- Held queue slots: sealed slots that still hold a large unworked backlog.
-- Rotation passes over them (awa._ring_next_slot) instead of waiting for
-- prune to copy the backlog out on every wrap; prune truncates one once its
-- available jobs are gone and its proof passes, and deletes its row then.
-- Written by awa.prune_ring only, under the ring's try-lock; at most half of
-- the ring's slots. docs/storage.md, "Held slots".
CREATE TABLE awa.ring_held_slots (
    ring    text        NOT NULL REFERENCES awa.ring_config (ring),
    slot    int         NOT NULL CHECK (slot >= 0),
    held_at timestamptz NOT NULL,
    PRIMARY KEY (ring, slot)
);

-- Per-queue options. A queue without a row has the defaults.
CREATE TABLE awa.queue_meta (
    queue       text        PRIMARY KEY,
    dlq_enabled boolean     NOT NULL DEFAULT false,
    deadline    interval    CHECK (deadline IS NULL OR deadline > interval '0'),
    -- Lanes per priority that producers spread over (see queue_lanes). The
    -- default, 8, is also what a queue without a row gets (awa._resolve_lanes).
    enqueue_shards smallint NOT NULL DEFAULT 8 CHECK (enqueue_shards BETWEEN 1 AND 64),
    updated_at  timestamptz NOT NULL DEFAULT now()
);

-- One lane per (queue, priority, shard): the unit of FIFO order. Each lane
-- owns a sequence for lane positions; producers take it under a
-- transaction-scoped advisory lock so a later position never commits before an
-- earlier one. A priority has enqueue_shards lanes so that concurrent producers
-- (and a long transaction that enqueued) do not queue behind one lock: a
-- producer takes the first free shard lane, starting from its own.
CREATE TABLE awa.queue_lanes (
    lane_id    int PRIMARY KEY DEFAULT nextval('awa.lane_id_seq'),
    queue      text     NOT NULL,
    priority   smallint NOT NULL CHECK (priority BETWEEN 1 AND 4),
    shard      smallint NOT NULL DEFAULT 0 CHECK (shard BETWEEN 0 AND 63),
    lane_seq   regclass NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    UNIQUE (queue, priority, shard)
);

-- Floor of each lane's claim cursor: every ready row at or below claim_seq has
-- been claimed or tombstoned. Claims do not update it: they append
-- awa.cursor_marks, and the cursor is greatest(floor, newest mark)
-- (awa.claim_cursors). Only cursor-ring prune raises it, for the lanes whose
-- newest mark is in the slot it truncates: at most once per idle lane per ring
-- wrap. Kept small and with room on the page so that update stays HOT.
CREATE TABLE awa.queue_claim_heads (
    lane_id   int    PRIMARY KEY REFERENCES awa.queue_lanes (lane_id),
    claim_seq bigint NOT NULL DEFAULT 0
) WITH (fillfactor = 50);

-- Worker processes. Each claim names its process; the process refreshes
-- heartbeat_at on a ticker, so heartbeat churn is one row per process, not per job.
CREATE TABLE awa.runtime_instances (
    instance_id  uuid        PRIMARY KEY,
    started_at   timestamptz NOT NULL,
    heartbeat_at timestamptz NOT NULL
) WITH (fillfactor = 50);

-- Maintenance leadership: one lease row per name. Taking or renewing it is one
-- conditional statement evaluated on the database clock, so it works through
-- transaction-mode poolers (no session state) and never compares worker clocks.
CREATE TABLE awa.leader_leases (
    name        text        PRIMARY KEY,
    holder      uuid        NOT NULL,
    acquired_at timestamptz NOT NULL,
    expires_at  timestamptz NOT NULL
) WITH (fillfactor = 50);

-- Paused queues (awa.pause_queue): a claim of a queue listed here claims
-- nothing, and awa.queue_pending reports nothing pending, until
-- awa.resume_queue deletes its row. A queue may be paused before its first
-- job. One row per paused queue, touched only by those two calls.
CREATE TABLE awa.queue_pauses (
    queue     text        PRIMARY KEY,
    paused_at timestamptz NOT NULL
);

-- Queue options added after 0.1.0 (awa.configure_queue), in a table of their
-- own so an upgrade adds no column to awa.queue_meta, which running workers
-- of the release read: the ALTER's exclusive lock closed a cycle with them.
-- aging: a lane whose oldest job has waited this long is claimed as if one
-- priority higher, one more for each further interval, up to 1
-- (awa.claim_ready_runtime); NULL, or no row: no aging.
-- Flow control (docs/storage.md, "Flow control"), read by the same probe:
-- rate_per_second and rate_burst: a token bucket (awa.queue_rate_buckets)
-- that claims draw from, so over any window of T seconds the queue starts at
-- most rate_burst + rate_per_second * T jobs; NULL: no rate limit.
-- max_depth: an insert that would take the queue's available jobs above it
-- fails with AW060 (soft: see awa._check_depth); NULL: no limit.
CREATE TABLE awa.queue_options (
    queue      text        PRIMARY KEY,
    aging      interval    CHECK (aging IS NULL OR aging > interval '0'),
    updated_at timestamptz NOT NULL DEFAULT now(),
    rate_per_second float8 CHECK (rate_per_second > 0 AND rate_per_second <= 1000000),
    rate_burst      int    CHECK (rate_burst BETWEEN 1 AND 1000000),
    max_depth       int    CHECK (max_depth BETWEEN 1 AND 1000000000),
    -- Per-key concurrency: concurrency_key ('args.<path>' or
    -- 'metadata.<path>') names the value that routes a job due now to a lane
    -- of its own key (awa.key_lanes); a claim takes a key's jobs only while
    -- the weights of its open attempts (awa.key_attempts) stay within
    -- concurrency_limit, or the key's entry in concurrency_limits. keyed:
    -- the queue has had a key once, so claims visit its key lanes (which
    -- may still hold jobs after the key is removed); never reset.
    concurrency_key    text   CHECK (concurrency_key ~ '^(args|metadata)(\.[A-Za-z0-9_-]{1,64}){1,8}$'),
    concurrency_limit  int    CHECK (concurrency_limit BETWEEN 1 AND 100000),
    concurrency_limits jsonb,
    keyed              boolean NOT NULL DEFAULT false,
    CHECK ((rate_per_second IS NULL) = (rate_burst IS NULL)),
    CHECK ((concurrency_key IS NULL) = (concurrency_limit IS NULL))
);

-- The lanes of a keyed queue's concurrency keys: one per (queue, key,
-- priority), created by the first producer of the key (awa._key_lane). Its
-- awa.queue_lanes row (whose shape is released) has the name
-- '<queue>#<lane_id>' as its queue ('#' is in no queue name) and shard 0, so
-- the lanes of a queue stay those named after it, and the key lanes are
-- found here. Never deleted (as shard lanes).
CREATE TABLE awa.key_lanes (
    lane_id    int      PRIMARY KEY,
    queue      text     NOT NULL,
    key        text     NOT NULL,
    priority   smallint NOT NULL CHECK (priority BETWEEN 1 AND 4),
    lane_queue text     NOT NULL,
    UNIQUE (queue, key, priority)
);

-- The key lanes that may hold work: the only key lanes a claim visits (and
-- awa.queue_pending, awa.queue_drained, awa._check_depth read), so a claim's
-- cost follows the keys with work, not every key ever seen. A producer adds
-- its key lane here after taking the lane's producer lock (awa._append_ready:
-- INSERT ... ON CONFLICT DO NOTHING, which writes nothing while the row is
-- there); awa.retire_idle_key_lanes deletes the row of a lane present for
-- at least its idle interval that is drained (no ready row above its claim
-- cursor) while it holds the lane's producer lock, so no producer can be
-- appending to it. A lane not listed holds nothing unclaimed.
CREATE TABLE awa.active_key_lanes (
    queue        text        NOT NULL,
    lane_id      int         NOT NULL,
    lane_queue   text        NOT NULL,
    activated_at timestamptz NOT NULL,
    PRIMARY KEY (queue, lane_id)
);
CREATE INDEX active_key_lanes_activated_at ON awa.active_key_lanes (activated_at);

-- The attempts a claim gave to a concurrency key: one row per key and
-- claim batch (awa.claim_batches batch_id, issued in claim_slot) that drew
-- jobs from the key's lanes, listing their items in the batch (items: the
-- receipt's item number, 1-based, so job and run_lease are the batch's) and
-- their weights (weights NULL: every one weighs 1), so the next claimer of
-- the key can tell which are still open (the receipt in no closure of the
-- claim ring, as awa._attempt_open: a completed, retried, cancelled, failed
-- or rescued attempt is closed there, whoever closed it; a batch no longer
-- in the ring holds none). Written by awa.claim_ready_runtime only, under
-- the key's claim lock (key_claim): a row whose attempts are all closed is
-- deleted when the key is next claimed, new rows inserted with the batch;
-- a queue without a key never touches it. One row per batch, not per job:
-- a claim of ten jobs of a key writes one row and deletes it once.
CREATE TABLE awa.key_attempts (
    queue      text   NOT NULL,
    key        text   NOT NULL,
    batch_id   bigint NOT NULL,
    claim_slot int    NOT NULL,
    items      int[]  NOT NULL CHECK (cardinality(items) >= 1),
    weights    int[]  CHECK (cardinality(weights) = cardinality(items) AND 1 <= ALL (weights)),
    PRIMARY KEY (queue, key, batch_id)
);

-- The token bucket of each rate-limited queue (awa.queue_options
-- rate_per_second, rate_burst): tokens as of refreshed_at. A claim of the
-- queue locks its row (FOR UPDATE SKIP LOCKED: held by another claimer's
-- transaction, the claim takes nothing rather than wait; not at all when
-- a first read without a lock finds less than one token), refills it for the time elapsed (up to
-- rate_burst), takes at most floor(tokens) jobs and writes back what it did
-- not take: one UPDATE per claim call that claimed something, HOT (no
-- indexed column changes). refreshed_at never goes back: a claim whose
-- transaction started before it claims at refreshed_at, so claim times follow
-- the bucket's order and the window bound holds on claimed_at.
-- Written by awa.configure_queue (a full bucket when set, removed when
-- unset) and awa.claim_ready_runtime only.
CREATE TABLE awa.queue_rate_buckets (
    queue        text        PRIMARY KEY,
    tokens       float8      NOT NULL CHECK (tokens >= 0),
    refreshed_at timestamptz NOT NULL
) WITH (fillfactor = 50);
