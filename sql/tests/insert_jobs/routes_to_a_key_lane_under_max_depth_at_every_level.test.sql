-- An insert into a keyed queue with a max_depth (awa._append_ready: the key's
-- lane created by awa._key_lane, awa._check_depth) works the same in
-- REPEATABLE READ and SERIALIZABLE transactions as at READ COMMITTED: the job
-- lands in its key's lane. (A key lane created concurrently after the
-- snapshot raises 40001 outside READ COMMITTED: docs/errors.md.)
\set setup 'select 1 from awa.configure_queue($q$iso_k$q$, $o${"max_depth": 5, "concurrency": {"key": "args.t", "limit": 1}}$o$)'
\set report 'awa_test.outcome($$select * from awa.insert_jobs(array[''k'', ''k''], array[''{"t": "a"}'', ''{"t": 7}'']::jsonb[], array_fill(''{"queue": "iso_k"}''::jsonb, array[2]))$$)'
\set effect '(select count(*) = 2 from awa.key_lanes k join awa.ready_entries r using (lane_id) where k.queue = $q$iso_k$q$)'
\ir ../works_at_each_level.psql
