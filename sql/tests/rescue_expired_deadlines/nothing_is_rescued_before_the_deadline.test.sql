-- Before (and at) its deadline an attempt is left running.
begin;
select plan(4);

select * from awa.configure_queue('dq', '{"deadline_seconds": 5}');
create temp table j as select * from awa.insert_job('deadline.k', '{}', '{"queue": "dq"}');
create temp table c as select * from awa.claim_ready_runtime('dq', 1, null, now());

select is_empty($$select * from awa.rescue_expired_deadlines(1000, now() + interval '4 seconds')$$,
                'nothing is rescued 4 s into a 5 s deadline');
select awa_test.writes_nothing($$select * from awa.rescue_expired_deadlines(1000, now() + interval '4 seconds')$$,
                               'a deadline rescue that finds nothing writes nothing');
select is_empty($$select * from awa.rescue_expired_deadlines(1000, now() + interval '5 seconds')$$,
                'nothing is rescued exactly at the deadline');
select is((select state from awa.jobs where id = (select id from j)), 'running'::awa.job_state,
          'the job is still running');

select * from finish();
rollback;
