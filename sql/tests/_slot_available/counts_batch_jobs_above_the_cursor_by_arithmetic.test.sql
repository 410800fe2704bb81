-- awa._slot_available counts both ready planes: ready rows above their lane's
-- cursor one each, and of each batch row its positions above the cursor less
-- the tombstoned ones, up to the limit, without reading any item array.
begin;
select plan(7);

create temp table a as select awa_test.batch_row(array_fill('v'::text, array[300]),
  array(select jsonb_build_object('n', g, 'pad', md5(g::text)) from generate_series(1, 300) g),
  array_fill('{"queue": "va"}'::jsonb, array[300])) as ids;
create temp table b as select awa_test.batch_row(array_fill('v'::text, array[5]), null,
  array_fill('{"queue": "va"}'::jsonb, array[5])) as ids;
create temp table e as select * from awa.insert_jobs(array['v', 'v', 'v'], null, array_fill('{"queue": "va"}'::jsonb, array[3]));
create temp table r as select lane_id, first_seq, first_id from awa.ready_batches where first_id = (select ids[1] from a);
select is(awa._slot_available(0, 1000), 308, 'every job of both rows and the three ready rows');

-- The cursor past 100 jobs of row a; one job of row a and one of row b cancelled.
select awa_test.mark_cursor((select lane_id from r), (select first_seq + 99 from r));
insert into awa.ready_tombstones (ready_slot, lane_id, lane_seq, job_id, created_at)
select 0, x.lane_id, x.first_seq + k - 1, x.first_id + k - 1, now()
from awa.ready_batches x, (values ((select ids[1] from a), 150), ((select ids[1] from b), 5)) as t (first_id, k)
where x.first_id = t.first_id;
create temp table fetches as
select coalesce(sum(s.idx_scan), 0) as n from pg_stat_xact_all_tables s
where s.relid = (select reltoastrelid from pg_class where oid = 'awa.ready_batches_0'::regclass);
select is(awa._slot_available(0, 1000), 206, '199 of row a, 4 of row b and the 3 ready rows');
select is((select s.idx_scan from pg_stat_xact_all_tables s
           where s.relid = (select reltoastrelid from pg_class where oid = 'awa.ready_batches_0'::regclass)),
          (select n from fetches)::bigint, 'no item array was read (no fetch of the rows'' out-of-line values)');
select cmp_ok((select count(*) from awa.ready_batches x cross join lateral awa._batch_items(x, -1, 1)
               where x.first_id = (select ids[1] from a))
              + (select s.idx_scan from pg_stat_xact_all_tables s
                 where s.relid = (select reltoastrelid from pg_class where oid = 'awa.ready_batches_0'::regclass)),
              '>', (select n from fetches)::bigint + 1, 'while reading one job of row a does fetch (the check can fail)');
select is(awa._slot_available(0, 50), 50, 'counted up to the limit: 50');
select is(awa._slot_available(0, 201), 201, 'counted up to the limit: 201, inside row a''s count');

select awa_test.mark_cursor((select lane_id from r), (select max(lane_seq) from awa.ready_entries where queue = 'va'));
select is(awa._slot_available(0, 1000), 0, 'the cursor past everything: none');

select * from finish();
rollback;
