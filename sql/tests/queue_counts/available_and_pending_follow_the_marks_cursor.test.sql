-- awa.queue_counts (available) and awa.queue_pending read the same cursor as
-- the claim (awa.claim_cursors: greatest(floor, newest mark)) and agree with
-- awa.jobs at every step: after inserts, after claims that append marks,
-- after cursor-ring prune truncated the slot holding the marks (floor raised),
-- and after new inserts above it.
begin;
select plan(13);

select * from awa.configure_queue('ag', '{"enqueue_shards": 1}');
create function pg_temp.check(p_available bigint, p_pending boolean, p_when text) returns setof text
language plpgsql as $f$
begin
  return next is((select available from awa.queue_counts('ag')), p_available, 'queue_counts: ' || p_when);
  return next is((select available from awa.queue_counts('ag')),
                 (select count(*) from awa.jobs where queue = 'ag' and state = 'available'),
                 'queue_counts agrees with awa.jobs: ' || p_when);
  return next is((select pending from awa.queue_pending('ag')), p_pending, 'queue_pending: ' || p_when);
end
$f$;

select * from awa.insert_jobs(array['a', 'b', 'c'], null, array_fill('{"queue": "ag"}'::jsonb, array[3]));
select pg_temp.check(3, true, 'three inserted');

create temp table c as select * from awa.claim_ready_runtime('ag', 2, null, now());
select pg_temp.check(1, true, 'two claimed (mark at 2)');

insert into c select * from awa.claim_ready_runtime('ag', 2, null, now());
select * from awa.complete_jobs(array(select id from c order by id), array(select run_lease from c order by id),
                                array(select claim_slot from c order by id), array(select receipt_id from c order by id), now());
select * from awa.rotate_ring('cursor', now());
select is((select outcome from awa.prune_ring('cursor')), 'pruned', 'the cursor slot holding the marks is pruned (fixture)');
select pg_temp.check(0, false, 'all claimed, slot of the marks pruned (floor 3)');

select * from awa.insert_job('d', '{}', '{"queue": "ag"}');
select pg_temp.check(1, true, 'one inserted above the floor');

select * from finish();
rollback;
