-- queue_counts() counts, per queue, the jobs awa.jobs shows in each state
-- (failed excludes DLQ jobs, which are counted under dlq).
begin;
select plan(3);

-- Fixture: two queues with jobs in every state (pgtap/helpers.sql); fx holds
-- each job's expected state.
select awa_test.state_fixture();

select results_eq(
  $$select * from awa.queue_counts()$$,
  $$select queue,
           count(*) filter (where state = 'available'), count(*) filter (where state = 'running'),
           count(*) filter (where state = 'scheduled'), count(*) filter (where state = 'retryable'),
           count(*) filter (where state = 'completed'), count(*) filter (where state = 'cancelled'),
           count(*) filter (where state = 'failed' and not dlq), count(*) filter (where dlq),
           count(*) filter (where state = 'waiting_external')
    from awa.jobs group by queue order by queue$$,
  'queue_counts() equals the per-state counts of awa.jobs');

select results_eq(
  $$select * from awa.queue_counts()$$,
  $$values ('qa'::text, 2::bigint, 1::bigint, 1::bigint, 1::bigint, 2::bigint, 1::bigint, 0::bigint, 1::bigint, 1::bigint),
           ('qb'::text, 1::bigint, 2::bigint, 1::bigint, 0::bigint, 2::bigint, 2::bigint, 1::bigint, 0::bigint, 1::bigint)$$,
  'queue_counts() gives the expected numbers for the fixture');

select awa_test.writes_nothing($$select * from awa.queue_counts()$$, 'queue_counts() writes nothing');

select * from finish();
rollback;
