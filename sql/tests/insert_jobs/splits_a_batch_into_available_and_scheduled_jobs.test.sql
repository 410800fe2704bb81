-- In one batch, jobs due now become available (ready rows) and jobs with a
-- future run_at are scheduled in the deferred backlog.
begin;
select plan(5);

create temp table inserted as
select row_number() over () as ord, * from awa.insert_jobs(
  array['due1', 'later1', 'due2', 'later2'],
  null,
  array[jsonb_build_object('queue', 'mixed'),
        jsonb_build_object('queue', 'mixed', 'run_at', now() + interval '10 minutes'),
        jsonb_build_object('queue', 'mixed', 'run_at', now() - interval '10 minutes'),
        jsonb_build_object('queue', 'mixed', 'run_at', now() + interval '1 day')]);

select results_eq(
  $$select kind, state from inserted order by ord$$,
  $$values ('due1', 'available'::awa.job_state), ('later1', 'scheduled'::awa.job_state),
           ('due2', 'available'::awa.job_state), ('later2', 'scheduled'::awa.job_state)$$,
  'each job is returned available or scheduled by its run_at');
select bag_eq(
  $$select r.job_id from awa.ready_entries r join inserted i on i.id = r.job_id$$,
  $$select id from inserted where kind like 'due%'$$,
  'only the due jobs have ready rows');
select bag_eq(
  $$select d.job_id, d.state, d.run_at from awa.deferred_jobs d join inserted i on i.id = d.job_id$$,
  $$select id, 'scheduled'::awa.job_state, run_at from inserted where kind like 'later%'$$,
  'only the future jobs are in the deferred backlog, scheduled at their run_at');
select bag_eq(
  $$select j.id, j.state from awa.jobs j join inserted i on i.id = j.id$$,
  $$select id, state from inserted$$,
  'awa.jobs shows each job in the state insert_jobs returned');
select results_eq(
  $$select kind from awa.claim_ready_runtime('mixed', 10, null, '2030-01-01 12:00:00+00')$$,
  array['due1', 'due2'],
  'a claim gets only the due jobs, in input order');

select * from finish();
rollback;
