-- purge_dlq(limit) deletes at most limit rows, taking the oldest failures.
begin;
select plan(2);

create temp table d (n int, id bigint);
insert into d select n, awa_test.dlq_job('pa', now() + (10 - n) * interval '1 minute') from generate_series(1, 3) n;

select bag_eq($$select job_id from awa.purge_dlq(p_queue => 'pa', p_limit => 2)$$,
              $$select id from d where n in (3, 2)$$,
              'limit 2 purges (and returns) the two oldest failures');
select results_eq($$select job_id from awa.dlq_entries$$, $$select id from d where n = 1$$,
                  'the newest failure stays');

select * from finish();
rollback;
