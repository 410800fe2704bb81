-- resume_periodic_job clears a paused schedule's next fire time, so the leader
-- schedules it from the resume on and the times that passed while it was
-- paused never fire; it also clears a rejected schedule's error; resuming a
-- schedule that is neither writes nothing.
begin;
select plan(6);

select awa.upsert_periodic_job('p', '@hourly', 'k');
select awa.fire_periodic_job('p', 1, null, null, now() - interval '5 hours');
select awa.pause_periodic_job('p');

select results_eq($$select paused, next_run_at from awa.resume_periodic_job('p')$$,
                  $$values (false, null::timestamptz)$$, 'resumed, with no next fire time');
select results_eq($$select name, next_run_at from awa.periodic_jobs_due()$$,
                  $$values ('p'::text, null::timestamptz)$$, 'the leader schedules it from now (the 5 missed hours never fire)');
select is((select outcome from awa.fire_periodic_job('p', 1, now() - interval '5 hours', now() - interval '5 hours', now())),
          'stale', 'a fire of a time from before the pause is stale');
select awa_test.writes_nothing($$select awa.resume_periodic_job('p')$$, 'resuming a schedule not paused writes nothing');

select awa.reject_periodic_schedule('p', 1, 'unknown time zone');
select results_eq($$select schedule_error, next_run_at from awa.resume_periodic_job('p')$$,
                  $$values (null::text, null::timestamptz)$$, 'resume clears a rejected schedule''s error');
select is((select count(*) from awa.periodic_jobs_due()), 1::bigint, 'and the leader evaluates it again');

select * from finish();
rollback;
