-- queue_counts(q) returns the row of queue q only; an unknown queue gives no row.
begin;
select plan(3);

-- Fixture: two queues with jobs in every state (pgtap/helpers.sql); fx holds
-- each job's expected state.
select awa_test.state_fixture();

select results_eq(
  $$select * from awa.queue_counts('qb')$$,
  $$select * from awa.queue_counts() where queue = 'qb'$$,
  'queue_counts(qb) is the qb row of queue_counts()');
select results_eq(
  $$select queue, available, running, dlq from awa.queue_counts('qa')$$,
  $$values ('qa'::text, 2::bigint, 1::bigint, 1::bigint)$$,
  'queue_counts(qa) counts qa only');
select is_empty($$select * from awa.queue_counts('no_such_queue')$$, 'an unknown queue gives no row');

select * from finish();
rollback;
