-- awa.queues_ready gives each listed queue's awa.queue_readiness answer: a
-- rate-limited queue with an empty bucket is returned not ready, with the
-- wait until its next token; a keyed queue counts its key lanes, and a key
-- at its limit still reads as ready (as queue_pending says).
begin;
select plan(4);

select * from awa.configure_queue('qr_rl', '{"rate_limit": {"per_second": 4, "burst": 1}}');
update awa.queue_rate_buckets set refreshed_at = '2030-01-01 00:00:00+00' where queue = 'qr_rl';
select count(*) from awa.insert_jobs(array_fill('k'::text, array[3]), null, array_fill('{"queue":"qr_rl"}'::jsonb, array[3]));
select * from awa.configure_queue('qr_kq', '{"concurrency": {"key": "args.tenant", "limit": 1}}');
select count(*) from awa.insert_jobs(array_fill('k'::text, array[2]), array_fill('{"tenant":"a"}'::jsonb, array[2]),
                                     array_fill('{"queue":"qr_kq"}'::jsonb, array[2]));

select results_eq($$select queue, ready, wait_for from awa.queues_ready(array['qr_rl', 'qr_kq'], '2030-01-01 00:00:00+00')$$,
  $$values ('qr_kq'::text, true, null::interval), ('qr_rl', true, null)$$, 'a full bucket: ready, no wait; the keyed queue is ready');
select is((select count(*) from awa.claim_ready_runtime('qr_rl', 5, null, '2030-01-01 00:00:00+00')), 1::bigint,
  'a claim takes the token');
select is((select count(*) from awa.claim_ready_runtime('qr_kq', 5)), 1::bigint, 'a claim takes the key''s one slot');
select results_eq($$select queue, ready, wait_for from awa.queues_ready(array['qr_rl', 'qr_kq'], '2030-01-01 00:00:00.1+00')$$,
  $$select 'qr_kq'::text, r.pending and r.ready, r.wait_for from awa.queue_readiness('qr_kq') r
    union all
    select 'qr_rl', false, interval '0.15 s'$$,
  'an empty bucket: not ready, the wait until the next token; the keyed queue as queue_readiness says');

select * from finish();
rollback;
