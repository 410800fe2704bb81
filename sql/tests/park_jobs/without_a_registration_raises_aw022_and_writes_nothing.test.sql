-- Parking an open attempt that registered no callback raises AW022
-- (callback_not_registered), naming the job, and writes nothing: in a batch
-- with a registered attempt, that one is not parked either, and both stay
-- open. The check follows the attempts' closure (it needs their locks), so
-- the raise rolls that write back: row counts, not write counts, show it.
begin;
select plan(8);

create function pg_temp.unchanged(p_sql text, p_description text) returns text language plpgsql as $f$
declare
  v_before jsonb := awa_test.row_counts();
begin
  perform awa_test.attempt(p_sql);
  return is(awa_test.changed(v_before, awa_test.row_counts()), '{}'::jsonb, p_description);
end $f$;

create temp table plain as select * from awa_test.claim_one('cb.k', '{}', '{"queue": "cb_plain"}', '2030-01-01 12:00:00+00');
create temp table reg as select * from awa_test.claim_registered('cb', '2030-01-01 12:00:00+00');
create temp table before as select awa_test.row_counts() as n;

prepare alone as select * from plain, awa.park_jobs(array[plain.id], array[plain.run_lease], array[plain.claim_slot], array[plain.receipt_id]);
prepare mixed as select * from awa.park_jobs(array[(select id from reg), (select id from plain)],
                                             array[(select run_lease from reg), (select run_lease from plain)],
                                             array[(select claim_slot from reg), (select claim_slot from plain)],
                                             array[(select receipt_id from reg), (select receipt_id from plain)]);
select throws_ok('execute alone', 'AW022', format('awa: job %s (run_lease 1) parks without a registered callback', (select id from plain)),
                 'parking an attempt without a registration raises AW022');
select pg_temp.unchanged('execute alone', 'parking an attempt without a registration writes nothing');
select throws_ok('execute mixed', 'AW022', null, 'a batch with one unregistered attempt raises AW022');
select pg_temp.unchanged('execute mixed', 'a batch with one unregistered attempt writes nothing, not even for the registered one');
select is(awa_test.row_counts(), (select n from before), 'no awa table gained or lost a row');
select results_eq($$select id, state from awa.jobs order by id$$,
                  $$select id, 'running'::awa.job_state from plain union all select id, 'waiting_external' from reg$$,
                  'both attempts are still open');
select is((select outcome from reg, awa.park_jobs(array[reg.id], array[reg.run_lease], array[reg.claim_slot], array[reg.receipt_id])),
          'applied'::awa.finalize_outcome, 'the registered attempt alone parks');
select is((select outcome from plain, awa.complete_jobs(array[plain.id], array[plain.run_lease], array[plain.claim_slot],
                                                          array[plain.receipt_id])),
          'applied'::awa.finalize_outcome, 'the unregistered attempt can still be completed');

select * from finish();
rollback;
