-- Each retry appends {attempt, at, error} to the job's errors; earlier entries
-- are kept. A NULL error message is recorded as 'no error message'.
begin;
select plan(3);

select * from awa.insert_job('flaky', '{}', '{"queue": "errs"}');

create temp table c1 as select * from awa.claim_ready_runtime('errs', 1, null, '2030-01-01 12:00:00+00');
select * from awa.retry_jobs(array(select id from c1), array(select run_lease from c1), array(select claim_slot from c1),
  array(select receipt_id from c1), array['first failure'], array['2030-01-01 12:01:00+00'::timestamptz], '2030-01-01 12:00:10+00');
select is((select errors from awa.jobs where id = (select id from c1)),
  '[{"attempt": 1, "at": "2030-01-01T12:00:10+00:00", "error": "first failure"}]'::jsonb,
  'the first retry records attempt 1, the time (p_now) and the error');

select * from awa.promote_due_jobs(10, '2030-01-01 12:01:00+00');
create temp table c2 as select * from awa.claim_ready_runtime('errs', 1, null, '2030-01-01 12:02:00+00');
select is((select errors from c2), '[{"attempt": 1, "at": "2030-01-01T12:00:10+00:00", "error": "first failure"}]'::jsonb,
  'the next claim hands the worker the errors so far');
select * from awa.retry_jobs(array(select id from c2), array(select run_lease from c2), array(select claim_slot from c2),
  array(select receipt_id from c2), array[null::text], array['2030-01-01 12:05:00+00'::timestamptz], '2030-01-01 12:02:30+00');
select is((select errors from awa.jobs where id = (select id from c1)),
  '[{"attempt": 1, "at": "2030-01-01T12:00:10+00:00", "error": "first failure"},
    {"attempt": 2, "at": "2030-01-01T12:02:30+00:00", "error": "no error message"}]'::jsonb,
  'the second retry appends attempt 2, keeping the first entry; a NULL error reads no error message');

select * from finish();
rollback;
