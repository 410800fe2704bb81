-- In a SERIALIZABLE transaction awa._wake_promoter returns false without
-- reading the backlog: no predicate (SIRead) lock on deferred_jobs or its
-- indexes, which concurrent scheduled inserts would conflict with (40001).
-- The same call at READ COMMITTED, for the same first job, is true.
begin isolation level serializable;
create temp table s as
select i.id from awa.insert_job('wp.k', '{}', jsonb_build_object('queue', 'wp_s', 'run_at', now() + interval '1 minute')) i;
select awa._wake_promoter(array[(select id from s)]) as woke \gset
select count(*) as sireads from pg_locks l
where l.pid = pg_backend_pid() and l.mode = 'SIReadLock'
  and l.relation in ('awa.deferred_jobs'::regclass, 'awa.deferred_jobs_pkey'::regclass, 'awa.deferred_jobs_run_at'::regclass) \gset
rollback;

begin;
select plan(3);
select is(:'woke'::boolean, false, 'serializable: false, the first deferred job notwithstanding');
select is(:'sireads'::int, 0, 'serializable: no predicate lock on the backlog or its indexes');
select awa.insert_job('wp.k', '{}', jsonb_build_object('queue', 'wp_s', 'run_at', now() + interval '1 minute')) as j \gset
select is(awa._wake_promoter(array[(select max(job_id) from awa.deferred_jobs)]), true,
          'read committed: true for the same first job');
select * from finish();
rollback;
