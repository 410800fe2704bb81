-- On a keyed queue the key's attempts (awa.key_attempts) name, for each
-- claimed job, its item in the claim batch of its ready slot and its weight:
-- checked for a claim that draws from two ready slots (two batches) and for
-- one that draws from one. Keys a and b, limit 3 each; weights fill both
-- keys in the first claim (a1 1 + a2 2, b1 2 + b2 1), a3 waits for room, and
-- once a's attempts complete, the next claim takes a3 and nothing of b.
begin;
select plan(7);

select * from awa.configure_queue('kq', '{"concurrency": {"key": "args.t", "limit": 3}}');
select * from awa.insert_job('a1', '{"t": "a"}', '{"queue": "kq"}');
select * from awa.insert_job('b1', '{"t": "b"}', '{"queue": "kq", "weight": 2}');
select is((select outcome from awa.rotate_ring('queue', '2030-01-01 11:00:00+00')), 'rotated', 'setup: the queue ring rotates');
select * from awa.insert_job('a2', '{"t": "a"}', '{"queue": "kq", "weight": 2}');
select * from awa.insert_job('b2', '{"t": "b"}', '{"queue": "kq"}');
select * from awa.insert_job('a3', '{"t": "a"}', '{"queue": "kq"}');

-- Each claimed job of c, as the key's attempts name it: (job, key, weight).
create function pg_temp.named(p_ids bigint[]) returns table (job_id bigint, key text, w int) language sql as $$
  select b.job_ids[i.item], a.key, i.w
  from awa.key_attempts a
  cross join lateral unnest(a.items, coalesce(a.weights, array_fill(1, array[cardinality(a.items)]))) as i (item, w)
  join awa.claim_batches b on b.batch_id = a.batch_id and b.issued_slot = a.claim_slot
  where a.queue = 'kq' and b.job_ids[i.item] = any (p_ids)
$$;

create temp table c1 as select * from awa.claim_ready_runtime('kq', 10, null, '2030-01-01 12:00:00+00');
select bag_eq($$select kind from c1$$, array['a1', 'a2', 'b1', 'b2'],
  'the first claim fills both keys to their limit of 3; a3 does not fit');
select is((select count(distinct awa._receipt_batch_id(receipt_id)) from c1), 2::bigint,
  'setup: it drew from two ready slots, so two batches');
select bag_eq($$select * from pg_temp.named(array(select id from c1))$$,
  $$select id, args ->> 't', coalesce((metadata ->> 'flow_weight')::int, 1) from c1$$,
  'the key''s attempts name each job''s item in its batch, under its key, with its weight');

select count(*) from awa.complete_jobs(array(select id from c1 where args ->> 't' = 'a'), array(select run_lease from c1 where args ->> 't' = 'a'),
                                       array(select claim_slot from c1 where args ->> 't' = 'a'), array(select receipt_id from c1 where args ->> 't' = 'a'));
create temp table c2 as select * from awa.claim_ready_runtime('kq', 10, null, '2030-01-01 12:01:00+00');
select results_eq($$select kind from c2$$, array['a3'], 'a''s attempts closed: the next claim takes a3, nothing of b');
select bag_eq($$select * from pg_temp.named(array(select id from c2))$$,
  $$select id, 'a'::text as key, 1 as w from c2$$,
  'a claim from one ready slot: its attempt is named by its item, under key a, weight 1');
select results_eq($$select kind from awa.claim_ready_runtime('kq', 10, null, '2030-01-01 12:02:00+00')$$, array[]::text[],
  'b is still at its limit and a has no job left: the next claim takes nothing');

select * from finish();
rollback;
