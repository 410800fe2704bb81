-- Lease ring: materialized leases for attempts that need mutable state
-- (progress, callbacks). Installed now so the ring exists with its ledger;
-- the runtime starts writing it with callbacks and progress.
-- Alike ready_tombstones only in shape (slot, ids, created_at): other rows.
CREATE TABLE awa.leases (
    lease_slot   int         NOT NULL,
    job_id       bigint      NOT NULL,
    run_lease    bigint      NOT NULL,
    claim_slot   int         NOT NULL,
    receipt_id   bigint      NOT NULL,
    queue        text        NOT NULL,
    created_at   timestamptz NOT NULL,
    PRIMARY KEY (job_id, run_lease, lease_slot)
) PARTITION BY LIST (lease_slot);
