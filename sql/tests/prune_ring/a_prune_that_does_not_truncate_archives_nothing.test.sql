-- A prune that copied the slot's terminal jobs and then cannot take its locks
-- (a reader holds a table of the slot) ends skipped_blocked and undoes the
-- copy: the jobs stay in the ring only, shown once; the next prune archives
-- them. A second session is opened with dblink.
begin;
select plan(7);

select awa_test.completed_job('nq');
select * from awa.rotate_ring('queue', now());
select * from awa_test.other_session_locks('ready_entries_0', 'access share', '-c lock_timeout=5s -c statement_timeout=10s',
  'the second session holds a read lock on awa.ready_entries_0 (fixture)');

select is((select outcome from awa.prune_ring('queue', 20)), 'skipped_blocked', 'prune is blocked');
select is((select count(*)::int from awa_test.archived_jobs), 0, 'nothing is archived');
select is((select count(*)::int from awa.terminal_jobs where queue = 'nq'), 1, 'the job shows once, from the ring');

select dblink_exec('awa_other', 'rollback');
select dblink_disconnect('awa_other');

select is((select outcome from awa.prune_ring('queue', 20)), 'pruned', 'once the reader is gone the slot is pruned');
select is((select count(*)::int from awa_test.archived_jobs), 1, 'and the job archived');

select * from finish();
rollback;
