-- A deadline is a hard limit: an attempt past it is rescued even while its
-- worker instance keeps heartbeating.
begin;
select plan(1);

select * from awa.configure_queue('dq', '{"deadline_seconds": 5}');
select * from awa.heartbeat_instance('00000000-0000-0000-0000-00000000d001', now());
create temp table j as select * from awa.insert_job('deadline.k', '{}', '{"queue": "dq"}');
create temp table c as
select * from awa.claim_ready_runtime('dq', 1, '00000000-0000-0000-0000-00000000d001', now());
select * from awa.heartbeat_instance('00000000-0000-0000-0000-00000000d001', now() + interval '10 seconds');

select results_eq(
  $$select job_id, state from awa.rescue_expired_deadlines(1000, now() + interval '10 seconds')$$,
  $$select id, 'retryable'::awa.job_state from j$$,
  'the attempt past its deadline is rescued despite a fresh heartbeat');

select * from finish();
rollback;
