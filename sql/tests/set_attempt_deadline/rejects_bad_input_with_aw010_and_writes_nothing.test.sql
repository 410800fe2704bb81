-- A NULL id, a NULL deadline_at or a deadline_at not after now raises AW010
-- and writes nothing, even for an open attempt.
begin;
select plan(15);

create temp table c as select * from awa_test.claim_one('k', '{}', '{"queue": "sad"}', '2030-01-01 12:00:00+00');
create temp table counts_before as select awa_test.row_counts() as n;

select t.* from (values
  ($$select * from awa.set_attempt_deadline(null, (select run_lease from c), (select claim_slot from c), (select receipt_id from c), '2030-01-01 13:00:00+00', '2030-01-01 12:00:01+00')$$,
   'AW010', 'awa: job_id, run_lease, claim_slot and receipt_id must not be null', 'a NULL job_id raises AW010', NULL),
  ($$select * from awa.set_attempt_deadline((select id from c), null, (select claim_slot from c), (select receipt_id from c), '2030-01-01 13:00:00+00', '2030-01-01 12:00:01+00')$$,
   'AW010', NULL, 'a NULL run_lease raises AW010', NULL),
  ($$select * from awa.set_attempt_deadline((select id from c), (select run_lease from c), null, (select receipt_id from c), '2030-01-01 13:00:00+00', '2030-01-01 12:00:01+00')$$,
   'AW010', NULL, 'a NULL claim_slot raises AW010', NULL),
  ($$select * from awa.set_attempt_deadline((select id from c), (select run_lease from c), (select claim_slot from c), null, '2030-01-01 13:00:00+00', '2030-01-01 12:00:01+00')$$,
   'AW010', NULL, 'a NULL receipt_id raises AW010', NULL),
  ($$select * from awa.set_attempt_deadline((select id from c), (select run_lease from c), (select claim_slot from c), (select receipt_id from c), null, '2030-01-01 12:00:01+00')$$,
   'AW010', 'awa: deadline_at must not be null', 'a NULL deadline_at raises AW010', NULL),
  ($$select * from awa.set_attempt_deadline((select id from c), (select run_lease from c), (select claim_slot from c), (select receipt_id from c), '2030-01-01 12:00:01+00', '2030-01-01 12:00:01+00')$$,
   'AW010', 'awa: deadline_at must be after now (2030-01-01 12:00:01+00), got 2030-01-01 12:00:01+00',
   'a deadline_at equal to now raises AW010', NULL),
  ($$select * from awa.set_attempt_deadline((select id from c), (select run_lease from c), (select claim_slot from c), (select receipt_id from c), '2030-01-01 11:00:00+00', '2030-01-01 12:00:01+00')$$,
   'AW010', 'awa: deadline_at must be after now (2030-01-01 12:00:01+00), got 2030-01-01 11:00:00+00',
   'a deadline_at in the past raises AW010', NULL)
) as v (call, sqlstate, message, raises, nothing)
cross join lateral awa_test.raises_writing_nothing(v.call, v.sqlstate, v.message, v.raises, v.nothing) t;

select is(awa_test.row_counts(), (select n from counts_before), 'no awa table gained or lost a row');

select * from finish();
rollback;
