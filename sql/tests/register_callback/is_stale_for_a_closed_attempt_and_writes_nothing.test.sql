-- A registration for an attempt that is not open is stale (no token, no
-- timeout) and writes nothing: after the attempt completed, after an
-- operator's cancel, after stale-heartbeat rescue, with a wrong receipt or
-- claim slot, and for the previous attempt after a retry and re-claim.
begin;
select plan(14);

create temp table c as select * from awa_test.claim_one('cb.k', '{}', '{"queue": "cb"}', '2030-01-01 12:00:00+00');
create temp table reg (name text, call text);
create function pg_temp.stale_registration(p_name text, p_id bigint, p_run_lease bigint, p_claim_slot int,
                                           p_receipt_id bigint) returns setof text language plpgsql as $f$
declare
  v_call text := format('select job_id, run_lease, outcome, callback_id, timeout_at from awa.register_callback(%s, %s, %s, %s, interval ''1 hour'')',
                        p_id, p_run_lease, p_claim_slot, p_receipt_id);
begin
  return next results_eq(v_call, format($q$values (%s::bigint, %s::bigint, 'stale'::awa.finalize_outcome, null::uuid, null::timestamptz)$q$,
                                        p_id, p_run_lease), p_name || ': the registration is stale');
  return next awa_test.writes_nothing(v_call, p_name || ': it writes nothing');
end $f$;

select pg_temp.stale_registration('a wrong receipt', id, run_lease, claim_slot, receipt_id + 1) from c;
select pg_temp.stale_registration('a wrong claim slot', id, run_lease, claim_slot + 1, receipt_id) from c;

-- completed
create temp table done as select * from awa_test.claim_one('cb.k', '{}', '{"queue": "cb"}', '2030-01-01 12:00:00+00');
select outcome from done, awa.complete_jobs(array[id], array[run_lease], array[claim_slot], array[receipt_id]);
select pg_temp.stale_registration('after complete', id, run_lease, claim_slot, receipt_id) from done;

-- cancelled by an operator
select outcome from c, awa.cancel_job(c.id, 'stop', '2030-01-01 12:00:01+00');
select pg_temp.stale_registration('after cancel_job', id, run_lease, claim_slot, receipt_id) from c;

-- rescued: the worker's heartbeat went stale
create temp table lost as select * from awa_test.claim_one('cb.k', '{}', '{"queue": "cb_lost"}', '2030-01-01 12:00:00+00');
select is((select count(*) from awa.rescue_stale_claims(interval '90 seconds', 10, '2030-01-01 12:10:00+00')),
          1::bigint, 'rescue closes the lost attempt (fixture)');
select pg_temp.stale_registration('after rescue', id, run_lease, claim_slot, receipt_id) from lost;

-- re-claimed: the previous attempt is stale, the new one registers
select count(*) from awa.promote_due_jobs(1000, '2030-01-02 00:00:00+00');
create temp table again as select * from awa.claim_ready_runtime('cb_lost', 1, null, '2030-01-02 00:00:01+00');
select pg_temp.stale_registration('the previous attempt after a re-claim', id, run_lease, claim_slot, receipt_id) from lost;
select is((select outcome from again, awa.register_callback(id, run_lease, claim_slot, receipt_id, interval '1 hour')),
          'applied'::awa.finalize_outcome, 'the new attempt registers');

select * from finish();
rollback;
