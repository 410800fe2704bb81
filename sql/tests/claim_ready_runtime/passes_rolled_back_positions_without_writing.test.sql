-- A lane whose only positions above the cursor were reserved by a rolled-back
-- insert is not pending (no row above the cursor, producer lock free). A claim
-- of it finds nothing and writes nothing: no mark, no update. The session
-- cache remembers the lane as empty up to its tip, so the next claim skips it
-- on one sequence read.
begin;
select plan(6);

select * from awa.configure_queue('gm', '{"enqueue_shards": 1}');
select * from awa.insert_job('a', '{}', '{"queue": "gm"}');
select is((select count(*)::int from awa.claim_ready_runtime('gm', 10)), 1, 'the committed job is claimed (fixture)');
savepoint producer;
select * from awa.insert_jobs(array['b', 'c'], null, array_fill('{"queue": "gm"}'::jsonb, array[2]));
rollback to savepoint producer;
select is((select pending from awa.queue_pending('gm')), false, 'the rolled-back positions are not pending');

create temp table before as select awa_test.row_counts() as c,
  (select coalesce(sum(n_tup_upd + n_tup_del), 0) from pg_stat_xact_user_tables where schemaname = 'awa') as n;
select is_empty($$select * from awa.claim_ready_runtime('gm', 10)$$, 'a claim finds no job');
select is(awa_test.row_counts(), (select c from before), 'and appends nothing (no mark)');
select is((select coalesce(sum(n_tup_upd + n_tup_del), 0) from pg_stat_xact_user_tables where schemaname = 'awa')
          - (select n from before), 0::numeric, 'and updates or deletes nothing');
select is((select awa_test.cached_cursor('gm', lane_id) from awa.queue_lanes where queue = 'gm' and priority = 2),
          (select awa._lane_tip(lane_seq) from awa.queue_lanes where queue = 'gm' and priority = 2),
          'the session remembers the lane as empty up to its tip');

select * from finish();
rollback;
