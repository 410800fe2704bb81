-- A bulk limit goes to 10000, a listing page to 1000: bulk_cancel_jobs
-- selects page after page (awa._bulk_job_ids) up to its limit, newest
-- first, and leaves the older jobs of the filter alone.
begin;
select plan(3);

create temp table a as select id from awa.insert_jobs(array_fill('bulk.k'::text, array[1005]), null,
                                                      array_fill('{"queue": "bq"}'::jsonb, array[1005]));

select is((select count(*) from awa.bulk_cancel_jobs(p_queue => 'bq', p_limit => 1002) where outcome = 'applied'),
          1002::bigint, 'limit 1002: 1002 jobs cancelled');
select is((select available from awa.queue_counts('bq')), 3::bigint, 'the three oldest are still available');
select results_eq($$select id from awa.list_jobs(p_queue => 'bq', p_states => '{available}')$$,
                  $$select id from a order by id desc offset 1002$$, 'they are the oldest three');

select * from finish();
rollback;
