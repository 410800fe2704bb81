-- A busy lane has a mark in the current cursor slot, newer than those of the
-- slot prune truncates: cursor-ring prune leaves its floor alone, and the
-- lane's cursor is its newest mark. Only a lane whose newest mark goes with
-- the slot gets its floor raised: one UPDATE row per idle lane per ring wrap.
begin;
select plan(5);

select * from awa.configure_queue('busy', '{"enqueue_shards": 1}');
select * from awa.configure_queue('idle', '{"enqueue_shards": 1}');
select * from awa.insert_jobs(array['a', 'b'], null, array['{"queue": "busy"}', '{"queue": "idle"}']::jsonb[]);
create temp table c as
select * from awa.claim_ready_runtime('busy', 1, null, now()) union all select * from awa.claim_ready_runtime('idle', 1, null, now());
select * from awa.rotate_ring('cursor', now());
select * from awa.insert_job('a', '{}', '{"queue": "busy"}');
insert into c select * from awa.claim_ready_runtime('busy', 1, null, now());
select * from awa.complete_jobs(array(select id from c order by id), array(select run_lease from c order by id),
                                array(select claim_slot from c order by id), array(select receipt_id from c order by id), now());

create temp table pos as
select queue, max(lane_seq) as top, min(lane_seq) as first from awa.ready_entries where queue in ('busy', 'idle') group by queue;
create temp table upd_before as select awa_test.updates_of('queue_claim_heads') as n;
select results_eq($$select outcome, slot from awa.prune_ring('cursor')$$, $$values ('pruned'::text, 0)$$,
                  'cursor slot 0, holding both lanes'' first marks, is pruned');
select results_eq(
  $$select l.queue, h.claim_seq from awa.queue_claim_heads h join awa.queue_lanes l using (lane_id)
    where l.queue in ('busy', 'idle') and l.priority = 2 order by 1$$,
  $$select 'busy'::text, 0::bigint union all select queue, top from pos where queue = 'idle'$$,
  'the idle lane''s floor is raised to its mark; the busy lane''s floor stays 0');
select is(awa_test.updates_of('queue_claim_heads') - (select n from upd_before), 1::bigint,
          'prune updated one claim head row: the idle lane''s');
select results_eq(
  $$select l.queue, c.claim_seq from awa.claim_cursors c join awa.queue_lanes l using (lane_id)
    where l.queue in ('busy', 'idle') and l.priority = 2 order by 1$$,
  $$select queue, top from pos order by 1$$,
  'both cursors are where the claims left them');
select is_empty($$select * from awa.jobs where queue in ('busy', 'idle') and state = 'available'$$,
                'no job of either queue is available again');

select * from finish();
rollback;
