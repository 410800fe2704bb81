-- An item whose receipt_id is not the one its claim returned (another job's
-- receipt, a receipt past the batch, an unknown batch) is stale and writes
-- nothing, even though job_id and run_lease are right.
begin;
select plan(7);

select * from awa.insert_jobs(array['a', 'b'], null, array_fill('{"queue": "rcpt"}'::jsonb, array[2]));
create temp table claimed as select row_number() over () as ord, * from awa.claim_ready_runtime('rcpt', 2, null, '2030-01-01 12:00:00+00');

prepare swapped as
  select job_id, outcome from awa.complete_jobs(
    array(select id from claimed where ord = 1), array(select run_lease from claimed where ord = 1),
    array(select claim_slot from claimed where ord = 1), array(select receipt_id from claimed where ord = 2),
    '2030-01-01 12:00:05+00');
select results_eq('swapped', $$select id, 'stale'::awa.finalize_outcome from claimed where ord = 1$$,
  'the receipt of another job of the same batch is stale');
select awa_test.writes_nothing('execute swapped', 'another job''s receipt writes nothing');

prepare past_batch as
  select job_id, outcome from awa.complete_jobs(
    array(select id from claimed where ord = 1), array(select run_lease from claimed where ord = 1),
    array(select claim_slot from claimed where ord = 1), array(select receipt_id + 5 from claimed where ord = 1),
    '2030-01-01 12:00:05+00');
select results_eq('past_batch', $$select id, 'stale'::awa.finalize_outcome from claimed where ord = 1$$,
  'a receipt index past the end of the batch is stale');
select awa_test.writes_nothing('execute past_batch', 'a receipt past the batch writes nothing');

prepare unknown_batch as
  select job_id, outcome from awa.complete_jobs(
    array(select id from claimed where ord = 1), array(select run_lease from claimed where ord = 1),
    array(select claim_slot from claimed where ord = 1), array(select receipt_id + 1024 * 1000 from claimed where ord = 1),
    '2030-01-01 12:00:05+00');
select results_eq('unknown_batch', $$select id, 'stale'::awa.finalize_outcome from claimed where ord = 1$$,
  'a receipt of an unknown batch is stale');
select awa_test.writes_nothing('execute unknown_batch', 'a receipt of an unknown batch writes nothing');

select is((select count(*) from awa.jobs j join claimed c on c.id = j.id where j.state = 'running'), 2::bigint,
  'both jobs are still running');

select * from finish();
rollback;
