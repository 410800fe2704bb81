-- A cancelled job retried out of the archive leaves its chunk (which keeps
-- its other jobs); when it completes, a later prune archives it in another
-- chunk: awa.job, awa.get_job, awa.jobs and a listing show it once, as
-- completed.
begin;
select plan(6);

select * from awa.insert_jobs(array['rt.k', 'rt.k'], null, array_fill('{"queue": "ra"}'::jsonb, array[2]));
select * from awa.insert_jobs(array['rt.k'], null, array['{"queue": "ra"}']::jsonb[]);
create temp table j as select min(id) as id from awa.jobs where queue = 'ra';
select awa.cancel_job((select id from j));
-- A second cancelled job shares its chunk.
select awa.cancel_job((select max(id) from awa.jobs where queue = 'ra'));
select is(awa_test.complete_and_archive('ra'), 1, 'the jobs end and are archived (fixture)');
select awa.retry_job((select id from j));
select results_eq($$select n, job_ids from awa.archived_chunks where queue = 'ra' and state = 'cancelled'$$,
                  $$select 1, array[(select max(id) from awa.jobs where queue = 'ra')]$$,
                  'the retried job left its chunk, which keeps its other job');
select is(awa_test.complete_and_archive('ra'), 1, 'it completes and a later prune archives it (fixture)');

select results_eq($$select state::text from awa.job((select id from j))
                    union all select state::text from awa.get_job((select id from j))$$,
                  $$values ('completed'::text), ('completed')$$, 'awa.job and awa.get_job show it once, completed');
select is((select count(*)::int from awa.jobs where id = (select id from j)), 1, 'awa.jobs shows it once');
select is((select count(*)::int from awa.list_jobs(p_queue => 'ra') where id = (select id from j)), 1,
          'a listing shows it once');

select * from finish();
rollback;
