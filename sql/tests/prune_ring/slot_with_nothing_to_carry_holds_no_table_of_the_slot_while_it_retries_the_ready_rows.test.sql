-- A queue slot with nothing to carry (no available job, no open claim drawn
-- from it) truncates its completion history first, under a lock of its own
-- that no claim wants, then tries the ready tables once, NOWAIT. Holding
-- done_completions out of the order in which readers reach the slot (awa.jobs
-- locks the ready children first), prune must not keep it while it retries:
-- a reader holding a ready child would wait for it, and with prune waiting in
-- the lock queue for that child, close a deadlock cycle. Here another session
-- holds a read lock on ready_entries_0 and, 300 ms into prune's retries,
-- looks at prune's exclusive locks on the slot: none. Blocked to the end,
-- prune keeps nothing it did (the history is still there); once the reader is
-- gone the next prune truncates the slot.
begin;
select plan(7);

select awa_test.completed_job('nq');
select * from awa.rotate_ring('queue', now());

select * from awa_test.other_session_locks('ready_entries_0', 'access share', '-c statement_timeout=10s',
  'a second session holds a read lock on awa.ready_entries_0 (fixture)');
select is(dblink_send_query('awa_other', format($q$
  select pg_sleep(0.3)::text || coalesce((
    select string_agg(c.relname, ',' order by c.relname)
    from pg_locks l join pg_class c on c.oid = l.relation
    where l.pid = %s and l.granted and l.mode = 'AccessExclusiveLock'
      and c.relname in ('done_completions_0', 'ready_entries_0', 'ready_tombstones_0', 'done_entries_0')), '')$q$,
  pg_backend_pid())), 1, 'in 300 ms the second session will list the slot tables prune holds exclusively (fixture)');

select results_eq(
  $$select outcome, slot, detail from awa.prune_ring('queue', 1000)$$,
  $$values ('skipped_blocked'::text, 0, 'awa.ready_entries_0 not free within 1000 ms'::text)$$,
  'prune cannot lock the ready rows the other session reads');
select is((select locks from dblink_get_result('awa_other') as r (locks text)), '',
  'while it retried for the ready tables, prune held no table of the slot (the history step given back)');
select is((select count(*)::int from awa.done_completions_0), 1, 'blocked, prune kept nothing it did');

select * from dblink_get_result('awa_other') as r (locks text); -- ends the async query
select dblink_exec('awa_other', 'rollback');
select dblink_disconnect('awa_other');

select results_eq(
  $$select outcome from awa.prune_ring('queue', 100)$$, $$values ('pruned'::text)$$,
  'once the reader is gone, the next prune truncates the slot');

select * from finish();
rollback;
