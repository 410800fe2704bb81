-- Of the attempts given, closed_attempts returns those no longer open: one
-- cancelled by an operator (awa.cancel_job) and one completed; an open one,
-- and the other running job of the same claim batch, are not returned. It
-- writes nothing.
begin;
select plan(3);

select awa.insert_jobs(array['k', 'k', 'k'], null, array_fill('{"queue": "ca"}'::jsonb, array[3]));
create temp table c as select * from awa.claim_ready_runtime('ca', 3, null, '2030-01-01 12:00:00+00');
create temp table a as select row_number() over (order by id) as n, * from c;
select awa.cancel_job((select id from a where n = 1), 'stop', '2030-01-01 12:00:01+00');
select * from a, awa.complete_jobs(array[a.id], array[a.run_lease], array[a.claim_slot], array[a.receipt_id],
                                   '2030-01-01 12:00:02+00') where a.n = 2;

select results_eq(
  $$select f.job_id, f.run_lease from awa.closed_attempts(
      (select array_agg(id order by n) from a), (select array_agg(run_lease order by n) from a),
      (select array_agg(claim_slot order by n) from a), (select array_agg(receipt_id order by n) from a)) f
    order by f.job_id$$,
  $$select id, run_lease from a where n in (1, 2) order by id$$,
  'the cancelled and the completed attempt are closed, the running one is not');
select is_empty(
  $$select * from a, awa.closed_attempts(array[a.id], array[a.run_lease], array[a.claim_slot], array[a.receipt_id])
    where a.n = 3$$,
  'the open attempt alone: nothing');
select awa_test.writes_nothing(
  $$select * from a, awa.closed_attempts(array[a.id], array[a.run_lease], array[a.claim_slot], array[a.receipt_id])$$,
  'it writes nothing');

select * from finish();
rollback;
