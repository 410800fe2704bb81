-- An insert rolled back (here to a savepoint) leaves reserved lane positions
-- without ready rows; claims pass over the gap and still find later jobs.
begin;
select plan(4);

select * from awa.insert_job('a', '{}', '{"queue": "gap"}');
savepoint before_b;
select * from awa.insert_jobs(array['b1', 'b2'], null, array_fill('{"queue": "gap"}'::jsonb, array[2]));
rollback to savepoint before_b;
select * from awa.insert_job('c', '{}', '{"queue": "gap"}');

select results_eq($$select kind from awa.claim_ready_runtime('gap', 10, null, '2030-01-01 12:00:00+00')$$,
  array['a', 'c'], 'a claim over a gap returns the jobs on both sides of it, in order');

savepoint before_d;
select * from awa.insert_job('d', '{}', '{"queue": "gap"}');
rollback to savepoint before_d;
select is_empty($$select * from awa.claim_ready_runtime('gap', 10, null, '2030-01-01 12:00:01+00')$$,
  'a claim of a lane holding only a gap returns nothing');
select * from awa.insert_job('e', '{}', '{"queue": "gap"}');
select results_eq($$select kind from awa.claim_ready_runtime('gap', 10, null, '2030-01-01 12:00:02+00')$$,
  array['e'], 'a job inserted after the gap is claimed');
select is((select available from awa.queue_counts('gap')), 0::bigint, 'nothing is left available');

select * from finish();
rollback;
