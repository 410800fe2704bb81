-- The callback tier (issue 8): a job a callback completes
-- (awa.complete_external) leaves a completed snapshot in awa.done_entries,
-- with the callback's payload in its metadata.
-- covers: sql/substrate/20_queue_ring.sql
ALTER TABLE awa.done_entries DROP CONSTRAINT done_entries_state_check;
ALTER TABLE awa.done_entries ADD CONSTRAINT done_entries_state_check CHECK (state IN ('cancelled', 'failed', 'completed'));
