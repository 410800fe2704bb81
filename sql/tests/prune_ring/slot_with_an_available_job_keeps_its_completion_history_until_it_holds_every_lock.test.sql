-- A queue slot with an available job to carry takes all its locks in one
-- attempt (awa._lock_slot_tables) before it changes anything: blocked on the
-- ready rows that another session reads, prune truncates nothing, its
-- completion history included.
begin;
select plan(6);

select awa_test.completed_job('nq');
select * from awa.insert_job('prune.k', '{}', '{"queue": "nq"}');
select * from awa.rotate_ring('queue', now());

select * from awa_test.other_session_locks('ready_entries_0', 'access share', '-c statement_timeout=10s',
  'a second session holds a read lock on awa.ready_entries_0 (fixture)');

select results_eq(
  $$select outcome, slot, detail from awa.prune_ring('queue', 100)$$,
  $$values ('skipped_blocked'::text, 0, 'awa.ready_entries_0 not free within 100 ms'::text)$$,
  'prune cannot lock the ready rows the other session reads');
select is((select count(*)::int from awa.done_completions_0), 1, 'the completion history stays');
select is((select count(*)::int from awa.ready_entries_0), 2, 'the ready rows stay');

select dblink_exec('awa_other', 'rollback');
select dblink_disconnect('awa_other');

select results_eq(
  $$select outcome from awa.prune_ring('queue', 100)$$, $$values ('pruned'::text)$$,
  'once the reader is gone, the next prune carries the available job and truncates the slot');

select * from finish();
rollback;
