-- max must be 1..1024: 0, -1, 1025 and NULL raise AW010 and claim nothing.
begin;
select plan(10);

select * from awa.insert_job('k', '{}', '{"queue": "maxbad"}');
create temp table counts_before as select awa_test.row_counts() as c;

select t.* from (values
  ($$select * from awa.claim_ready_runtime('maxbad', 0, null, '2030-01-01 12:00:00+00')$$, 'AW010', 'awa: max must be between 1 and 1024, got 0', 'max 0 raises AW010', 'max 0 writes nothing'),
  ($$select * from awa.claim_ready_runtime('maxbad', -1, null, '2030-01-01 12:00:00+00')$$, 'AW010', NULL, 'max -1 raises AW010', 'max -1 writes nothing'),
  ($$select * from awa.claim_ready_runtime('maxbad', 1025, null, '2030-01-01 12:00:00+00')$$, 'AW010', 'awa: max must be between 1 and 1024, got 1025', 'max 1025 raises AW010', 'max 1025 writes nothing'),
  ($$select * from awa.claim_ready_runtime('maxbad', null, null, '2030-01-01 12:00:00+00')$$, 'AW010', NULL, 'max NULL raises AW010', 'max NULL writes nothing')
) as c (call, sqlstate, message, raises, nothing)
cross join lateral awa_test.raises_writing_nothing(c.call, c.sqlstate, c.message, c.raises, c.nothing) t;

select is(awa_test.row_counts(), (select c from counts_before), 'no awa table gained or lost a row');
select is((select state from awa.jobs where queue = 'maxbad'), 'available'::awa.job_state, 'the job is still available');

select * from finish();
rollback;
