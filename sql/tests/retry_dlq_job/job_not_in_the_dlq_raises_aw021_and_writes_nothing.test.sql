-- retry_dlq_job of a job that exists but is not in the DLQ raises AW021 naming
-- its state; of an unknown job AW020; of NULL AW010. Nothing is written.
begin;
select plan(6);

select * from awa.configure_queue('dlqq', '{"dlq": true}');
create temp table avail as select * from awa.insert_job('dlq.k', '{}', '{"queue": "dlqq"}');
create temp table failed as select * from awa.insert_job('dlq.k', '{}', '{"queue": "plain"}');
create temp table c as select * from awa.claim_ready_runtime('plain', 1, null, now());
select * from awa.fail_jobs(array[(select id from c)], array[(select run_lease from c)], array[(select claim_slot from c)],
                            array[(select receipt_id from c)], array['fatal'], now());
create temp table before as select awa_test.row_counts() as c;

select throws_ok(format('select * from awa.retry_dlq_job(%s)', (select id from avail)),
                 'AW021', format('awa: job %s is not in the DLQ (it is available)', (select id from avail)),
                 'an available job raises AW021');
select throws_ok(format('select * from awa.retry_dlq_job(%s)', (select id from failed)),
                 'AW021', format('awa: job %s is not in the DLQ (it is failed)', (select id from failed)),
                 'a failed job of a queue without DLQ raises AW021');
select throws_ok($$select * from awa.retry_dlq_job(-7)$$, 'AW020', 'awa: job -7 not found',
                 'an unknown job raises AW020');
select throws_ok($$select * from awa.retry_dlq_job(null)$$, 'AW010', 'awa: job_id must not be null',
                 'a NULL job id raises AW010');

select is(awa_test.row_counts(), (select c from before), 'the failed calls wrote nothing');
select is((select state from awa.jobs where id = (select id from avail)), 'available'::awa.job_state,
          'the available job is untouched');

select * from finish();
rollback;
