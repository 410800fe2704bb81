-- Erasing a job of a batch row rewrites its own item in place: its args
-- become {}, its metadata {"erased_at": ...} (the row's metadata array made
-- when it had none); the row's other jobs keep theirs, and the row keeps its
-- jobs. The item counts as a ready row in the result. The job is set up as
-- dead-lettered after its first run (its body in the DLQ too), since nothing
-- claims from the batch plane yet; a second erasure rewrites the same values.
begin;
select plan(6);

create temp table b as
select awa_test.batch_row(array_fill('eb.k'::text, array[3]),
                          array['{"pii": "one"}', '{"pii": "two"}', '{"pii": "three"}']::jsonb[],
                          array['{"queue": "eb"}', '{"queue": "eb", "metadata": {"m": 2}}',
                                '{"queue": "eb"}']::jsonb[]) as ids;
create temp table b2 as
select awa_test.batch_row(array_fill('eb.k'::text, array[2]), array['{"pii": "a"}', '{"pii": "b"}']::jsonb[],
                          array_fill('{"queue": "eb2"}'::jsonb, array[2])) as ids;
create temp table rr as select x as row from awa.ready_batches x where x.queue in ('eb', 'eb2');
insert into awa.dlq_entries
select i.job_id, 1, 1, i.max_attempts, i.priority, i.queue, i.kind, i.args, i.tags, i.metadata, '[{"error": "e"}]',
       i.created_at, i.run_at, now()
from rr cross join lateral awa._batch_items(rr.row) as i
where i.job_id in ((select ids[2] from b), (select ids[1] from b2));
create temp view items as
select i.job_id, i.args, i.metadata from awa.ready_batches x cross join lateral awa._batch_items(x) as i
where x.queue in ('eb', 'eb2');

select results_eq($$select e.plane, e.rows from awa.erase_job((select ids[2] from b), true,
                                                              '2026-01-02 03:04:05+00') as e order by 1$$,
                  $$values ('dlq'::text, 1::bigint), ('ready', 1)$$, 'the job''s item and its DLQ row are erased');
select results_eq($$select e.plane, e.rows from awa.erase_job((select ids[1] from b2), false,
                                                              '2026-01-02 03:04:05+00') as e order by 1$$,
                  $$values ('dlq'::text, 1::bigint), ('ready', 1)$$,
                  'a job of a row without metadata: erased likewise');
select results_eq(
  $$select args, metadata from items order by job_id$$,
  $$values ('{"pii": "one"}'::jsonb, '{}'::jsonb), ('{}', '{"erased_at": "2026-01-02T03:04:05+00:00"}'),
           ('{"pii": "three"}', '{}'), ('{}', '{"erased_at": "2026-01-02T03:04:05+00:00"}'), ('{"pii": "b"}', '{}')$$,
  'only the erased items are rewritten; their neighbours keep their args and metadata');
select results_eq($$select n, cardinality(item_args), cardinality(item_metadata) from awa.ready_batches
                    where queue in ('eb', 'eb2') order by first_id$$,
                  $$values (3, 3, 3), (2, 2, 2)$$, 'each row keeps its jobs; its metadata an array of them');
select results_eq($$select args, errors from awa.dlq_entries where queue in ('eb', 'eb2') order by job_id$$,
                  $$values ('{}'::jsonb, null::jsonb), ('{}', '[{"error": "e"}]')$$,
                  'the DLQ rows erased too, errors as asked');
select awa.erase_job((select ids[2] from b), true, '2026-01-02 03:04:05+00');
select results_eq($$select args, metadata from items where job_id = (select ids[2] from b)$$,
                  $$values ('{}'::jsonb, '{"erased_at": "2026-01-02T03:04:05+00:00"}'::jsonb)$$,
                  'a second erasure leaves the same values');

select * from finish();
rollback;
