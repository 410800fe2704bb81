-- purge_dlq(failed_before => t) deletes DLQ jobs that failed strictly before t
-- (the retention sweep); filters combine with AND.
begin;
select plan(3);

create temp table d (q text, n int, id bigint);
insert into d select 'pa', n, awa_test.dlq_job('pa', now() + n * interval '1 day') from generate_series(1, 3) n;
insert into d select 'pb', n, awa_test.dlq_job('pb', now() + n * interval '1 day') from generate_series(1, 3) n;

select bag_eq($$select job_id from awa.purge_dlq(p_queue => 'pa', p_failed_before => now() + interval '2 days')$$,
              $$select id from d where q = 'pa' and n = 1$$,
              'queue and failed_before combine: only pa jobs failed before day 2 (day 2 itself is kept)');

select bag_eq($$select job_id from awa.purge_dlq(p_failed_before => now() + interval '3 days')$$,
              $$select id from d where n < 3 and not (q = 'pa' and n = 1)$$,
              'failed_before alone purges every queue''s older DLQ jobs');

select bag_eq($$select job_id from awa.dlq_entries$$, $$select id from d where n = 3$$,
              'the youngest DLQ jobs remain');

select * from finish();
rollback;
