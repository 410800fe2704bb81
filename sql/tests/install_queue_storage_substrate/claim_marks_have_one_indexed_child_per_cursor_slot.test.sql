-- The claim marks live in their own ring, the cursor ring: awa.cursor_marks
-- has one child per cursor slot (cursor_marks_<n> holds slot n; 2 slots), each
-- with the (lane_id, claim_seq) index the cursor reads walk backwards; prune
-- and rotate see it through awa._ring_tables('cursor'), the queue ring no
-- longer holds marks, and a dropped child comes back with the next install.
begin;
select plan(6);

select is((select count(*)::int from pg_inherits where inhparent = 'awa.cursor_marks'::regclass), 2,
          'awa.cursor_marks has 2 children, one per cursor slot');
select is_empty(
  $$select c.relname from pg_inherits i join pg_class c on c.oid = i.inhrelid
    where i.inhparent = 'awa.cursor_marks'::regclass
      and pg_get_expr(c.relpartbound, c.oid) <> format('FOR VALUES IN (%s)', substring(c.relname from '_(\d+)$'))$$,
  'each child cursor_marks_<n> holds exactly slot n');
select is((select count(*)::int from pg_index x join pg_inherits i on i.inhrelid = x.indrelid
           where i.inhparent = 'awa.cursor_marks'::regclass
             and pg_get_indexdef(x.indexrelid) like '%(lane_id, claim_seq, cursor_slot)'),
          2, 'every child has the (lane_id, claim_seq) index');
select is(awa._ring_tables('cursor'), array['cursor_marks'], 'the marks are the cursor ring''s only table');
select ok(not exists (select 1 from unnest(awa._ring_tables('queue')) t where t like '%mark%'),
          'the queue ring holds no marks');

drop table awa.cursor_marks_1;
select * from awa.install_queue_storage_substrate();
select is((select pg_get_expr(c.relpartbound, c.oid) from pg_class c where c.oid = to_regclass('awa.cursor_marks_1')),
          'FOR VALUES IN (1)', 'a dropped marks child is created again by install');

select * from finish();
rollback;
