-- The item arrays of the batch-shaped ready rows (awa.ready_batches) use lz4
-- (this server has it), as the claim and completion batches' arrays do: the
-- parent, so that new children take it, and every child; a child created
-- again after a drop takes it from its parent, and a child whose setting was
-- reset gets it back from the next install call. The scalar columns keep the
-- default.
begin;
select plan(5);

select is(
  (select array_agg(a.attname::text order by a.attname) from pg_attribute a
   where a.attrelid = 'awa.ready_batches'::regclass and a.attcompression = 'l'),
  array['item_args', 'item_kinds', 'item_max_attempts', 'item_metadata', 'item_run_ats', 'item_tags'],
  'the six item arrays of the parent use lz4, and nothing else does');
select is(
  (select count(*)::int from pg_attribute a join pg_inherits i on i.inhrelid = a.attrelid
   where i.inhparent = 'awa.ready_batches'::regclass and a.attname like 'item\_%'
     and a.attcompression is distinct from 'l'),
  0, 'no child keeps another method');
select is(
  (select count(*)::int from pg_attribute a join pg_inherits i on i.inhrelid = a.attrelid
   where i.inhparent = 'awa.ready_batches'::regclass and a.attname like 'item\_%'),
  16 * 6, 'every one of the 16 children has the six item arrays');

drop table awa.ready_batches_5;
alter table awa.ready_batches_7 alter column item_args set compression pglz;
select lives_ok($$select * from awa.install_queue_storage_substrate()$$, 'install runs again');
select is(
  (select array_agg(a.attrelid::regclass::text || '.' || a.attname::text order by 1) from pg_attribute a
   where a.attrelid in ('awa.ready_batches_5'::regclass, 'awa.ready_batches_7'::regclass)
     and a.attname like 'item\_%' and a.attcompression is distinct from 'l'),
  null, 'the recreated child and the reset column use lz4 again');

select * from finish();
rollback;
