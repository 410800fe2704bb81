-- awa._ready_by_id finds a job's ready row by id in either plane: a per-row
-- one by the job-id index, a batch item by its row's first_id (the row whose
-- id block holds it), the item alone; an id in a row's block past its last
-- item, or below every row, gives nothing.
begin;
select plan(6);

create temp table p1 as select awa.insert_job('bi.p', '{"p": 1}', '{"queue": "bi"}') as j;
create temp table ids as
select awa_test.batch_row(array['bi.a', 'bi.b', 'bi.a'], array['{"n": 1}', '{"n": 2}', '{"n": 3}']::jsonb[],
                          array['{"queue": "bi"}', '{"queue": "bi", "tags": ["t"], "metadata": {"m": 2}}',
                                '{"queue": "bi"}']::jsonb[]) as ids;
create temp table items as
select i.* from awa.ready_batches b cross join lateral awa._batch_items(b) as i where b.queue = 'bi';

select results_eq(
  $$select r.job_id, r.kind, r.args from awa._ready_by_id((select (j).id from p1)) as r$$,
  $$select (select (j).id from p1), 'bi.p'::text, '{"p": 1}'::jsonb$$,
  'a per-row job is found by id');
select results_eq(
  $$select r.* from awa._ready_by_id((select ids[2] from ids)) as r$$,
  $$select i.* from items i where i.job_id = (select ids[2] from ids)$$,
  'a batch job is found by id: its item, as awa._batch_items gives it');
select results_eq(
  $$select r.job_id from awa._ready_by_id((select ids[3] from ids)) as r$$,
  $$select ids[3] from ids$$,
  'the row''s last item is found');
select is_empty($$select 1 from awa._ready_by_id((select ids[3] from ids) + 1)$$,
                'an id of the row''s block past its last item gives nothing');
select is_empty($$select 1 from awa._ready_by_id((select ids[1] from ids) + 1023)$$,
                'the block''s last id gives nothing');
select is_empty($$select 1 from awa._ready_by_id(-5)$$, 'an id below every row gives nothing');

select * from finish();
rollback;
