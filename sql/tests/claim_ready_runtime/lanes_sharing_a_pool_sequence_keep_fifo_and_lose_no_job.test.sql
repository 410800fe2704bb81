-- Two lanes whose ids are equal modulo the pool size draw positions from one
-- pool sequence. Each still claims its own jobs in insertion order; an idle
-- lane whose sequence the other lane moved is not pending, a claim of it
-- writes nothing and remembers in the session that the lane is empty up to its
-- tip, and a job inserted after that is still claimed.
begin;
select plan(9);

select * from awa.configure_queue('share_a', '{"enqueue_shards": 1}');
select * from awa.configure_queue('share_b', '{"enqueue_shards": 1}');
select * from awa.insert_job('a1', '{}', '{"queue": "share_a"}');
-- share_b's first insert creates its lanes of priorities 1 to 4 in order:
-- its priority-2 lane gets share_a's priority-2 lane id + 256, the same pool
-- sequence.
select setval('awa.lane_id_seq', (select lane_id from awa.queue_lanes where queue = 'share_a' and priority = 2) + 254);
select * from awa.insert_job('b1', '{}', '{"queue": "share_b"}');
select * from awa.insert_job('a2', '{}', '{"queue": "share_a"}');
select * from awa.insert_jobs(array['b2', 'b3'], null, array_fill('{"queue": "share_b"}'::jsonb, array[2]));
select * from awa.insert_job('a3', '{}', '{"queue": "share_a"}');

select is((select count(distinct lane_seq) from awa.queue_lanes where queue in ('share_a', 'share_b') and priority = 2), 1::bigint,
          'the two lanes share one pool sequence (fixture)');
select results_eq($$select kind from awa.claim_ready_runtime('share_a', 10)$$, $$values ('a1'), ('a2'), ('a3')$$,
                  'the first lane''s jobs are claimed in insertion order');
select results_eq($$select kind from awa.claim_ready_runtime('share_b', 10)$$, $$values ('b1'), ('b2'), ('b3')$$,
                  'and the second''s');

select * from awa.insert_jobs(array['b4', 'b5'], null, array_fill('{"queue": "share_b"}'::jsonb, array[2]));
select ok((select awa._lane_tip(lane_seq) from awa.queue_lanes where queue = 'share_a' and priority = 2)
          > (select claim_seq from awa.claim_cursors c join awa.queue_lanes l using (lane_id) where l.queue = 'share_a' and l.priority = 2),
          'the other lane moved the idle lane''s tip past its cursor');
select is((select pending from awa.queue_pending('share_a')), false, 'the idle lane is not pending');
select is_empty($$select * from awa.claim_ready_runtime('share_a', 10)$$, 'a claim of it finds nothing');
select is((select awa_test.cached_cursor('share_a', lane_id) from awa.queue_lanes where queue = 'share_a' and priority = 2),
          (select awa._lane_tip(lane_seq) from awa.queue_lanes where queue = 'share_a' and priority = 2),
          'and the session remembers the lane as empty up to its tip, without a mark');

select * from awa.insert_job('a4', '{}', '{"queue": "share_a"}');
select results_eq($$select kind from awa.claim_ready_runtime('share_a', 10)$$, $$values ('a4')$$,
                  'a job inserted after the advance is claimed');
select results_eq($$select kind from awa.claim_ready_runtime('share_b', 10)$$, $$values ('b4'), ('b5')$$,
                  'and the other lane loses nothing');

select * from finish();
rollback;
