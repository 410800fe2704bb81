-- purge_dlq without any filter, or with a limit outside 1..100000, raises
-- AW010 and deletes nothing.
begin;
select plan(6);

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
select pg_temp.dlq_job('pa', now());
create temp table before as select awa_test.row_counts() as c;

select throws_ok($$select * from awa.purge_dlq()$$, 'AW010',
                 'awa: purge_dlq needs a queue, failed_before or job_ids filter', 'a call without filter raises AW010');
select throws_ok($$select * from awa.purge_dlq(null, null, null, 10)$$, 'AW010', null,
                 'all-NULL filters raise AW010');
select throws_ok($$select * from awa.purge_dlq(p_queue => 'pa', p_limit => 0)$$, 'AW010',
                 'awa: limit must be between 1 and 100000, got 0', 'limit 0 raises AW010');
select throws_ok($$select * from awa.purge_dlq(p_queue => 'pa', p_limit => 100001)$$, 'AW010', null,
                 'limit 100001 raises AW010');
select throws_ok($$select * from awa.purge_dlq(p_queue => 'pa', p_limit => null)$$, 'AW010', null,
                 'a NULL limit raises AW010');

select is(awa_test.row_counts(), (select c from before), 'the failed calls deleted nothing');

select * from finish();
rollback;
