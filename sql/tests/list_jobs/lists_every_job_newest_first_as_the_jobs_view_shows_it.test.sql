-- awa.list_jobs() with no filter lists every job, live and archived, newest
-- first (job id descending), each as awa.jobs shows it (awa.jobs' columns,
-- then expires_at: when the archive drops it, NULL for a job not archived).
begin;
select plan(4);

select awa_test.archive_fixture();
select awa_test.state_fixture();

select results_eq(
  $$select id, queue, priority, kind, state, args, attempt, max_attempts, run_lease, run_at, created_at, claimed_at,
           finalized_at, tags, metadata, errors, dlq, progress, progress_at from awa.list_jobs(p_limit => 1000)$$,
  $$select * from awa.jobs order by id desc$$,
  'every job of awa.jobs, newest first, with the same columns');
select is((select count(*)::int from awa.list_jobs(p_limit => 1000)), (select count(*)::int from fx) + 6,
          'the fixtures'' jobs, each once');
select results_eq(
  $$select l.id, l.expires_at - l.finalized_at from awa.list_jobs(p_limit => 1000) l join ax using (id)
    where ax.queue = 'arch' order by l.id$$,
  $$select id, case want when 'completed' then interval '24 hours' else interval '7 days' end from ax
    where queue = 'arch' order by id$$,
  'an archived job shows when it expires: finalized_at plus its retention');
select is_empty($$select * from awa.list_jobs(p_limit => 1000) where expires_at is not null
                  and id not in (select id from ax where queue = 'arch')$$,
                'a job not archived has no expiry');

select * from finish();
rollback;
