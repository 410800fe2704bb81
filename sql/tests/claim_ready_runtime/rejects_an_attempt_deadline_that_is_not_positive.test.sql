-- attempt_deadline must be positive: zero and negative intervals raise AW010
-- and claim nothing (NULL means no attempt deadline).
begin;
select plan(6);

select * from awa.insert_job('k', '{}', '{"queue": "adbad"}');
create temp table counts_before as select awa_test.row_counts() as c;

select t.* from (values
  ($$select * from awa.claim_ready_runtime('adbad', 1, null, '2030-01-01 12:00:00+00', interval '0')$$, 'AW010', 'awa: attempt_deadline must be positive, got 00:00:00', 'attempt_deadline 0 raises AW010', 'attempt_deadline 0 writes nothing'),
  ($$select * from awa.claim_ready_runtime('adbad', 1, null, '2030-01-01 12:00:00+00', interval '-5 seconds')$$, 'AW010', 'awa: attempt_deadline must be positive, got -00:00:05', 'a negative attempt_deadline raises AW010', 'a negative attempt_deadline writes nothing')
) as c (call, sqlstate, message, raises, nothing)
cross join lateral awa_test.raises_writing_nothing(c.call, c.sqlstate, c.message, c.raises, c.nothing) t;

select is(awa_test.row_counts(), (select c from counts_before), 'no awa table gained or lost a row');
select is((select state from awa.jobs where queue = 'adbad'), 'available'::awa.job_state, 'the job is still available');

select * from finish();
rollback;
