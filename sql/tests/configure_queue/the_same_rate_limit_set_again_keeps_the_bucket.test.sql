-- configure_queue with the rate limit a queue already has (a deploy that
-- declares its queues at every start) keeps the bucket as claims left it
-- (now() stands still in the transaction: no refill between the claims):
-- refilling it would let each call start another burst of jobs, past
-- burst + per_second * T. A changed per_second or burst fills it again.
begin;
select plan(6);

select * from awa.configure_queue('rq', '{"rate_limit": {"per_second": 3, "burst": 3}}');
select * from awa.insert_jobs(array_fill('k'::text, array[10]), null, array_fill('{"queue": "rq"}'::jsonb, array[10]));
select is((select count(*) from awa.claim_ready_runtime('rq', 10)), 3::bigint, 'a claim takes the full bucket (3)');
select * from awa.configure_queue('rq', '{"rate_limit": {"per_second": 3, "burst": 3}}');
select is((select count(*) from awa.claim_ready_runtime('rq', 10)), 0::bigint,
  'the same limit set again leaves the bucket empty: the next claim takes nothing');
select * from awa.configure_queue('rq', '{"rate_limit": {"per_second": 3}, "dlq": true}');
select is((select count(*) from awa.claim_ready_runtime('rq', 10)), 0::bigint,
  'so does the same limit written with its default burst');
select * from awa.configure_queue('rq', '{"rate_limit": {"per_second": 3, "burst": 2}}');
select is((select tokens from awa.queue_rate_buckets where queue = 'rq'), 2::float8, 'a changed burst fills the bucket');
select is((select count(*) from awa.claim_ready_runtime('rq', 10)), 2::bigint, 'and a claim takes it');
select * from awa.configure_queue('rq', '{"rate_limit": {"per_second": 4, "burst": 2}}');
select is((select tokens from awa.queue_rate_buckets where queue = 'rq'), 2::float8, 'a changed per_second fills it too');

select * from finish();
rollback;
