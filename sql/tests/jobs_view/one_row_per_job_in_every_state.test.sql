-- awa.jobs shows every job exactly once, in its current state, with the DLQ
-- flag on DLQ jobs only.
begin;
select plan(3);

-- Fixture: two queues with jobs in every state (pgtap/helpers.sql); fx holds
-- each job's expected state.
select awa_test.state_fixture();

select bag_eq($$select id, state, dlq from awa.jobs$$, $$select id, want, dlq from fx$$,
              'awa.jobs holds each fixture job once with its expected state and dlq flag');
select is((select count(*) - count(distinct id) from awa.jobs), 0::bigint, 'no job appears twice');
select results_eq(
  $$select j.queue, j.kind, j.priority, j.args ->> 'name' from awa.jobs j join fx using (id) order by fx.name$$,
  $$select queue, 'mix.k'::text, 2::smallint, name from fx order by name$$,
  'every row is hydrated with its queue, kind, priority and args');

select * from finish();
rollback;
