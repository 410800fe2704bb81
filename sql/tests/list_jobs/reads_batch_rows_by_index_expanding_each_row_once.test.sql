-- The batch plane's branch of a listing walks awa.ready_batches by its id
-- index (newest first; for an id, the one row whose block can hold it),
-- sorts nothing but one row's items and the page it found, scans nothing
-- sequentially, and expands each row it reaches once: the TOAST pages a page
-- of jobs reads are those of reading each of its rows' args once, whether
-- the page holds 50 jobs or 1,000, one row or two (docs/batchready.md,
-- "Risks": an item array subscripted per item would be read per item).
begin;
select plan(10);

create temp table rows as
select g as row, awa_test.batch_row(array_fill('lp.k'::text, array[1024]),
                                    array(select jsonb_build_object('n', i, 'a', md5(i::text), 'b', md5((-i)::text))
                                          from generate_series(1, 1024) as i),
                                    array_fill('{"queue": "lp"}'::jsonb, array[1024])) as ids
from generate_series(1, 2) as g;

-- The TOAST blocks of awa.ready_batches this transaction has read so far.
create function pg_temp.toast_hits() returns bigint language sql as $$
  select sum(pg_stat_get_xact_blocks_hit(c.reltoastrelid))::bigint
  from pg_inherits i join pg_class c on c.oid = i.inhrelid where i.inhparent = 'awa.ready_batches'::regclass
$$;
-- The TOAST blocks that running q read.
create function pg_temp.hits_of(q text) returns bigint language plpgsql as $$
declare
  v_before bigint := pg_temp.toast_hits();
begin
  execute q;
  return pg_temp.toast_hits() - v_before;
end
$$;
create temp table once as
select r.row, pg_temp.hits_of(format('select length(b.item_args::text) from awa.ready_batches b where b.first_id = %s',
                                     r.ids[1])) as hits
from rows r;

select ok((select bool_and(hits > 0) from once), 'each row''s args are stored out of line (fixture)');
select is(pg_temp.hits_of($$select * from awa.list_jobs(p_queue => 'lp')$$),
          (select hits from once where row = 2), 'a first page of 50: its row''s args read once');
select is(pg_temp.hits_of($$select * from awa.list_jobs(p_queue => 'lp', p_limit => 1000)$$),
          (select hits from once where row = 2), 'a first page of 1,000: its row''s args read once');
select is(pg_temp.hits_of(format('select * from awa.list_jobs(p_queue => %L, p_after => %s)', 'lp',
                                 (select ids[10] from rows where row = 2))),
          (select sum(hits)::bigint from once), 'a page across two rows: each row''s args read once');
select is(pg_temp.hits_of(format('select * from awa.get_job(%s)', (select ids[500] from rows where row = 1))),
          (select hits from once where row = 1), 'get_job: its row''s args read once');

create temp table calls (filter text, sql text);
insert into calls values
  ('no filter', awa._list_jobs_sql(null, null, null, null, null, null, null, null, 50)),
  ('states', awa._list_jobs_sql(null, '{available,running}', null, null, null, null, null, null, 50)),
  ('queue, kind and tag', awa._list_jobs_sql(null, null, 'lp', 'lp.k', 'x', null, null, null, 50)),
  ('cursor', awa._list_jobs_sql(null, null, null, null, null, null, null,
                                (select ids[10] from rows where row = 2), 50));
create temp table plans as select filter, awa_test.listing_plan(sql) as plan from calls;
select is_empty($$select p.filter, u from plans p cross join lateral awa_test.unwanted_plan_nodes(p.plan) as u$$,
                'listings: no sort but of a row''s items and of the page, no sequential scan');
select ok(bool_and(jsonb_path_exists(plan, 'strict $.** ? (@."Node Type" == "Index Scan" && @."Scan Direction" == "Backward"
                                             && @."Index Name" like_regex "^ready_batches_[0-9]+_first_id")')),
          'listings: the batch rows are walked backwards on their id index')
from plans;
select is((select jsonb_agg(jsonb_build_array(c -> 'Actual Rows', c -> 'Actual Loops'))
           from plans p cross join lateral jsonb_path_query(p.plan, 'strict $.** ? (@."Alias" == "batch_page").Plans.**
                                                                      ? (@."Node Type" == "Sort").Plans[*]
                                                                      ? (@."Parent Relationship" == "Outer")') as c
           where p.filter = 'no filter'),
          '[[1024, 1]]'::jsonb, 'the first page expanded one row once (its 1,024 items, sorted)');

create temp table by_id as
select awa_test.listing_plan(awa._list_jobs_sql((select ids[500] from rows where row = 1), null, null, null, null, null,
                                                null, null, 1)) as plan;
select is_empty($$select awa_test.unwanted_plan_nodes(plan) from by_id$$, 'get_job: no sort, no sequential scan');
select ok(jsonb_path_exists(plan, 'strict $.** ? (@."Index Name" like_regex "^ready_batches_[0-9]+_first_id")'),
          'get_job: the row is found by the id index')
from by_id;

select * from finish();
rollback;
