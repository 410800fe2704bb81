-- rescue_expired_deadlines(limit) closes at most limit attempts, earliest
-- deadline first.
begin;
select plan(2);

select * from awa.configure_queue('dq', '{"deadline_seconds": 5}');
select * from awa.insert_jobs(array['deadline.k', 'deadline.k'], null,
                              array['{"queue": "dq"}', '{"queue": "dq"}']::jsonb[]);
create temp table c1 as select * from awa.claim_ready_runtime('dq', 1, null, now() + interval '1 second');
create temp table c2 as select * from awa.claim_ready_runtime('dq', 1, null, now());

select results_eq(
  $$select job_id from awa.rescue_expired_deadlines(1, now() + interval '1 minute')$$,
  $$select id from c2$$,
  'limit 1 rescues the attempt with the earliest deadline');
select is((select state from awa.jobs where id = (select id from c1)), 'running'::awa.job_state,
          'the later deadline waits for the next call');

select * from finish();
rollback;
