-- On a fresh install every ring shows all its slots: slot 0 current at
-- generation 0, slot 1 the next rotation's, the others sealed but never used
-- (no generation, no seal time), none holding a row, none blocked. (The
-- archive's rows: an_empty_archive_shows_its_empty_default_partition.)
begin;
select plan(4);

select results_eq(
  $$select ring, count(*)::int from awa.storage_status() where ring <> 'archive' group by ring order by ring$$,
  $$select ring, slot_count from awa.ring_config order by ring$$,
  'one row per ring and slot');
select results_eq(
  $$select ring, slot, role, generation, status from awa.storage_status() where role <> 'sealed' and ring <> 'archive'
    order by ring, slot$$,
  $$values ('claim'::text, 0, 'current'::text, 0::bigint, 'current'::text), ('claim', 1, 'next', null, 'empty'),
           ('cursor', 0, 'current', 0, 'current'), ('cursor', 1, 'next', null, 'empty'),
           ('lease', 0, 'current', 0, 'current'), ('lease', 1, 'next', null, 'empty'),
           ('queue', 0, 'current', 0, 'current'), ('queue', 1, 'next', null, 'empty')$$,
  'slot 0 is current and slot 1 the next rotation''s in every ring');
select is((select count(*)::int from awa.storage_status()
           where rows <> 0 or rows_capped or sealed_at is not null or cause is not null or job_id is not null),
          0, 'nothing holds a row, nothing was sealed, nothing blocks');
select is((select count(*)::int from awa.storage_status() where bytes < 0), 0, 'sizes are reported (fixture sanity)');

select * from finish();
rollback;
