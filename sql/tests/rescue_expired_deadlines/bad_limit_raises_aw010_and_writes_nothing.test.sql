-- A limit outside 1..100000 (or NULL) raises AW010 and rescues nothing.
begin;
select plan(5);

select * from awa.configure_queue('dq', '{"deadline_seconds": 5}');
create temp table j as select * from awa.insert_job('deadline.k', '{}', '{"queue": "dq"}');
create temp table c as select * from awa.claim_ready_runtime('dq', 1, null, now());
create temp table before as select awa_test.row_counts() as c;

select throws_ok($$select * from awa.rescue_expired_deadlines(0, now() + interval '1 minute')$$,
                 'AW010', 'awa: limit must be between 1 and 100000, got 0', 'limit 0 raises AW010');
select throws_ok($$select * from awa.rescue_expired_deadlines(100001, now() + interval '1 minute')$$,
                 'AW010', null, 'limit 100001 raises AW010');
select throws_ok($$select * from awa.rescue_expired_deadlines(null, now() + interval '1 minute')$$,
                 'AW010', null, 'a NULL limit raises AW010');

select is(awa_test.row_counts(), (select c from before), 'the failed calls wrote nothing');
select is((select state from awa.jobs where id = (select id from j)), 'running'::awa.job_state,
          'the expired attempt is still running');

select * from finish();
rollback;
