-- A lane whose only positions above the cursor were reserved by a rolled-back
-- insert is not pending (no row above the cursor, producer lock free), and a
-- claim advances it past them by one appended mark at the lane's tip (the
-- highest position its pool sequence allows); nothing is updated.
begin;
select plan(6);

select * from awa.configure_queue('gm', '{"enqueue_shards": 1}');
select * from awa.insert_job('a', '{}', '{"queue": "gm"}');
select is((select count(*)::int from awa.claim_ready_runtime('gm', 10)), 1, 'the committed job is claimed (fixture)');
savepoint producer;
select * from awa.insert_jobs(array['b', 'c'], null, array_fill('{"queue": "gm"}'::jsonb, array[2]));
rollback to savepoint producer;
select is((select pending from awa.queue_pending('gm')), false, 'the rolled-back positions are not pending');

create temp table upd_before as
select coalesce(sum(n_tup_upd + n_tup_del), 0) as n from pg_stat_xact_user_tables where schemaname = 'awa';
select is_empty($$select * from awa.claim_ready_runtime('gm', 10)$$, 'a claim finds no job');
select results_eq(
  $$select m.claim_seq from awa.cursor_marks m join awa.queue_lanes l using (lane_id)
    where l.queue = 'gm' order by 1$$,
  $$values ((select lane_seq from awa.ready_entries where queue = 'gm')),
           ((select awa._lane_tip(lane_seq) from awa.queue_lanes where queue = 'gm'))$$,
  'and appends a mark at the lane''s tip, past the rolled-back positions (after the claim''s mark)');
select is((select coalesce(sum(n_tup_upd + n_tup_del), 0) from pg_stat_xact_user_tables where schemaname = 'awa')
          - (select n from upd_before), 0::numeric, 'updating or deleting nothing');
select is((select pending from awa.queue_pending('gm')), false, 'the lane is no longer pending');

select * from finish();
rollback;
