-- purge_dlq(queue => q) deletes the DLQ jobs of that queue only.
begin;
select plan(2);

create temp table d (q text, id bigint);
insert into d select 'pa', awa_test.dlq_job('pa', now()) from generate_series(1, 2);
insert into d select 'pb', awa_test.dlq_job('pb', now()) from generate_series(1, 2);

select bag_eq($$select job_id, queue from awa.purge_dlq(p_queue => 'pa')$$, $$select id, q from d where q = 'pa'$$,
              'purge by queue returns the DLQ jobs of that queue');
select bag_eq($$select job_id from awa.dlq_entries$$, $$select id from d where q = 'pb'$$,
              'the other queue''s DLQ is untouched');

select * from finish();
rollback;
