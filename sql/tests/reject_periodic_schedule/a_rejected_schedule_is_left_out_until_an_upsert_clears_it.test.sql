-- reject_periodic_schedule records why the leader cannot compute a fire time
-- and clears next_run_at: the schedule is left out of periodic_jobs_due (and
-- its fires are stale) until an upsert clears the error. A rejection of an
-- older revision, or of a schedule rejected already, changes nothing.
begin;
select plan(6);

select awa.upsert_periodic_job('r', '@hourly', 'k', p_timezone => 'Europe/Paris');
select awa.fire_periodic_job('r', 1, null, null, now());

select results_eq($$select schedule_error, next_run_at from awa.reject_periodic_schedule('r', 1, repeat('x', 1200))$$,
                  $$values (repeat('x', 1000), null::timestamptz)$$, 'the error is kept (its first 1000 characters), next_run_at cleared');
select is((select count(*) from awa.periodic_jobs_due()), 0::bigint, 'a rejected schedule is not due');
select is((select outcome from awa.fire_periodic_job('r', 1, null, null, now())), 'stale', 'its fires are stale');
select is((select count(*) from awa.reject_periodic_schedule('r', 1, 'again')), 0::bigint, 'a second rejection changes nothing');
select awa.upsert_periodic_job('r', '@daily', 'k', p_timezone => 'Europe/Paris');
select is((select count(*) from awa.reject_periodic_schedule('r', 1, 'old spec')), 0::bigint,
          'a rejection of the old revision changes nothing');
select results_eq($$select name, revision from awa.periodic_jobs_due()$$, $$values ('r'::text, 2::bigint)$$,
                  'after the upsert the leader evaluates the new revision');

select * from finish();
rollback;
