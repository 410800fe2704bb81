-- One claim that draws from two priorities, two ready slots (the queue ring
-- rotated between the inserts) and passes a tombstone in each priority's
-- range returns its rows in claim order: priority 1 first, then priority 2,
-- each FIFO by lane position across the slots, the cancelled jobs left out.
-- Each row's receipt names the batch of its ready slot and the item holding
-- exactly its job and run_lease, items numbered in claim order within the
-- batch; presented back in reverse order, every receipt is applied once,
-- and a second time every one is stale.
begin;
select plan(9);

select * from awa.insert_jobs(array['a1', 'a2', 'a3'], null, array_fill('{"queue": "ord", "priority": 2}'::jsonb, array[3]));
select * from awa.insert_job('b1', '{}', '{"queue": "ord", "priority": 1}');
select is((select outcome from awa.rotate_ring('queue', '2030-01-01 11:00:00+00')), 'rotated', 'setup: the queue ring rotates');
select * from awa.insert_jobs(array['a4', 'a5'], null, array_fill('{"queue": "ord", "priority": 2}'::jsonb, array[2]));
select * from awa.insert_jobs(array['b2', 'b3'], null, array_fill('{"queue": "ord", "priority": 1}'::jsonb, array[2]));
select * from awa.cancel_job((select id from awa.jobs where queue = 'ord' and kind = 'a2'), null, '2030-01-01 11:30:00+00');
select * from awa.cancel_job((select id from awa.jobs where queue = 'ord' and kind = 'b2'), null, '2030-01-01 11:30:00+00');
select is((select count(distinct ready_slot) from awa.ready_entries where queue = 'ord'), 2::bigint,
  'setup: the jobs sit in two ready slots');

create temp table claimed as
select row_number() over () as ord, c.* from awa.claim_ready_runtime('ord', 10, null, '2030-01-01 12:00:00+00') as c;

select results_eq($$select kind from claimed order by ord$$, array['b1', 'b3', 'a1', 'a3', 'a4', 'a5'],
  'the rows come priority 1 first, FIFO within each priority across the ready slots, without the cancelled jobs');

create temp table items as
select c.ord, c.id, c.run_lease, c.claim_slot, c.receipt_id, r.ready_slot,
       b.ready_slot as batch_ready_slot, b.job_ids[awa._receipt_item(c.receipt_id)] as item_job,
       b.run_leases[awa._receipt_item(c.receipt_id)] as item_run_lease, awa._receipt_item(c.receipt_id) as item,
       b.batch_id, b.job_ids
from claimed c
join awa.ready_entries r on r.job_id = c.id
left join awa.claim_batches b on b.claim_slot = c.claim_slot and b.batch_id = awa._receipt_batch_id(c.receipt_id);

select is((select count(*) from items where batch_id is not null and batch_ready_slot = ready_slot
             and item_job = id and item_run_lease = run_lease and run_lease = 1), 6::bigint,
  'each receipt names its ready slot''s batch and the item that holds its job and run_lease 1');
select is((select count(distinct batch_id) from items), 2::bigint, 'one batch per ready slot');
select is((select count(distinct receipt_id) from items), 6::bigint, 'six receipts, all different');
select is((select count(*) from (select batch_id, array_agg(id order by ord) as ids, max(job_ids) as stored,
                                        array_agg(item order by ord) as nums
                                 from items group by batch_id) g
           where g.ids = g.stored and g.nums = array(select generate_series(1, cardinality(g.ids)))), 2::bigint,
  'within each batch the items are numbered 1, 2, ... in claim order and hold the jobs in that order');

select bag_eq(
  $$select job_id, outcome::text from awa.complete_jobs(
      array(select id from claimed order by ord desc), array(select run_lease from claimed order by ord desc),
      array(select claim_slot from claimed order by ord desc), array(select receipt_id from claimed order by ord desc),
      '2030-01-01 12:00:05+00')$$,
  $$select id, 'applied' from claimed$$,
  'presented in reverse order, every receipt is applied once');
select bag_eq(
  $$select job_id, outcome::text from awa.complete_jobs(
      array(select id from claimed order by ord), array(select run_lease from claimed order by ord),
      array(select claim_slot from claimed order by ord), array(select receipt_id from claimed order by ord),
      '2030-01-01 12:00:06+00')$$,
  $$select id, 'stale' from claimed$$,
  'presented again, every receipt is stale');

select * from finish();
rollback;
