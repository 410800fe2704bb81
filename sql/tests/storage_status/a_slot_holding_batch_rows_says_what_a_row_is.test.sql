-- A queue slot holding batch rows counts each as one row (rows is table
-- rows) and says in its detail how many rows are batch rows and how many
-- jobs they hold; a carried slot's detail keeps the proof's text first and
-- names a job of a batch row. Slots without batch rows say nothing more.
begin;
select plan(5);

create temp table a as select awa_test.batch_row(array_fill('k'::text, array[300]), null,
  array_fill('{"queue": "sr"}'::jsonb, array[300])) as ids;
create temp table b as select awa_test.batch_row(array_fill('k'::text, array[4]), null,
  array_fill('{"queue": "sr"}'::jsonb, array[4])) as ids;

select results_eq(
  $$select status, rows, rows_capped, detail from awa.storage_status() where ring = 'queue' and slot = 0$$,
  $$values ('current'::text, 2::bigint, false,
            '2 of its rows are batch rows (awa.ready_batches) holding 304 jobs: a batch row is one row of up to 1024 jobs'::text)$$,
  'the current slot: 2 rows, both batch rows, holding 304 jobs');
select results_eq(
  $$select rows, rows_capped, detail from awa.storage_status(1) where ring = 'queue' and slot = 0$$,
  $$values (1::bigint, true,
            'more than 1 of its rows are batch rows (awa.ready_batches) holding at least 304 jobs: a batch row is one row of up to 1024 jobs'::text)$$,
  'counted up to the limit, it says so');

select * from awa.rotate_ring('queue', now());
select results_eq(
  $$select status, cause, job_id, queue from awa.storage_status() where ring = 'queue' and slot = 0$$,
  $$select 'carried'::text, 'available'::text, ids[1], 'sr'::text from a$$,
  'sealed, it is carried, naming the first job of the first batch row');
select ok((select detail from awa.storage_status() where ring = 'queue' and slot = 0)
          like 'ready slot 0 holds an available job (job %, in a batch row of 300 jobs); 2 of its rows are batch rows%',
          'the detail is the proof''s text, then what a row is');
select is((select detail from awa.storage_status() where ring = 'queue' and slot = 1), null,
          'the new current slot, without batch rows, has no detail');

select * from finish();
rollback;
