-- The installed substrate has one partition per slot for every ring parent:
-- 16 for the queue ring, 8 for the claim ring, 8 for the lease ring, 2 for the
-- cursor ring, each named <parent>_<slot> and bound to that slot. (The
-- archive's partitions, of its jobs and their tags, are not ring slots:
-- install_queue_storage_substrate's
-- creates_the_archives_default_partition_and_default_retentions.)
begin;
select plan(3);

select results_eq(
  $$select i.inhparent::regclass::text, count(*)::int
    from pg_inherits i join pg_class p on p.oid = i.inhparent
    where p.relnamespace = 'awa'::regnamespace and p.relkind = 'p' and p.relname NOT IN ('archived_chunks', 'archived_tags') group by 1 order by 1$$,
  $$values ('awa.claim_batches'::text, 8), ('awa.claim_closures', 8), ('awa.cursor_marks', 2),
           ('awa.done_completions', 16), ('awa.done_entries', 16), ('awa.leases', 8), ('awa.ready_batches', 16), ('awa.ready_entries', 16),
           ('awa.ready_tombstones', 16)$$,
  'every ring parent has one child per slot (16/8/8/2)');

select is_empty(
  $$select c.relname from pg_inherits i join pg_class p on p.oid = i.inhparent join pg_class c on c.oid = i.inhrelid
    where p.relnamespace = 'awa'::regnamespace and p.relkind = 'p' and p.relname NOT IN ('archived_chunks', 'archived_tags')
      and pg_get_expr(c.relpartbound, c.oid) <> format('FOR VALUES IN (%s)', substring(c.relname from '_(\d+)$'))$$,
  'each child <parent>_<n> holds exactly slot n');

select results_eq(
  $$select ring, slot_count from awa.ring_config order by ring$$,
  $$values ('claim'::text, 8), ('cursor'::text, 2), ('lease'::text, 8), ('queue'::text, 16)$$,
  'awa.ring_config records the slot counts');

select * from finish();
rollback;
