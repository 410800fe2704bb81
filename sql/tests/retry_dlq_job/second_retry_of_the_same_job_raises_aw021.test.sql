-- A DLQ job can be retried once: the second call finds it no longer in the DLQ.
begin;
select plan(2);

create temp table c as select * from awa_test.dlq_claim('dlq.k', '{}', '{"queue": "dlqq", "max_attempts": 1}', now());

select lives_ok(format('select * from awa.retry_dlq_job(%s)', (select id from c)), 'the first retry succeeds');
select throws_ok(format('select * from awa.retry_dlq_job(%s)', (select id from c)),
                 'AW021', format('awa: job %s is not in the DLQ (it is available)', (select id from c)),
                 'the second retry raises AW021');

select * from finish();
rollback;
