-- A token whose attempt ended otherwise resolves nothing: after
-- stale-heartbeat rescue of the waiting handler, after cancel_job (waiting in
-- sequence or parked), and after the parked job was resumed and claimed
-- again (the old token is not the new attempt's). Each is stale (naming the
-- job while its registration row is left) and writes nothing; the job's state is what the other closer left.
begin;
select plan(10);

create function pg_temp.stale_complete(p_name text, p_token uuid, p_id bigint) returns setof text language plpgsql as $f$
declare
  v_call text := format('select job_id, outcome, state from awa.complete_external(%L, ''{"late": true}'')', p_token);
begin
  return next results_eq(v_call, format($q$values (%s::bigint, 'stale'::awa.finalize_outcome, null::awa.job_state)$q$, coalesce(p_id::text, 'null')),
                         p_name || ': the token is stale');
  return next awa_test.writes_nothing(v_call, p_name || ': it writes nothing');
end $f$;

create temp table lost as select * from awa_test.claim_registered('cb_lost', '2030-01-01 12:00:00+00');
select is((select count(*) from awa.rescue_stale_claims(interval '90 seconds', 10, '2030-01-01 12:10:00+00')), 1::bigint,
          'rescue closes the waiting attempt (fixture)');
select pg_temp.stale_complete('after rescue', callback_id, id) from lost;

create temp table waiting as select * from awa_test.claim_registered('cb_wait', '2030-01-01 13:00:00+00');
create temp table parked as select * from awa_test.claim_parked('cb_park', '2030-01-01 13:00:00+00');
select state from waiting, awa.cancel_job(waiting.id, 'stop');
select state from parked, awa.cancel_job(parked.id, 'stop');
select pg_temp.stale_complete('after cancel_job of a waiting attempt', callback_id, id) from waiting;

create temp table again as select * from awa_test.claim_parked('cb_again', '2030-01-01 13:00:00+00');
select state from again, awa.resume_external(again.callback_id, '{}');
create temp table c2 as select * from awa.claim_ready_runtime('cb_again', 1, null, '2030-01-01 13:00:05+00');
-- the parked plane's row went with the resume: the token names no attempt now
select pg_temp.stale_complete('after a re-claim', callback_id, null) from again;

select results_eq(
  $$select (select state from awa.jobs where id = (select id from parked)),
           (select outcome from parked, awa.complete_external(parked.callback_id, '{}'))$$,
  $$values ('cancelled'::awa.job_state, 'stale'::awa.finalize_outcome)$$,
  'after cancel_job of a parked job: cancelled, and the token is stale');
select results_eq($$select id, state from awa.jobs where id in (select id from lost union all select id from waiting union all select id from again) order by id$$,
                  $$select id, 'retryable'::awa.job_state from lost union all select id, 'cancelled' from waiting
                    union all select id, 'running' from again order by 1$$,
                  'each job is what the other closer left: retryable, cancelled, running again');
select is((select outcome from c2, awa.complete_jobs(array[id], array[run_lease], array[claim_slot], array[receipt_id])),
          'applied'::awa.finalize_outcome, 'the new attempt completes on its own');

select * from finish();
rollback;
