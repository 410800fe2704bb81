-- A job claimed again after a retry gets attempt = previous attempt + 1 and
-- run_lease = previous run_lease + 1.
begin;
select plan(4);

select * from awa.insert_job('again', '{}', '{"queue": "again"}');
create temp table first_claim as select * from awa.claim_ready_runtime('again', 1, null, '2030-01-01 12:00:00+00');
select is((select attempt from first_claim), 1, 'the first claim is attempt 1');

select * from awa.retry_jobs(array(select id from first_claim), array(select run_lease from first_claim),
  array(select claim_slot from first_claim), array(select receipt_id from first_claim),
  array['boom'], array['2030-01-01 12:00:00+00'::timestamptz], '2030-01-01 12:00:00+00');
select * from awa.promote_due_jobs(10, '2030-01-01 12:00:01+00');

create temp table second_claim as select * from awa.claim_ready_runtime('again', 1, null, '2030-01-01 12:00:02+00');
select is((select id from second_claim), (select id from first_claim), 'the same job is claimed again');
select is((select attempt from second_claim), 2, 'the second claim is attempt 2');
select is((select run_lease from second_claim), (select run_lease + 1 from first_claim),
  'the second claim has run_lease = previous + 1');

select * from finish();
rollback;
