-- A time range [from, to) lists the finished jobs (completed, failed,
-- cancelled, DLQ) whose finalized_at lies in it, live and archived; live
-- jobs that have not finished have no finalization time and are never in a
-- range; from or to alone bound one side; from = to is an empty range.
begin;
select plan(6);

select awa_test.archive_fixture();
select awa_test.state_fixture();

select results_eq(
  $$select id from awa.list_jobs(p_from => now() - interval '150 minutes', p_to => now() - interval '90 minutes')$$,
  $$select id from ax where name = 'arch_failed'$$,
  'the archived job finished two hours ago, alone in its hour');
select results_eq(
  $$select id from awa.list_jobs(p_from => now() - interval '4 hours', p_to => now() - interval '30 minutes')$$,
  $$select id from ax where queue = 'arch' order by id desc$$,
  'the three archived jobs, of both retentions');
select results_eq(
  $$select id from awa.list_jobs(p_from => now(), p_limit => 1000)$$,
  $$select id from awa.jobs where finalized_at >= now() order by id desc$$,
  'from alone: the jobs the fixture finished now, in the ring and the DLQ');
select results_eq(
  $$select id from awa.list_jobs(p_to => now() - interval '150 minutes')$$,
  $$select id from ax where name = 'arch_completed'$$,
  'to alone: what finished before');
select is_empty($$select * from awa.list_jobs(p_from => now(), p_to => now())$$, 'from = to: nothing');
select is_empty($$select * from awa.list_jobs(p_states => '{available,scheduled,running}', p_from => now() - interval '1 day')$$,
                'unfinished states in a range: nothing');

select * from finish();
rollback;
