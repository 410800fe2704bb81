-- A claim naming an instance that no longer has a row counts as stale once
-- older than the staleness.
begin;
select plan(2);

select * from awa.heartbeat_instance('00000000-0000-0000-0000-00000000a003', now() + interval '10 minutes');
create temp table j as select * from awa.insert_job('rescue.k', '{}', '{"queue": "rq"}');
create temp table c as
select * from awa.claim_ready_runtime('rq', 1, '00000000-0000-0000-0000-00000000a003', now());

select is_empty($$select * from awa.rescue_stale_claims(interval '90 seconds', 1000, now() + interval '5 minutes')$$,
                'not rescued while the instance row has a fresh heartbeat');

delete from awa.runtime_instances where instance_id = '00000000-0000-0000-0000-00000000a003';

select results_eq(
  $$select job_id, state from awa.rescue_stale_claims(interval '90 seconds', 1000, now() + interval '5 minutes')$$,
  $$select id, 'retryable'::awa.job_state from j$$,
  'rescued once the instance row is gone');

select * from finish();
rollback;
