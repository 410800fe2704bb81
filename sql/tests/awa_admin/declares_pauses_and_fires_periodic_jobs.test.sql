-- A member of awa_admin does the whole periodic job: declares a schedule,
-- lists it, fires it as the maintenance leader (periodic_jobs_due,
-- fire_periodic_job, reject_periodic_schedule), pauses, resumes and deletes it.
begin;
select plan(9);

set local role awa_test_admin;
select is((select name from awa.upsert_periodic_job('adm', '@hourly', 'adm.k', '{}', '{"queue": "adm_q"}')), 'adm',
          'upsert_periodic_job declares a schedule');
select is((select count(*) from awa.list_periodic_jobs()), 1::bigint, 'list_periodic_jobs lists it');
select is((select count(*) from awa.periodic_jobs_due()), 1::bigint, 'periodic_jobs_due finds it');
select is((select outcome from awa.fire_periodic_job('adm', 1, null, null, now() - interval '1 hour')), 'scheduled',
          'fire_periodic_job schedules it');
select is((select outcome from awa.fire_periodic_job('adm', 1, now() - interval '1 hour', now() - interval '1 hour', now())), 'fired',
          'fire_periodic_job fires it (the job is inserted with the function owner''s rights)');
select is((select paused from awa.pause_periodic_job('adm')), true, 'pause_periodic_job pauses it');
select is((select paused from awa.resume_periodic_job('adm')), false, 'resume_periodic_job resumes it');
select is((select schedule_error from awa.reject_periodic_schedule('adm', 1, 'bad')), 'bad', 'reject_periodic_schedule rejects it');
select is((select name from awa.delete_periodic_job('adm')), 'adm', 'delete_periodic_job deletes it');
reset role;

select * from finish();
rollback;
