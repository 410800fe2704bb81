-- A cohort is dropped whole once its end (every row's expiry) has passed, and
-- not before; its jobs leave the read surfaces with it, while younger ones
-- stay.
begin;
select plan(5);

select * from awa.maintain_archive();
create temp table j as select awa_test.completed_job('aq') as id;
select * from awa.rotate_ring('queue', now());
select * from awa.prune_ring('queue');
create temp table cohort as select c.* from awa.archive_cohorts c
  join awa_test.archived_jobs a on a.expires_at >= c.cohort_start and a.expires_at < c.cohort_end;

select is_empty($$select * from awa.maintain_archive(50, 16, now() + interval '23 hours') where action = 'drop'$$,
                'before its retention passes nothing is dropped');
select results_eq(
  $$select action, outcome, cohort_start from awa.maintain_archive(50, 16, (select cohort_end from cohort))
    where cohort_start = (select cohort_start from cohort)$$,
  $$select 'drop'::text, 'dropped'::text, cohort_start from cohort$$,
  'at its end the cohort is dropped');
select is(to_regclass('awa.' || (select relname from cohort)), null, 'its partition is gone');
select is((select count(*)::int from awa.archive_cohorts where cohort_start = (select cohort_start from cohort)), 0,
          'and its catalog row');
select is_empty($$select * from awa.jobs where id = (select id from j)$$, 'the job is no longer shown');

select * from finish();
rollback;
