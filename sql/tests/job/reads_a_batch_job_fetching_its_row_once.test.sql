-- awa.job(id) and awa._ready_by_id(id) find a job of a batch row by the row's
-- id block and fetch the row's out-of-line arrays once (the whole row is
-- decompressed for one job: docs/batchready.md, "Measured"), not once per
-- column read from it, nor once per item of the row. Measured as the blocks
-- of the slot's TOAST table this transaction fetched.
begin;
select plan(5);

create temp table ids as select awa_test.toasted_batch_row('jfq') as ids;
create temp table got (what text, args jsonb);

do $$
declare v_before bigint := awa_test.batch_toast_fetches((select ready_slot from slot));
begin
  insert into got select 'job', j.args from awa.job((select ids[700] from ids)) as j;
  insert into fetched values ('job', awa_test.batch_toast_fetches((select ready_slot from slot)) - v_before);
  v_before := awa_test.batch_toast_fetches((select ready_slot from slot));
  insert into got select 'by_id', r.args from awa._ready_by_id((select ids[700] from ids)) as r;
  insert into fetched values ('by_id', awa_test.batch_toast_fetches((select ready_slot from slot)) - v_before);
end $$;

select cmp_ok((select n from fetched where what = 'one'), '>=', 5::bigint, 'the row''s args span several TOAST blocks');
select results_eq($$select what, args ->> 'n' from got order by what$$,
                  $$values ('by_id'::text, '700'::text), ('job', '700')$$,
                  'both find the job''s own args');
select cmp_ok((select n from fetched where what = 'job'), '<', 2 * (select n from fetched where what = 'one'),
              'awa.job fetches the row''s TOAST blocks once');
select cmp_ok((select n from fetched where what = 'by_id'), '<', 2 * (select n from fetched where what = 'one'),
              'awa._ready_by_id fetches them once');
select cmp_ok((select min(n) from fetched where what in ('job', 'by_id')), '>', 0::bigint,
              'and the fetch counter sees both reads');

select * from finish();
rollback;
