-- p_attempt_deadline gives a claim of a queue without a deadline a deadline_at
-- = claimed_at + attempt_deadline, returned and recorded in the claim batch.
begin;
select plan(3);

select * from awa.insert_job('k', '{}', '{"queue": "ad"}');
select * from awa.insert_job('k', '{}', '{"queue": "ad"}');

create temp table c as
select * from awa.claim_ready_runtime('ad', 1, null, '2030-01-01 12:00:00+00', p_attempt_deadline => interval '1 hour');

select is((select deadline_at from c), '2030-01-01 13:00:00+00'::timestamptz,
          'the claim returns deadline_at = claimed_at + attempt_deadline');
select is((select deadline_at from awa.claim_batches where queue = 'ad'), '2030-01-01 13:00:00+00'::timestamptz,
          'the claim batch records that deadline');
select is((select deadline_at from awa.claim_ready_runtime('ad', 1, null, '2030-01-01 12:00:00+00')), null::timestamptz,
          'without attempt_deadline, a queue without a deadline still gets none');

select * from finish();
rollback;
