-- The limit bounds the jobs one call rescues, parked and waiting together:
-- parked jobs first, the oldest timeout first; the next call goes on.
begin;
select plan(4);

create temp table p1 as select * from awa_test.claim_parked('cb', '2030-01-01 12:00:00+00', interval '2 minutes');
create temp table p2 as select * from awa_test.claim_parked('cb', '2030-01-01 12:00:00+00', interval '1 minute');
create temp table w1 as select * from awa_test.claim_registered('cb', '2030-01-01 12:00:00+00', interval '1 minute');
create temp table w2 as select * from awa_test.claim_registered('cb', '2030-01-01 12:00:00+00', interval '2 minutes');

select results_eq($$select job_id from awa.rescue_expired_callbacks(1, '2030-01-01 12:05:00+00')$$, $$select id from p2$$,
                  'limit 1: the parked job with the oldest timeout');
select results_eq($$select job_id from awa.rescue_expired_callbacks(2, '2030-01-01 12:05:00+00')$$,
                  $$select id from p1 union all select id from w1$$,
                  'limit 2: the other parked job, then the oldest waiting attempt');
select results_eq($$select job_id from awa.rescue_expired_callbacks(2, '2030-01-01 12:05:00+00')$$, $$select id from w2$$,
                  'then the last one');
select is((select count(*) from awa.jobs where state = 'retryable'), 4::bigint, 'all four are retried');

select * from finish();
rollback;
