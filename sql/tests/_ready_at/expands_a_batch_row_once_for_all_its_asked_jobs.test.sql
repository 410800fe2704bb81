-- awa._ready_at groups the asked positions by batch row and expands each row
-- once: asking for 100 jobs of a row of 1,024 fetches the row's out-of-line
-- arrays once, not once per job (docs/batchready.md, "Risks": an
-- item_args[k] per item fetched 600 blocks here, 100 times one read's 6; the
-- row handed to awa._batch_items straight from the table, 12). Measured as
-- the blocks of the slot's TOAST table this transaction fetched.
begin;
select plan(4);

create temp table ids as select awa_test.toasted_batch_row('roq') as ids;
create temp table b as select r.ready_slot, r.lane_id, r.first_seq from awa.ready_batches r where r.queue = 'roq';

do $$
declare v_before bigint := awa_test.batch_toast_fetches((select ready_slot from b));
begin
  perform count(*) from awa._ready_at(array_fill((select ready_slot from b), array[100]),
                                      array_fill((select lane_id from b), array[100]),
                                      array(select (select first_seq from b) + 10 * g from generate_series(0, 99) as g));
  insert into fetched values ('hundred', awa_test.batch_toast_fetches((select ready_slot from b)) - v_before);
end $$;

select cmp_ok((select n from fetched where what = 'one'), '>=', 5::bigint, 'the row''s args span several TOAST blocks');
select is((select count(*)::int
           from awa._ready_at(array_fill((select ready_slot from b), array[100]),
                              array_fill((select lane_id from b), array[100]),
                              array(select (select first_seq from b) + 10 * g from generate_series(0, 99) as g)) as a
           where a.job_id = (select ids[1] from ids) + (a.lane_seq - (select first_seq from b))
             and a.args ->> 'n' = ((a.lane_seq - (select first_seq from b)) + 1)::text),
          100, 'the 100 asked jobs come back with their own args');
select cmp_ok((select n from fetched where what = 'hundred'), '<', 2 * (select n from fetched where what = 'one'),
              '100 jobs of one row fetch its TOAST blocks once, not once per job');
select cmp_ok((select n from fetched where what = 'hundred'), '>', 0::bigint, 'and the fetch counter sees the read at all');

select * from finish();
rollback;
