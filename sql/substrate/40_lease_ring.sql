-- Lease ring: the materialized tier of attempts that need mutable state
-- (progress now; callbacks later). docs/storage.md, "Attempt leases".
-- Alike ready_tombstones only in shape (slot, ids, created_at): other rows.
-- A lease row is appended once per attempt, at its first mutable write, in the
-- current lease slot, and never updated or deleted: it is live while its
-- receipt (claim_slot = the slot the receipt was issued in, receipt_id) is
-- open, exactly as the attempt is. Lease-ring prune carries live leases out of
-- the slot the next rotation needs (awa._carry_live_leases) and truncates.
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

-- Mutable attempt state: one row per job that ever wrote some, updated in
-- place (the one per-job UPDATE of the substrate, only for jobs that ask for
-- it; kept small, with room on the page, so the update stays HOT). run_lease
-- is the attempt that wrote last: a later attempt reads its predecessor's
-- checkpoint here, and its own first write escalates it (a lease row).
-- Deleted when the job completes; kept across retry, snooze, cancel, fail
-- and rescue.
-- progress and updated_at: the checkpoint (awa.set_progress), NULL while the
-- job has none. deadline_*: the attempt's own deadline
-- (awa.set_attempt_deadline), which replaces its claim batch's deadline_at for
-- that attempt (deadline_run_lease, receipt deadline_claim_slot and
-- deadline_receipt_id); NULL when none. It means nothing once that attempt
-- is closed: the deadline rescue clears it when it comes due
-- (docs/storage.md, "Attempt leases").
CREATE TABLE awa.attempt_state (
    job_id     bigint      PRIMARY KEY,
    run_lease  bigint      NOT NULL,
    progress   jsonb,
    updated_at timestamptz,
    deadline_at         timestamptz,
    deadline_run_lease  bigint,
    deadline_claim_slot int,
    deadline_receipt_id bigint,
    CHECK ((progress IS NULL) = (updated_at IS NULL)),
    CHECK (num_nulls(deadline_at, deadline_run_lease, deadline_claim_slot, deadline_receipt_id) IN (0, 4)),
    CHECK (progress IS NOT NULL OR deadline_at IS NOT NULL)
) WITH (fillfactor = 50);

-- The deadline rescue's scan: only rows with a deadline of their own are
-- indexed (a progress write changes no indexed column, so it stays HOT).
CREATE INDEX attempt_state_deadline_at ON awa.attempt_state (deadline_at)
    WHERE deadline_at IS NOT NULL;
