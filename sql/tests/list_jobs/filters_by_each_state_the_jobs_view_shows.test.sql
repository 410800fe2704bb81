-- awa.list_jobs(p_states) lists the jobs in any of the states given, live and
-- archived, as awa.jobs shows them: one state at a time gives each state's
-- jobs, failed includes the DLQ's; several states give their union.
begin;
select plan(10);

select awa_test.archive_fixture();
select awa_test.state_fixture();

select results_eq(
  format($$select id, state, dlq from awa.list_jobs(p_states => array[%L]::awa.job_state[], p_limit => 1000)$$, s),
  format($$select id, state, dlq from awa.jobs where state::text = %L order by id desc$$, s),
  format('state %s: the jobs awa.jobs shows in it, newest first', s))
from unnest(enum_range(null::awa.job_state)::text[]) as s;
select cmp_ok((select count(*)::int from awa.list_jobs(p_states => '{failed}', p_limit => 1000) where dlq), '>', 0,
              'failed lists the DLQ''s jobs too');
select results_eq(
  $$select id from awa.list_jobs(p_states => '{scheduled,completed,running}', p_limit => 1000)$$,
  $$select id from awa.jobs where state in ('scheduled', 'completed', 'running') order by id desc$$,
  'several states: any of them');

select * from finish();
rollback;
