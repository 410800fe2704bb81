-- Claim ring: partitioned by claim_slot. A claim call appends one
-- compact batch row per ready slot it drew from; every finalizer, rescue and
-- cancel appends closure evidence. An attempt is open while its receipt is in a
-- claim batch and in no closure. A slot is truncated once every receipt in it
-- is closed or carried: prune copies a batch with open receipts, and the
-- closures of its other receipts, into the current slot first. The only
-- UPDATE: queue-ring prune repoints ready_slot of a batch whose running jobs'
-- ready rows it carries (docs/storage.md, "Long attempts").

CREATE TABLE awa.claim_batches (
    claim_slot  int         NOT NULL,
    batch_id    bigint      NOT NULL,
    -- The claim slot the receipts were issued in: a receipt is
    -- (issued_slot, receipt_id), whichever slot the batch has moved to since.
    issued_slot int         NOT NULL,
    ready_slot  int         NOT NULL,
    queue       text        NOT NULL,
    claimed_at  timestamptz NOT NULL,
    instance_id uuid,
    deadline_at timestamptz,
    job_ids     bigint[]    NOT NULL,
    run_leases  bigint[]    NOT NULL,
    lane_ids    int[]       NOT NULL,
    lane_seqs   bigint[]    NOT NULL,
    PRIMARY KEY (batch_id, claim_slot),
    CHECK (cardinality(job_ids) BETWEEN 1 AND 1024)
) PARTITION BY LIST (claim_slot);

-- Queue prune asks "are the attempts drawn from ready slot S all closed?".
CREATE INDEX claim_batches_ready_slot ON awa.claim_batches (ready_slot);
-- Stale-heartbeat rescue scans by age; deadline rescue by deadline.
CREATE INDEX claim_batches_claimed_at ON awa.claim_batches (claimed_at);
CREATE INDEX claim_batches_deadline_at ON awa.claim_batches (deadline_at)
    WHERE deadline_at IS NOT NULL;

-- Closure evidence: one row per finalizer call, queue and claim slot, holding
-- the closed receipt ids as a multirange (indexed for membership checks).
CREATE TABLE awa.claim_closures (
    claim_slot int            NOT NULL,
    queue      text           NOT NULL,
    outcome    text           NOT NULL,
    closed_at  timestamptz    NOT NULL,
    receipts   int8multirange NOT NULL CHECK (NOT isempty(receipts))
) PARTITION BY LIST (claim_slot);

CREATE INDEX claim_closures_receipts ON awa.claim_closures USING gist (receipts);
