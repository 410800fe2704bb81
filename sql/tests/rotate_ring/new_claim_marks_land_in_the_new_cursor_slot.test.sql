-- After a rotation of the cursor ring, a claim appends its marks to the new
-- current cursor slot; the queue ring's rotation does not move them.
begin;
select plan(3);

select * from awa.configure_queue('nm', '{"enqueue_shards": 1}');
select * from awa.insert_jobs(array['a', 'b', 'c'], null, array_fill('{"queue": "nm"}'::jsonb, array[3]));
select * from awa.claim_ready_runtime('nm', 1, null, now());
select * from awa.rotate_ring('queue', now());
select * from awa.claim_ready_runtime('nm', 1, null, now());
create temp table pos as select kind, lane_seq from awa.ready_entries where queue = 'nm';
select results_eq($$select cursor_slot, claim_seq from awa.cursor_marks order by claim_seq$$,
                  $$select 0, lane_seq from pos where kind in ('a', 'b') order by 2$$,
                  'a queue-ring rotation leaves the marks in cursor slot 0');
select * from awa.rotate_ring('cursor', now());
select * from awa.claim_ready_runtime('nm', 1, null, now());
select results_eq($$select cursor_slot, claim_seq from awa.cursor_marks order by claim_seq$$,
                  $$select case when kind = 'c' then 1 else 0 end, lane_seq from pos order by 2$$,
                  'after the cursor ring rotated, the next mark lands in cursor slot 1');
select is((select claim_seq from awa.claim_cursors c join awa.queue_lanes l using (lane_id)
           where l.queue = 'nm' and l.priority = 2), (select lane_seq from pos where kind = 'c'),
          'the cursor is the newest mark, across slots');

select * from finish();
rollback;
