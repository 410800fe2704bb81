-- Completing many jobs in one call writes one compact
-- done_completions row (per ready slot and queue), not one per job.
begin;
select plan(4);

select * from awa.insert_jobs(array_fill('k'::text, array[5]), null, array_fill('{"queue": "cb"}'::jsonb, array[5]));
create temp table claimed as select row_number() over () as ord, * from awa.claim_ready_runtime('cb', 5, null, '2030-01-01 12:00:00+00');
create temp table stats_before as
select coalesce(sum(n_tup_ins), 0) as ins from pg_stat_xact_user_tables
where schemaname = 'awa' and relname like 'done\_completions%';

select * from awa.complete_jobs(
  array(select id from claimed order by ord), array(select run_lease from claimed order by ord),
  array(select claim_slot from claimed order by ord), array(select receipt_id from claimed order by ord),
  '2030-01-01 12:00:05+00');

select is((select count(*) from awa.done_completions where queue = 'cb'), 1::bigint,
  'five completions in one call write one completion batch row');
select is((select coalesce(sum(n_tup_ins), 0) from pg_stat_xact_user_tables
           where schemaname = 'awa' and relname like 'done\_completions%') - (select ins from stats_before),
  1::numeric, 'exactly one tuple is inserted into done_completions');
select results_eq(
  $$select job_ids, run_leases, completed_at from awa.done_completions where queue = 'cb'$$,
  $$select array_agg(id order by ord), array_agg(run_lease order by ord), '2030-01-01 12:00:05+00'::timestamptz from claimed$$,
  'the batch row lists the jobs and run_leases in call order, completed at p_now');
select is((select count(*) from awa.claim_closures where queue = 'cb'), 1::bigint,
  'one closure row covers the five receipts');

select * from finish();
rollback;
