-- A claim whose instance stopped heartbeating is rescued once both the claim
-- and the last heartbeat are older than the staleness.
begin;
select plan(3);

select lives_ok($$select * from awa.heartbeat_instance('00000000-0000-0000-0000-00000000a001', now())$$,
                'the worker instance registers (fixture)');

create temp table j as select * from awa.insert_job('rescue.k', '{}', '{"queue": "rq"}');
create temp table c as
select * from awa.claim_ready_runtime('rq', 1, '00000000-0000-0000-0000-00000000a001', now());

-- last heartbeat at +30s, then silence
select * from awa.heartbeat_instance('00000000-0000-0000-0000-00000000a001', now() + interval '30 seconds');

select is_empty($$select * from awa.rescue_stale_claims(interval '90 seconds', 1000, now() + interval '100 seconds')$$,
                'not rescued while the last heartbeat is younger than the staleness');

select results_eq(
  $$select job_id, outcome, state from awa.rescue_stale_claims(interval '90 seconds', 1000, now() + interval '121 seconds')$$,
  $$select id, 'applied'::awa.finalize_outcome, 'retryable'::awa.job_state from j$$,
  'rescued once the last heartbeat is older than the staleness');

select * from finish();
rollback;
