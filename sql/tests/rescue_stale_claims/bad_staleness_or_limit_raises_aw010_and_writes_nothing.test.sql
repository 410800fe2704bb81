-- A non-positive or NULL staleness, or a limit outside 1..100000, raises
-- AW010 and rescues nothing.
begin;
select plan(7);

create temp table j as select * from awa.insert_job('rescue.k', '{}', '{"queue": "rq"}');
create temp table c as select * from awa.claim_ready_runtime('rq', 1, null, now());
create temp table before as select awa_test.row_counts() as c;

select throws_ok($$select * from awa.rescue_stale_claims(interval '0', 1000, now() + interval '1 hour')$$,
                 'AW010', 'awa: staleness must be positive, got 00:00:00', 'zero staleness raises AW010');
select throws_ok($$select * from awa.rescue_stale_claims(interval '-5 seconds', 1000, now() + interval '1 hour')$$,
                 'AW010', null, 'negative staleness raises AW010');
select throws_ok($$select * from awa.rescue_stale_claims(null, 1000, now() + interval '1 hour')$$,
                 'AW010', null, 'NULL staleness raises AW010');
select throws_ok($$select * from awa.rescue_stale_claims(interval '90 seconds', 0, now() + interval '1 hour')$$,
                 'AW010', 'awa: limit must be between 1 and 100000, got 0', 'limit 0 raises AW010');
select throws_ok($$select * from awa.rescue_stale_claims(interval '90 seconds', 100001, now() + interval '1 hour')$$,
                 'AW010', null, 'limit 100001 raises AW010');

select is(awa_test.row_counts(), (select c from before), 'the failed calls wrote nothing');
select is((select state from awa.jobs where id = (select id from j)), 'running'::awa.job_state,
          'the stale claim is still running');

select * from finish();
rollback;
