-- purge_dlq without any filter, or with a limit outside 1..100000, raises
-- AW010 and deletes nothing.
begin;
select plan(6);

select awa_test.dlq_job('pa', now());
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
