-- The rows of one claim come back highest priority first, then FIFO, also
-- when the jobs sit in different ready slots (the queue ring rotated between
-- their inserts).
begin;
select plan(4);

select * from awa.insert_job('p2_old', '{}', '{"queue": "order_slots", "priority": 2}');
select is((select outcome from awa.rotate_ring('queue', '2030-01-01 11:00:00+00')), 'rotated', 'setup: the queue ring rotates');
select * from awa.insert_job('p1_new', '{}', '{"queue": "order_slots", "priority": 1}');
select * from awa.insert_job('p2_new', '{}', '{"queue": "order_slots", "priority": 2}');

create temp table claimed as
select row_number() over () as ord, * from awa.claim_ready_runtime('order_slots', 2, null, '2030-01-01 12:00:00+00');

select bag_eq($$select kind from claimed$$, array['p1_new', 'p2_old'],
  'a claim of 2 selects the priority 1 job and the oldest priority 2 job');
select results_eq($$select kind from claimed order by ord$$, array['p1_new', 'p2_old'],
  'the claimed rows come back priority 1 first, although the priority 2 job is in the older ready slot');
select results_eq(
  $$select kind from awa.jobs where queue = 'order_slots' and state = 'available'$$,
  array['p2_new'],
  'the newer priority 2 job is left');

select * from finish();
rollback;
