-- A key lane retired by awa.retire_idle_key_lanes is listed again by the
-- key's next job (the same lane, whose cursor it continues), and a claim
-- takes that job; a retired lane is not visited by claims meanwhile.
begin;
select plan(5);

select * from awa.configure_queue('kq', '{"concurrency": {"key": "args.tenant", "limit": 5}}');
select count(*) from awa.insert_job('k', '{"tenant":"a"}', '{"queue":"kq"}');
create temp table lane as select k.lane_id from awa.key_lanes k where k.queue = 'kq';
create temp table c as select * from awa.claim_ready_runtime('kq', 10);
select awa.complete_jobs(array[x.id], array[x.run_lease], array[x.claim_slot], array[x.receipt_id]) from c x;
select is((select count(*) from awa.retire_idle_key_lanes(10, '0 seconds')), 1::bigint, 'the drained lane is retired');
select is_empty($$select 1 from awa.active_key_lanes where queue = 'kq'$$, 'nothing is listed');

create temp table j as select * from awa.insert_job('k', '{"tenant":"a","n":2}', '{"queue":"kq"}');
select results_eq($$select lane_id from awa.active_key_lanes where queue = 'kq'$$,
  $$select lane_id from lane$$, 'the key''s next job lists its lane again');
select is((select count(*) from awa.key_lanes where queue = 'kq'), 1::bigint, 'no second lane is made for the key');
select results_eq($$select id from awa.claim_ready_runtime('kq', 10)$$, $$select id from j$$,
  'a claim takes the job');

select * from finish();
rollback;
