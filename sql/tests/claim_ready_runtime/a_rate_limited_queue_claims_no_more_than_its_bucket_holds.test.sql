-- On a rate-limited queue a claim takes at most floor(tokens): the bucket
-- starts at burst, refills at per_second up to burst, keeps what a claim did
-- not take, and an empty bucket claims nothing and writes nothing.
begin;
select plan(9);

select * from awa.configure_queue('rl', '{"rate_limit": {"per_second": 2, "burst": 3}}');
update awa.queue_rate_buckets set refreshed_at = '2030-01-01 00:00:00+00' where queue = 'rl';
select count(*) from awa.insert_jobs(array_fill('k'::text, array[20]), null, array_fill('{"queue":"rl"}'::jsonb, array[20]));

select is((select count(*) from awa.claim_ready_runtime('rl', 10, null, '2030-01-01 00:00:00+00')), 3::bigint,
  'a full bucket gives burst jobs to a claim asking for more');
select is((select tokens from awa.queue_rate_buckets where queue = 'rl'), 0::float8, 'the bucket is then empty');
select * from awa_test.writes_nothing($$select * from awa.claim_ready_runtime('rl', 10, null, '2030-01-01 00:00:00.4+00')$$,
  'a claim before a token is due claims nothing and writes nothing');
select is((select count(*) from awa.claim_ready_runtime('rl', 1, null, '2030-01-01 00:00:01+00')), 1::bigint,
  'after 1 s, a claim of 1 takes 1 of the 2 tokens refilled');
select is((select tokens from awa.queue_rate_buckets where queue = 'rl'), 1::float8, 'and the bucket keeps the other');
select is((select count(*) from awa.claim_ready_runtime('rl', 10, null, '2030-01-01 00:01:00+00')), 3::bigint,
  'a long idle bucket holds no more than burst');
select is((select refreshed_at from awa.queue_rate_buckets where queue = 'rl'), '2030-01-01 00:01:00+00'::timestamptz,
  'the claim time is the refill time');
select is((select claimed_at from awa.claim_ready_runtime('rl', 1, null, '2030-01-01 00:00:30+00')), null::timestamptz,
  'a claim dated before the last refill gets no token for time gone back');
select is((select count(*) from awa.claim_ready_runtime('other', 10)), 0::bigint, 'other queues are not touched');

select * from finish();
rollback;
