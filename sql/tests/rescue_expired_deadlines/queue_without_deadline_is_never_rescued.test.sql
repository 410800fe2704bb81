-- Attempts claimed with no deadline (queue without one, or configured only
-- after the claim) are never rescued by the deadline sweep.
begin;
select plan(2);

create temp table j as select * from awa.insert_job('deadline.k', '{}', '{"queue": "dq"}');
create temp table c as select * from awa.claim_ready_runtime('dq', 1, null, now());
select * from awa.configure_queue('dq', '{"deadline_seconds": 1}');

select is_empty($$select * from awa.rescue_expired_deadlines(1000, now() + interval '1 day')$$,
                'an attempt claimed without a deadline is not rescued a day later');
select is((select state from awa.jobs where id = (select id from j)), 'running'::awa.job_state,
          'the job is still running');

select * from finish();
rollback;
