-- awa._route_closed reads closed jobs' bodies by position from either plane
-- (awa._ready_at): failing 100 claimed jobs of one batch row writes each
-- one's snapshot from its own item, and fetches the row's out-of-line arrays
-- once, not once per job (docs/batchready.md, "Risks").
begin;
select plan(4);

create temp table ids as select awa_test.toasted_batch_row('rcq') as ids;
create temp table c as select * from awa_test.claim_batch_jobs((select ids[1:100] from ids), now());

do $$
declare v_before bigint := awa_test.batch_toast_fetches((select ready_slot from slot));
begin
  perform count(*) from awa.fail_jobs((select array_agg(id order by id) from c), (select array_agg(run_lease order by id) from c),
                                      (select array_agg(claim_slot order by id) from c),
                                      (select array_agg(receipt_id order by id) from c),
                                      array_fill('boom'::text, array[100]), now());
  insert into fetched values ('route', awa_test.batch_toast_fetches((select ready_slot from slot)) - v_before);
end $$;

select is((select count(*)::int from awa.done_entries d join c on c.id = d.job_id
           where d.state = 'failed' and d.args ->> 'n' = (d.job_id - (select ids[1] from ids) + 1)::text
             and d.kind = 'rcq.k' and d.attempt = 1),
          100, 'each failed job''s snapshot holds its own item''s body');
select cmp_ok((select n from fetched where what = 'one'), '>=', 5::bigint, 'the row''s args span several TOAST blocks');
select cmp_ok((select n from fetched where what = 'route'), '<', 2 * (select n from fetched where what = 'one'),
              'routing 100 jobs of the row fetches its TOAST blocks once, not once per job');
select cmp_ok((select n from fetched where what = 'route'), '>', 0::bigint, 'and the fetch counter sees the read');

select * from finish();
rollback;
