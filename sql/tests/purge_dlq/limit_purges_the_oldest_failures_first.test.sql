-- purge_dlq(limit) deletes at most limit rows, taking the oldest failures.
begin;
select plan(2);

select * from awa.configure_queue('pa', '{"dlq": true}');
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
create temp table d (n int, id bigint);
insert into d select n, pg_temp.dlq_job('pa', now() + (10 - n) * interval '1 minute') from generate_series(1, 3) n;

select bag_eq($$select job_id from awa.purge_dlq(p_queue => 'pa', p_limit => 2)$$,
              $$select id from d where n in (3, 2)$$,
              'limit 2 purges (and returns) the two oldest failures');
select results_eq($$select job_id from awa.dlq_entries$$, $$select id from d where n = 1$$,
                  'the newest failure stays');

select * from finish();
rollback;
