-- A claim only appends: no row of any table is updated or deleted (claim
-- heads included, so a held snapshot has no old version of them to keep).
-- It inserts one claim_batches row and, in the current cursor slot, one
-- claim mark per lane it advanced, at the lane's last claimed position.
begin;
select plan(5);

select * from awa.insert_jobs(array['a', 'b', 'c', 'd'], null,
  array['{"queue": "hot", "priority": 1}', '{"queue": "hot", "priority": 1}',
        '{"queue": "hot", "priority": 2}', '{"queue": "hot", "priority": 2}']::jsonb[]);

create temp table stats_before as
select relname, n_tup_ins, n_tup_upd, n_tup_del from pg_stat_xact_user_tables where schemaname = 'awa';

select is((select count(*) from awa.claim_ready_runtime('hot', 3, null, '2030-01-01 12:00:00+00')), 3::bigint,
  'the claim takes 3 jobs from 2 lanes');

create temp table stats_delta as
select a.relname::text collate "default" as relname, a.n_tup_ins - coalesce(b.n_tup_ins, 0) as ins, a.n_tup_upd - coalesce(b.n_tup_upd, 0) as upd,
       a.n_tup_del - coalesce(b.n_tup_del, 0) as del
from pg_stat_xact_user_tables a left join stats_before b using (relname)
where a.schemaname = 'awa';

select is_empty($$select relname, upd, del from stats_delta where upd + del > 0$$,
  'no row of any awa table is updated or deleted');
select results_eq(
  $$select relname, ins from stats_delta where ins > 0 order by relname$$,
  $$values (format('claim_batches_%s', awa._current_slot('claim')), 1::bigint),
           (format('cursor_marks_%s', awa._current_slot('cursor')), 2::bigint)$$,
  'the inserts are one claim_batches row and two marks in the current cursor slot');
select results_eq(
  $$select l.priority::int, m.claim_seq from awa.cursor_marks m join awa.queue_lanes l using (lane_id)
    where l.queue = 'hot' order by 1$$,
  $$select priority::int, lane_seq from awa.ready_entries where kind in ('b', 'c') order by 1$$,
  'priority 1''s mark is at its second job''s position, priority 2''s at its first''s');
select results_eq(
  $$select l.priority::int, c.claim_seq from awa.claim_cursors c join awa.queue_lanes l using (lane_id)
    where l.queue = 'hot' and c.claim_seq > 0 order by 1$$,
  $$select priority::int, lane_seq from awa.ready_entries where kind in ('b', 'c') order by 1$$,
  'the lanes'' cursors (awa.claim_cursors) are their marks');

select * from finish();
rollback;
