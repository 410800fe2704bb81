-- An export hook receives a cohort of chunks; awa.archived_cohort_jobs turns
-- it into one row per job, in id order, with each job's body and its chunk's
-- expiry: the jobs awa.jobs showed before the prune, nothing else.
begin;
select plan(3);

select * from awa.insert_jobs(array['ex.k', 'ex.k', 'other.k'],
                              array['{"n": 1}', '{"n": 2}', '{"n": 3}']::jsonb[],
                              array['{"queue": "ex", "tags": ["t"]}', '{"queue": "ex"}',
                                    '{"queue": "ex", "metadata": {"m": 1}}']::jsonb[]);
select count(*) from awa.maintain_archive();
create temp table before as select id, queue, kind, state, args, tags, metadata from awa.jobs where queue = 'ex';
select is(awa_test.complete_and_archive('ex'), 3, 'three jobs complete and are archived (fixture)');
create temp table cohort as
  select distinct format('awa.%I', c.relname)::regclass as rel from awa.archive_cohorts c
  join awa_test.archived_jobs a on a.expires_at >= c.cohort_start and a.expires_at < c.cohort_end
  where a.queue = 'ex';

select is((select count(*)::int from cohort), 1, 'one cohort holds them (fixture)');
select results_eq(
  $$select id, queue, kind, state::text, args, tags, metadata, expires_at is not null
    from awa.archived_cohort_jobs((select rel from cohort)) where queue = 'ex'$$,
  $$select id, queue, kind, 'completed'::text, args, tags, metadata, true from before order by id$$,
  'one row per job, in id order, each with its body and its expiry');

select * from finish();
rollback;
