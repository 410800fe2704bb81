-- awa.list_jobs reads the batch plane (awa.ready_batches) as ready rows: a
-- lane holding per-row ready rows and batch rows lists every job once, newest
-- first, each batch item with its own body (kind, args, tags, metadata,
-- max_attempts) and the row's defaults; keyset pages of any size, a cursor in
-- a row's middle included, walk them without a duplicate or a gap; a queue
-- filter keeps another queue's batch row out.
begin;
select plan(6);

select awa.insert_job('lb.a', '{"n": 0}', '{"queue": "lb"}');
create temp table b1 as
select awa_test.batch_row(array['lb.a', 'lb.b', 'lb.a', 'lb.a'],
                          array['{"n": 1}', '{"n": 2}', '{"n": 3}', '{"n": 4}']::jsonb[],
                          array['{"queue": "lb"}', '{"queue": "lb", "tags": ["x", "y"]}',
                                '{"queue": "lb", "metadata": {"m": 3}}', '{"queue": "lb", "max_attempts": 4}']::jsonb[])
       as ids;
-- (A single insert takes the next id of its transaction's block, drawn by
-- the first one: below the batch rows' ids, which are later blocks.)
select awa.insert_job('lb.c', '{"n": 5}', '{"queue": "lb"}');
select awa_test.batch_row(array['lb.a', 'lb.a', 'lb.a'], array['{"n": 6}', '{"n": 7}', '{"n": 8}']::jsonb[],
                          array_fill('{"queue": "lb"}'::jsonb, array[3]));
select awa_test.batch_row(array['lo.a', 'lo.a'], null, array_fill('{"queue": "lo"}'::jsonb, array[2]));

-- What each job is, from the tables themselves: the per-row ready rows and
-- the batch rows' items (awa._batch_items), all available.
create temp table want as
select r.job_id as id, r.kind, r.args, r.tags, r.metadata, r.max_attempts, r.created_at, r.run_at
from awa.ready_entries r where r.queue = 'lb'
union all
select i.job_id, i.kind, i.args, i.tags, i.metadata, i.max_attempts, i.created_at, i.run_at
from awa.ready_batches b cross join lateral awa._batch_items(b) as i where b.queue = 'lb';

select is((select count(*)::int from want), 9, 'queue lb holds 2 ready rows and 7 batch items (fixture)');
select results_eq(
  $$select id, state, kind, args, tags, metadata, max_attempts, attempt, run_lease, created_at, run_at, claimed_at,
           finalized_at, dlq from awa.list_jobs(p_queue => 'lb')$$,
  $$select id, 'available'::awa.job_state, kind, args, tags, metadata, max_attempts, 0, 0::bigint, created_at, run_at,
           null::timestamptz, null::timestamptz, false from want order by id desc$$,
  'every job once, newest first, each item with its own body and the row''s defaults');
select results_eq(
  $$select kind, tags, metadata, max_attempts from awa.list_jobs(p_queue => 'lb')
    where id = any ((select ids from b1)[2:4]) order by id$$,
  $$values ('lb.b'::text, '{x,y}'::text[], '{}'::jsonb, 25), ('lb.a', '{}', '{"m": 3}', 25), ('lb.a', '{}', '{}', 4)$$,
  'a mixed row''s items keep their kind, tags, metadata and max_attempts');

-- Every page size from 1 to 4, by the keyset.
create temp table pages (size int, page int, id bigint);
do $$
declare
  v_after bigint;
  v_page  int;
  v_n     int;
begin
  for v_size in 1 .. 4 loop
    v_after := null;
    v_page := 0;
    loop
      v_page := v_page + 1;
      insert into pages select v_size, v_page, l.id from awa.list_jobs(p_queue => 'lb', p_after => v_after,
                                                                        p_limit => v_size) as l;
      get diagnostics v_n = row_count;
      exit when v_n < v_size;
      v_after := (select min(p.id) from pages p where p.size = v_size and p.page = v_page);
    end loop;
  end loop;
end
$$;
select is((select array_agg(distinct s) from (select size, array_agg(id order by page, id desc) as s from pages
                                               group by size) as x),
          array[(select array_agg(id order by id desc) from want)],
          'pages of 1, 2, 3 and 4 jobs each list every job once, in order');
select results_eq(
  $$select id from awa.list_jobs(p_queue => 'lb', p_after => (select ids[3] from b1), p_limit => 3)$$,
  $$select unnest(array[(select ids[2] from b1), (select ids[1] from b1),
                        (select max(id) from want where id < (select ids[1] from b1))])$$,
  'a cursor in a row''s middle: the row''s earlier items, then the ready row before them');
select results_eq($$select kind from awa.list_jobs(p_queue => 'lo')$$, $$values ('lo.a'::text), ('lo.a')$$,
                  'another queue''s batch row: its own jobs only');

select * from finish();
rollback;
