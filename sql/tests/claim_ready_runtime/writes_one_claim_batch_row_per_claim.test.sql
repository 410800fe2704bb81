-- A claim of N jobs from one ready slot writes exactly one claim_batches
-- row listing the N jobs in claim order, whatever lanes they come from.
begin;
select plan(4);

select * from awa.insert_jobs(array_fill('k'::text, array[6]), null,
  array['{"queue": "batchq", "priority": 1}', '{"queue": "batchq"}', '{"queue": "batchq"}',
        '{"queue": "batchq", "priority": 4}', '{"queue": "batchq"}', '{"queue": "batchq"}']::jsonb[]);
create temp table rows_before as select count(*) as n from awa.claim_batches;

create temp table claimed as
select row_number() over () as ord, * from awa.claim_ready_runtime('batchq', 5, null, '2030-01-01 12:00:00+00');

select is((select count(*) from awa.claim_batches) - (select n from rows_before), 1::bigint,
  'a claim of 5 jobs writes one claim batch row');
select is((select job_ids from awa.claim_batches where queue = 'batchq'),
  (select array_agg(id order by ord) from claimed),
  'the batch lists the claimed jobs in claim order');
select is((select cardinality(lane_ids) from awa.claim_batches where queue = 'batchq'), 5,
  'the batch holds one lane position per job');

select * from awa.claim_ready_runtime('batchq', 1, null, '2030-01-01 12:00:01+00');
select is((select count(*) from awa.claim_batches) - (select n from rows_before), 2::bigint,
  'a second claim writes a second batch row');

select * from finish();
rollback;
