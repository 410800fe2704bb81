-- queue_readiness answers queue_pending's pending and ready, and on a
-- rate-limited queue with less than one token: ready false and wait_for, the
-- time until one token is due. A queue without a rate limit has no wait_for.
begin;
select plan(5);

select * from awa.configure_queue('rl', '{"rate_limit": {"per_second": 4, "burst": 1}}');
update awa.queue_rate_buckets set refreshed_at = '2030-01-01 00:00:00+00' where queue = 'rl';
select count(*) from awa.insert_jobs(array_fill('k'::text, array[3]), null, array_fill('{"queue":"rl"}'::jsonb, array[3]));
select count(*) from awa.insert_jobs(array_fill('k'::text, array[3]), null, array_fill('{"queue":"plain"}'::jsonb, array[3]));

select results_eq($$select pending, ready, wait_for from awa.queue_readiness('rl', '2030-01-01 00:00:00+00')$$,
  $$values (true, true, null::interval)$$, 'a full bucket: ready, no wait');
select is((select count(*) from awa.claim_ready_runtime('rl', 5, null, '2030-01-01 00:00:00+00')), 1::bigint, 'a claim takes the token');
select results_eq($$select pending, ready, wait_for from awa.queue_readiness('rl', '2030-01-01 00:00:00.1+00')$$,
  $$values (true, false, interval '0.15 s')$$, 'an empty bucket: pending, not ready, a wait until the next token');
select results_eq($$select pending, ready, wait_for from awa.queue_readiness('plain')$$,
  $$values (true, true, null::interval)$$, 'a queue without a rate limit has no wait');
select throws_ok($$select * from awa.queue_readiness(null)$$, 'AW002', 'awa: queue must not be null', 'a null queue raises AW002');

select * from finish();
rollback;
