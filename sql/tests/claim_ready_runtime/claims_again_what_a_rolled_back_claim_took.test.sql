-- A claim that rolls back leaves no trace: its mark is gone, and so is what it
-- put in the session's cursor cache (the setting follows the transaction; a
-- cached cursor at the lane's last position would make the next claim skip
-- the lane as empty), so the next claim in the same session takes the same
-- jobs again.
begin;
select plan(5);

select * from awa.configure_queue('rb', '{"enqueue_shards": 1}');
create temp table j as
select * from awa.insert_jobs(array['a', 'b', 'c'], null, array_fill('{"queue": "rb"}'::jsonb, array[3]));

savepoint claimer;
select is((select count(*)::int from awa.claim_ready_runtime('rb', 10, null, now())), 3, 'a claim takes all three jobs');
-- (The cache may hold other lanes of the queue too: a lane whose tip passed
-- its cursor because an earlier test drew from its pool sequence.)
select is((select (string_to_array(split_part(c.s, '|', 3), ','))[array_position(string_to_array(split_part(c.s, '|', 2), ',')::int[], r.lane_id)]::bigint
           from (select current_setting(awa._cursor_cache_key('rb'), true) as s) as c,
                (select lane_id, max(lane_seq) as m from awa.ready_entries where queue = 'rb' group by lane_id) as r
           where split_part(c.s, '|', 1) = 'rb'),
          (select max(lane_seq) from awa.ready_entries where queue = 'rb'),
          'and caches the lane''s cursor at the third job''s position for the session');
rollback to savepoint claimer;

select is((select count(*)::int from awa.cursor_marks m join awa.queue_lanes l using (lane_id) where l.queue = 'rb'), 0,
          'after the rollback its mark is gone');
select results_eq($$select id, run_lease from awa.claim_ready_runtime('rb', 10, null, now())$$,
                  $$select id, 1::bigint from j order by id$$,
                  'the next claim in the same session takes the same three jobs');
select is_empty($$select * from awa.claim_ready_runtime('rb', 10, null, now())$$, 'then nothing');

select * from finish();
rollback;
