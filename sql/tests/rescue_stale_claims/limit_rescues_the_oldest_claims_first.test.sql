-- rescue_stale_claims(limit) closes at most limit attempts, taking the oldest claims.
begin;
select plan(3);

select * from awa.insert_jobs(array['rescue.k', 'rescue.k', 'rescue.k'], null,
                              array['{"queue": "rq"}', '{"queue": "rq"}', '{"queue": "rq"}']::jsonb[]);
create temp table c1 as select * from awa.claim_ready_runtime('rq', 1, null, now());
create temp table c2 as select * from awa.claim_ready_runtime('rq', 1, null, now() + interval '10 seconds');
create temp table c3 as select * from awa.claim_ready_runtime('rq', 1, null, now() + interval '20 seconds');

select bag_eq(
  $$select job_id from awa.rescue_stale_claims(interval '90 seconds', 2, now() + interval '5 minutes')$$,
  $$select id from c1 union all select id from c2$$,
  'limit 2 rescues the two oldest claims');

select is((select state from awa.jobs where id = (select id from c3)), 'running'::awa.job_state,
          'the youngest claim is left for the next call');

select results_eq(
  $$select job_id from awa.rescue_stale_claims(interval '90 seconds', 2, now() + interval '5 minutes')$$,
  $$select id from c3$$,
  'the next call rescues the remaining claim');

select * from finish();
rollback;
