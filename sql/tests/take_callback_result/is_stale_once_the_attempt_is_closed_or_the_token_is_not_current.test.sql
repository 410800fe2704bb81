-- take_callback_result is stale, and writes nothing, when the attempt was
-- closed (a callback completed, failed or retried it, an operator cancelled
-- it, stale-heartbeat rescue or the callback timeout closed it), when the
-- token is not the attempt's current one (superseded, forged, another job's)
-- and for the previous attempt after a re-claim.
begin;
select plan(21);

create function pg_temp.stale_take(p_name text, p_id bigint, p_run_lease bigint, p_claim_slot int, p_receipt_id bigint,
                                   p_callback_id uuid) returns setof text language plpgsql as $f$
declare
  v_call text := format('select job_id, run_lease, status, result from awa.take_callback_result(%s, %s, %s, %s, %L)',
                        p_id, p_run_lease, p_claim_slot, p_receipt_id, p_callback_id);
begin
  return next results_eq(v_call, format($q$values (%s::bigint, %s::bigint, 'stale'::text, null::jsonb)$q$, p_id, p_run_lease),
                         p_name || ': the take is stale');
  return next awa_test.writes_nothing(v_call, p_name || ': it writes nothing');
end $f$;

create temp table done as select * from awa_test.claim_registered('cb_done', '2030-01-01 12:00:00+00');
select state from done, awa.complete_external(done.callback_id);
select pg_temp.stale_take('after complete_external', id, run_lease, claim_slot, receipt_id, callback_id) from done;

create temp table failed as select * from awa_test.claim_registered('cb_fail', '2030-01-01 12:00:00+00');
select state from failed, awa.fail_external(failed.callback_id, 'no');
select pg_temp.stale_take('after fail_external', id, run_lease, claim_slot, receipt_id, callback_id) from failed;

create temp table retried as select * from awa_test.claim_registered('cb_retry', '2030-01-01 12:00:00+00');
select state from retried, awa.retry_external(retried.callback_id, 'again');
select pg_temp.stale_take('after retry_external', id, run_lease, claim_slot, receipt_id, callback_id) from retried;

create temp table cancelled as select * from awa_test.claim_registered('cb_cancel', '2030-01-01 12:00:00+00');
select state from cancelled, awa.cancel_job(cancelled.id, 'stop');
select pg_temp.stale_take('after cancel_job', id, run_lease, claim_slot, receipt_id, callback_id) from cancelled;

create temp table timed_out as select * from awa_test.claim_registered('cb_timeout', '2030-01-01 12:00:00+00', interval '1 minute');
select is((select state from awa.rescue_expired_callbacks(10, '2030-01-01 12:05:00+00')), 'retryable'::awa.job_state,
          'the callback timeout retries the attempt (fixture)');
select pg_temp.stale_take('after the callback timeout', id, run_lease, claim_slot, receipt_id, callback_id) from timed_out;

create temp table lost as select * from awa_test.claim_registered('cb_lost', '2030-01-01 12:00:00+00');
select is((select count(*) from awa.rescue_stale_claims(interval '90 seconds', 10, '2030-01-01 12:10:00+00')), 1::bigint,
          'rescue closes the lost attempt (fixture)');
select pg_temp.stale_take('after rescue', id, run_lease, claim_slot, receipt_id, callback_id) from lost;

create temp table open as select * from awa_test.claim_registered('cb', '2030-01-01 13:00:00+00');
create temp table other as select * from awa_test.claim_registered('cb_other', '2030-01-01 13:00:00+00');
select outcome from open, awa.resume_external(open.callback_id, '{}');
select pg_temp.stale_take('a forged token', id, run_lease, claim_slot, receipt_id, gen_random_uuid()) from open;
select pg_temp.stale_take('another job''s token', id, run_lease, claim_slot, receipt_id, (select callback_id from other)) from open;
select results_eq($$select status from open, awa.take_callback_result(id, run_lease, claim_slot, receipt_id, callback_id)$$,
                  $$values ('resumed'::text)$$, 'the right token still takes the resumed payload');

create temp table sup as select * from awa_test.claim_registered('cb_sup', '2030-01-01 13:00:00+00');
select outcome from sup, awa.register_callback(id, run_lease, claim_slot, receipt_id, interval '1 hour');
select pg_temp.stale_take('a superseded token', id, run_lease, claim_slot, receipt_id, callback_id) from sup;

select * from finish();
rollback;
