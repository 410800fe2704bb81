-- Prune queues for a slot's locks only in the last fifth of its budget:
-- before, each attempt takes them all with NOWAIT or none, 1 ms apart. So a
-- session that reads a table of the slot while prune retries is never held
-- behind prune (here, 300 ms into a 1000 ms budget:
-- another session holds done_completions_0 and then reads
-- ready_entries_0, which a waiting prune would hold exclusively: before, that
-- closed a lock cycle). The reader finishes within its own 200 ms
-- lock_timeout and, its transaction still open, holds both tables; prune
-- reports skipped_blocked naming the table its last attempt could not lock
-- (done_completions_0: the slot has nothing to carry, so prune first asks for
-- its completion history alone), and truncates nothing. A second session is
-- opened with dblink.
begin;
select plan(6);

select awa_test.completed_job('nq');
select * from awa.rotate_ring('queue', now());

select * from awa_test.other_session_locks('done_completions_0', 'access share', '-c lock_timeout=200ms -c statement_timeout=10s',
  'the second session holds a read lock on awa.done_completions_0 (fixture)');
-- In 300 ms, while prune retries, the second session reads ready_entries_0.
select is(dblink_send_query('awa_other',
  'do $x$ begin perform pg_sleep(0.3); perform count(*) from awa.ready_entries_0; end $x$'), 1,
  'the second session will read awa.ready_entries_0 in 300 ms (fixture)');

select results_eq(
  $$select outcome, slot, detail from awa.prune_ring('queue', 1000)$$,
  $$values ('skipped_blocked'::text, 0, 'awa.done_completions_0 not free within 1000 ms'::text)$$,
  'prune reports skipped_blocked, naming the table its last attempt could not lock');
select is((select status from dblink_get_result('awa_other') as r (status text)), 'DO',
  'the other session read ready_entries_0 within its 200 ms lock_timeout while prune retried');
select is((select count(*)::int from awa.ready_entries_0), 1, 'nothing was truncated');

select * from dblink_get_result('awa_other') as r (status text); -- ends the async query
select dblink_exec('awa_other', 'rollback');
select dblink_disconnect('awa_other');

select * from finish();
rollback;
