-- Calling install again with the same (default or explicit) slot counts
-- writes no row and creates no partition; after rotations it keeps the cursor.
begin;
select plan(5);

create temp table children_before as
select i.inhrelid::regclass::text as child from pg_inherits i join pg_class p on p.oid = i.inhparent
where p.relnamespace = 'awa'::regnamespace;

select awa_test.writes_nothing($$select * from awa.install_queue_storage_substrate()$$,
                               'a second call with the default slot counts writes nothing');
select awa_test.writes_nothing($$select * from awa.install_queue_storage_substrate(16, 8, 8, 2)$$,
                               'a call with the same explicit slot counts writes nothing');

select set_eq(
  $$select i.inhrelid::regclass::text from pg_inherits i join pg_class p on p.oid = i.inhparent
    where p.relnamespace = 'awa'::regnamespace$$,
  $$select child from children_before$$,
  'the same partitions exist');

select results_eq(
  $$select ring, slot_count from awa.install_queue_storage_substrate() order by ring$$,
  $$values ('claim'::text, 8), ('cursor'::text, 2), ('lease'::text, 8), ('queue'::text, 16)$$,
  'it returns the installed ring configuration');

select * from awa.insert_job('install.k', '{}', '{"queue": "iq"}');
select * from awa.rotate_ring('queue', now());
select * from awa.install_queue_storage_substrate();
select results_eq(
  $$select awa._current_slot('queue'), (select count(*)::int from awa.ring_rotations where ring = 'queue')$$,
  $$values (1, 2)$$,
  'after a rotation a further call keeps the cursor and appends no ledger row');

select * from finish();
rollback;
