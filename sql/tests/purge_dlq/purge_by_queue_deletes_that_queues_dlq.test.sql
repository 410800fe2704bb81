-- purge_dlq(queue => q) deletes the DLQ jobs of that queue only.
begin;
select plan(2);

select * from awa.configure_queue('pa', '{"dlq": true}');
select * from awa.configure_queue('pb', '{"dlq": true}');
create function pg_temp.dlq_job(p_queue text, p_failed_at timestamptz) returns bigint
language plpgsql as $f$
declare
    c awa.claimed_job;
begin
    perform awa.insert_job('purge.k', '{}', jsonb_build_object('queue', p_queue));
    select * into c from awa.claim_ready_runtime(p_queue, 1, null, p_failed_at);
    perform awa.fail_jobs(array[c.id], array[c.run_lease], array[c.claim_slot], array[c.receipt_id],
                          array['fatal'], p_failed_at);
    return c.id;
end
$f$;
create temp table d (q text, id bigint);
insert into d select 'pa', pg_temp.dlq_job('pa', now()) from generate_series(1, 2);
insert into d select 'pb', pg_temp.dlq_job('pb', now()) from generate_series(1, 2);

select bag_eq($$select job_id, queue from awa.purge_dlq(p_queue => 'pa')$$, $$select id, q from d where q = 'pa'$$,
              'purge by queue returns the DLQ jobs of that queue');
select bag_eq($$select job_id from awa.dlq_entries$$, $$select id from d where q = 'pb'$$,
              'the other queue''s DLQ is untouched');

select * from finish();
rollback;
