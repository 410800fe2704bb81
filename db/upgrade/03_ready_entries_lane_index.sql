-- WAL per job (issue 14): the ready rows' lane index without ready_slot, a
-- plain index instead of the primary key (24-byte entries against 32: 8
-- bytes less WAL per job). The drop's ACCESS EXCLUSIVE lock, held to the
-- migration's commit, keeps every reader and writer of the queue ring out
-- while the index is built over the ring's rows.
-- covers: sql/substrate/20_queue_ring.sql
ALTER TABLE awa.ready_entries DROP CONSTRAINT ready_entries_pkey;
CREATE INDEX ready_entries_lane ON awa.ready_entries (lane_id, lane_seq);
