-- Cursor ring: partitioned by cursor_slot (children cursor_marks_0 .. _N-1,
-- created by awa.install_queue_storage_substrate; 2 slots by default). It holds
-- only claim marks, so a cursor read walks 2 small indexes, not one per queue
-- slot. Marks are cursor history, never live: prune needs no proof, it raises
-- the floors the sealed slot's marks carry and truncates it.

-- Claim marks: the append-only half of the lanes' claim cursors. A claim
-- appends, in the current cursor slot, one row per lane it advanced: every
-- ready row of that lane at or below claim_seq has been claimed or tombstoned.
-- A lane's cursor is greatest(queue_claim_heads.claim_seq, its newest mark):
-- see awa.claim_cursors. Marks are never updated or deleted, so a held
-- snapshot cannot bloat them; cursor-ring prune raises the floor
-- (queue_claim_heads.claim_seq) of a lane whose newest mark is in the slot it
-- truncates. A lane's marks strictly increase (claimers of a lane take turns
-- on its claim lock).
CREATE TABLE awa.cursor_marks (
    cursor_slot int    NOT NULL,
    lane_id     int    NOT NULL,
    claim_seq   bigint NOT NULL,
    PRIMARY KEY (lane_id, claim_seq, cursor_slot)
) PARTITION BY LIST (cursor_slot);
