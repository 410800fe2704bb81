-- An old claim is left alone while its instance keeps heartbeating.
begin;
select plan(4);

select * from awa.heartbeat_instance('00000000-0000-0000-0000-00000000a002', now());
create temp table j as select * from awa.insert_job('rescue.k', '{}', '{"queue": "rq"}');
create temp table c as
select * from awa.claim_ready_runtime('rq', 1, '00000000-0000-0000-0000-00000000a002', now());
select * from awa.heartbeat_instance('00000000-0000-0000-0000-00000000a002', now() + interval '1 hour');

select is_empty($$select * from awa.rescue_stale_claims(interval '90 seconds', 1000, now() + interval '1 hour 1 minute')$$,
                'an hour-old claim with a fresh heartbeat is not rescued');

select awa_test.writes_nothing(
  $$select * from awa.rescue_stale_claims(interval '90 seconds', 1000, now() + interval '1 hour 1 minute')$$,
  'a rescue that finds nothing writes nothing');

select is((select state from awa.jobs where id = (select id from j)), 'running'::awa.job_state,
          'the job is still running');

select results_eq(
  $$select job_id, outcome, state
    from awa.complete_jobs(array[(select id from c)], array[(select run_lease from c)],
                           array[(select claim_slot from c)], array[(select receipt_id from c)],
                           now() + interval '1 hour 2 minutes')$$,
  $$select id, 'applied'::awa.finalize_outcome, 'completed'::awa.job_state from j$$,
  'the worker still completes its attempt');

select * from finish();
rollback;
