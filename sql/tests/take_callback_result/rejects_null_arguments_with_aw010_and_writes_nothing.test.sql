-- A NULL job_id, run_lease, claim_slot, receipt_id or callback_id raises AW010
-- and writes nothing, even when the callback was resumed (the take would
-- hand its result over).
begin;
select plan(12);

create temp table c as select * from awa_test.claim_registered('cb', '2030-01-01 12:00:00+00');
select outcome from c, awa.resume_external(c.callback_id, '{"n": 1}');
create temp table before as select awa_test.row_counts() as n;

select t.* from (values
  ($$select * from c, awa.take_callback_result(null, run_lease, claim_slot, receipt_id, callback_id)$$,
   'AW010', 'awa: job_id, run_lease, claim_slot, receipt_id and callback_id must not be null', 'a NULL job_id raises AW010'),
  ($$select * from c, awa.take_callback_result(id, null, claim_slot, receipt_id, callback_id)$$, 'AW010', NULL, 'a NULL run_lease raises AW010'),
  ($$select * from c, awa.take_callback_result(id, run_lease, null, receipt_id, callback_id)$$, 'AW010', NULL, 'a NULL claim_slot raises AW010'),
  ($$select * from c, awa.take_callback_result(id, run_lease, claim_slot, null, callback_id)$$, 'AW010', NULL, 'a NULL receipt_id raises AW010'),
  ($$select * from c, awa.take_callback_result(id, run_lease, claim_slot, receipt_id, null)$$, 'AW010', NULL, 'a NULL callback_id raises AW010')
) as v (call, sqlstate, message, raises)
cross join lateral awa_test.raises_writing_nothing(v.call, v.sqlstate, v.message, v.raises) t;
select is(awa_test.row_counts(), (select n from before), 'no awa table gained or lost a row');
select is((select status from c, awa.take_callback_result(id, run_lease, claim_slot, receipt_id, callback_id)), 'resumed',
          'the resumed result is still there to take');

select * from finish();
rollback;
