-- A DLQ job can be retried once: the second call finds it no longer in the DLQ.
begin;
select plan(2);

select * from awa.configure_queue('dlqq', '{"dlq": true}');
create temp table j as select * from awa.insert_job('dlq.k', '{}', '{"queue": "dlqq", "max_attempts": 1}');
create temp table c as select * from awa.claim_ready_runtime('dlqq', 1, null, now());
select * from awa.fail_jobs(array[(select id from c)], array[(select run_lease from c)], array[(select claim_slot from c)],
                            array[(select receipt_id from c)], array['fatal'], now());

select lives_ok(format('select * from awa.retry_dlq_job(%s)', (select id from j)), 'the first retry succeeds');
select throws_ok(format('select * from awa.retry_dlq_job(%s)', (select id from j)),
                 'AW021', format('awa: job %s is not in the DLQ (it is available)', (select id from j)),
                 'the second retry raises AW021');

select * from finish();
rollback;
