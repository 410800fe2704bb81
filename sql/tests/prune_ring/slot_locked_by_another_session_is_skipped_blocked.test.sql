-- When another session holds a lock on the slot's child table (a long
-- reader), prune gives up after lock_timeout_ms: skipped_blocked, nothing
-- truncated, lock_timeout restored; a later prune succeeds. A second session
-- is opened with dblink.
begin;
select plan(7);

select awa_test.completed_job('nq');
select * from awa.rotate_ring('queue', now());

select * from awa_test.other_session_locks('ready_entries_0', 'access share', '-c lock_timeout=5s -c statement_timeout=10s',
  'the second session holds a read lock on awa.ready_entries_0 (fixture)');

select results_eq(
  $$select ring, outcome, slot, generation, detail from awa.prune_ring('queue', 20)$$,
  $$values ('queue'::text, 'skipped_blocked'::text, 0, 1::bigint, 'awa.ready_entries_0 not free within 20 ms'::text)$$,
  'prune reports skipped_blocked naming the table it could not lock');
select is((select count(*)::int from awa.ready_entries_0), 1, 'nothing was truncated');
select is(current_setting('lock_timeout'), '0', 'lock_timeout is restored');

select dblink_exec('awa_other', 'rollback');
select dblink_disconnect('awa_other');

select is((select outcome from awa.prune_ring('queue', 20)), 'pruned', 'once the reader is gone the slot is pruned');
select is((select count(*)::int from awa.ready_entries_0), 0, 'awa.ready_entries_0 is empty');

select * from finish();
rollback;
