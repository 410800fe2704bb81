-- Another session holding a lock on a sealed slot's table keeps prune from
-- taking its own (skipped_blocked). storage_status shows the slot locked,
-- with the cause lock and the holder's pid, lock mode and table; once the
-- holder is gone the slot is reclaimable again.
begin;
select plan(6);

select awa_test.completed_job('lock_q');
select * from awa.rotate_ring('queue', now());

select * from awa_test.other_session_locks('ready_entries_0', 'access share', '-c lock_timeout=5s -c statement_timeout=10s',
  'the second session holds a read lock on awa.ready_entries_0 (fixture)');

select results_eq(
  $$select status, cause, job_id, queue from awa.storage_status() where ring = 'queue' and slot = 0$$,
  $$values ('locked'::text, 'lock'::text, null::bigint, null::text)$$,
  'the slot is locked, with the cause lock');
select ok((select detail from awa.storage_status() where ring = 'queue' and slot = 0)
          like (select format('pid %s holds AccessShareLock on awa.ready_entries_0 (idle in transaction since %%', t.pid)
                from dblink('awa_other', 'select pg_backend_pid()') as t (pid int)),
          'the detail names the holder''s pid, its lock, the table and what the holder is doing');
select is((select outcome from awa.prune_ring('queue', 20)), 'skipped_blocked', 'prune agrees: it cannot take its locks');

select dblink_exec('awa_other', 'rollback');
select dblink_disconnect('awa_other');

select is((select status from awa.storage_status() where ring = 'queue' and slot = 0), 'reclaimable',
          'once the holder is gone the slot is reclaimable');

select * from finish();
rollback;
