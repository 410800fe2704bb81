-- The claim marks live in the queue ring: awa.ready_claim_marks has one child
-- per queue slot (ready_claim_marks_<n> holds slot n), each with the
-- (lane_id, claim_seq) index the cursor reads walk backwards; prune and
-- rotate see it through awa._ring_tables('queue'), and a dropped child comes
-- back with the next install.
begin;
select plan(5);

select is((select count(*)::int from pg_inherits where inhparent = 'awa.ready_claim_marks'::regclass), 16,
          'awa.ready_claim_marks has 16 children, one per queue slot');
select is_empty(
  $$select c.relname from pg_inherits i join pg_class c on c.oid = i.inhrelid
    where i.inhparent = 'awa.ready_claim_marks'::regclass
      and pg_get_expr(c.relpartbound, c.oid) <> format('FOR VALUES IN (%s)', substring(c.relname from '_(\d+)$'))$$,
  'each child ready_claim_marks_<n> holds exactly slot n');
select is((select count(*)::int from pg_index x join pg_inherits i on i.inhrelid = x.indrelid
           where i.inhparent = 'awa.ready_claim_marks'::regclass
             and pg_get_indexdef(x.indexrelid) like '%(lane_id, claim_seq, ready_slot)'),
          16, 'every child has the (lane_id, claim_seq) index');
select ok('ready_claim_marks' = any (awa._ring_tables('queue')), 'the marks are a queue-ring table');

drop table awa.ready_claim_marks_5;
select * from awa.install_queue_storage_substrate();
select is((select pg_get_expr(c.relpartbound, c.oid) from pg_class c where c.oid = to_regclass('awa.ready_claim_marks_5')),
          'FOR VALUES IN (5)', 'a dropped marks child is created again by install');

select * from finish();
rollback;
