-- A deadline with a receipt that names another item or slot is stale; so is
-- any deadline after the attempt completed. Neither writes anything.
begin;
select plan(6);

create temp table c as select * from awa_test.claim_one('k', '{}', '{"queue": "sad"}', '2030-01-01 12:00:00+00');

prepare wrong_receipt as select outcome from c,
  awa.set_attempt_deadline(c.id, c.run_lease, c.claim_slot, c.receipt_id + 1, now() + interval '1 hour');
prepare wrong_slot as select outcome from c,
  awa.set_attempt_deadline(c.id, c.run_lease, c.claim_slot + 1, c.receipt_id, now() + interval '1 hour');
select is((select outcome from c, awa.set_attempt_deadline(c.id, c.run_lease, c.claim_slot, c.receipt_id + 1,
                                                           now() + interval '1 hour')),
          'stale'::awa.finalize_outcome, 'a receipt naming another item is stale');
select awa_test.writes_nothing('execute wrong_receipt', 'a wrong receipt writes nothing');
select is((select outcome from c, awa.set_attempt_deadline(c.id, c.run_lease, c.claim_slot + 1, c.receipt_id,
                                                           now() + interval '1 hour')),
          'stale'::awa.finalize_outcome, 'a receipt of another claim slot is stale');
select awa_test.writes_nothing('execute wrong_slot', 'a wrong claim slot writes nothing');

select outcome from c, awa.complete_jobs(array[c.id], array[c.run_lease], array[c.claim_slot], array[c.receipt_id]);
prepare after_complete as select outcome from c,
  awa.set_attempt_deadline(c.id, c.run_lease, c.claim_slot, c.receipt_id, now() + interval '1 hour');
select is((select outcome from c, awa.set_attempt_deadline(c.id, c.run_lease, c.claim_slot, c.receipt_id,
                                                           now() + interval '1 hour')),
          'stale'::awa.finalize_outcome, 'a deadline after the completion is stale');
select awa_test.writes_nothing('execute after_complete', 'a deadline after the completion writes nothing');

select * from finish();
rollback;
