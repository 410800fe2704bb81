-- The upper bound: one call inserts 10000 jobs, in input order.
begin;
select plan(3);

create temp table inserted as
select row_number() over () as ord, * from awa.insert_jobs(
  array(select 'k' || i from generate_series(1, 10000) i), null,
  array_fill('{"queue": "big"}'::jsonb, array[10000]));

select is((select count(*) from inserted), 10000::bigint, '10000 jobs are inserted');
select is((select count(*) from awa.ready_entries where queue = 'big'), 10000::bigint, 'each has a ready row');
select results_eq(
  $$select kind from awa.claim_ready_runtime('big', 3, null, '2030-01-01 12:00:00+00')$$,
  array['k1', 'k2', 'k3'],
  'the first claim gets the first three in input order');

select * from finish();
rollback;
