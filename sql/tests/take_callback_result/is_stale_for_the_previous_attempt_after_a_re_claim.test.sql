-- After the parked job is resumed and claimed again, the previous attempt's
-- take (its run_lease, receipt and token) is stale and writes nothing; the
-- new attempt registers and waits with a token of its own.
begin;
select plan(4);

create temp table c as select * from awa_test.claim_parked('cb', '2030-01-01 12:00:00+00');
select state from c, awa.resume_external(c.callback_id, '{"n": 1}', '2030-01-01 12:00:01+00');
create temp table again as select * from awa.claim_ready_runtime('cb', 1, null, '2030-01-01 12:00:02+00');
select is((select run_lease from again), (select run_lease + 1 from c), 'the job is claimed again (fixture)');

prepare old as select t.job_id, t.run_lease, t.status from c,
  awa.take_callback_result(c.id, c.run_lease, c.claim_slot, c.receipt_id, c.callback_id) t;
select results_eq('old', $$select id, run_lease, 'stale'::text from c$$, 'the previous attempt''s take is stale');
select awa_test.writes_nothing('execute old', 'it writes nothing');
create temp table r2 as select r.* from again, awa.register_callback(id, run_lease, claim_slot, receipt_id, interval '1 hour') r;
select results_eq($$select t.status from again, r2, awa.take_callback_result(again.id, again.run_lease, again.claim_slot,
                                                                              again.receipt_id, r2.callback_id) t$$,
                  $$values ('waiting'::text)$$, 'the new attempt waits with its own token');

select * from finish();
rollback;
