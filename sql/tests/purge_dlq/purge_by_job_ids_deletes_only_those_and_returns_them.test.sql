-- purge_dlq(job_ids => ...) deletes exactly those DLQ jobs and returns them.
begin;
select plan(4);

create temp table d (n int, id bigint);
insert into d select n, awa_test.dlq_job('pa', now() + n * interval '1 minute') from generate_series(1, 3) n;

select bag_eq(
  $$select job_id, queue, failed_at from awa.purge_dlq(p_job_ids => (select array_agg(id) from d where n in (1, 3)))$$,
  $$select id, 'pa'::text, now() + n * interval '1 minute' from d where n in (1, 3)$$,
  'purge by job_ids returns the two purged DLQ rows');

select results_eq($$select job_id from awa.dlq_entries$$, $$select id from d where n = 2$$,
                  'only the job not named stays in the DLQ');

select is_empty($$select * from awa.jobs where id in (select id from d where n in (1, 3))$$,
                'purged jobs are gone from awa.jobs');

select is_empty($$select * from awa.purge_dlq(p_job_ids => array[-1]::bigint[])$$,
                'an id not in the DLQ purges nothing');

select * from finish();
rollback;
