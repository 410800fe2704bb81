-- A lane whose only positions above the cursor were reserved by a rolled-back
-- insert is advanced past them (its producer lock is free) by one appended
-- mark at the lane's last position; nothing is updated, and the lane is no
-- longer pending.
begin;
select plan(6);

select * from awa.configure_queue('gm', '{"enqueue_shards": 1}');
select * from awa.insert_job('a', '{}', '{"queue": "gm"}');
select is((select count(*)::int from awa.claim_ready_runtime('gm', 10)), 1, 'the committed job is claimed (fixture)');
savepoint producer;
select * from awa.insert_jobs(array['b', 'c'], null, array_fill('{"queue": "gm"}'::jsonb, array[2]));
rollback to savepoint producer;
select is((select pending from awa.queue_pending('gm')), true, 'the rolled-back positions are pending');

create temp table upd_before as
select coalesce(sum(n_tup_upd + n_tup_del), 0) as n from pg_stat_xact_user_tables where schemaname = 'awa';
select is_empty($$select * from awa.claim_ready_runtime('gm', 10)$$, 'a claim finds no job');
select results_eq(
  $$select m.claim_seq from awa.cursor_marks m join awa.queue_lanes l using (lane_id)
    where l.queue = 'gm' order by 1$$,
  $$values (1::bigint), (3::bigint)$$,
  'and appends a mark past the two rolled-back positions (after the claim''s mark at 1)');
select is((select coalesce(sum(n_tup_upd + n_tup_del), 0) from pg_stat_xact_user_tables where schemaname = 'awa')
          - (select n from upd_before), 0::numeric, 'updating or deleting nothing');
select is((select pending from awa.queue_pending('gm')), false, 'the lane is no longer pending');

select * from finish();
rollback;
