-- periodic_jobs_due returns the schedules without a next fire time first,
-- then those whose time has come, most overdue first, up to the limit, each
-- with what the leader computes from and the clock it read; not those whose
-- time is ahead, nor paused or rejected ones; it writes nothing.
begin;
select plan(4);

select awa.upsert_periodic_job(n, '@hourly', 'k') from unnest(array['new', 'late', 'later', 'ahead', 'paused', 'rejected']) n;
select awa.fire_periodic_job('late', 1, null, null, '2030-01-01 10:00Z');
select awa.fire_periodic_job('later', 1, null, null, '2030-01-01 09:00Z');
select awa.fire_periodic_job('ahead', 1, null, null, '2030-01-01 13:00Z');
select awa.fire_periodic_job('paused', 1, null, null, '2030-01-01 09:00Z');
select awa.pause_periodic_job('paused');
select awa.reject_periodic_schedule('rejected', 1, 'bad');

select results_eq($$select name, revision, schedule, timezone, missed, next_run_at, now
                    from awa.periodic_jobs_due('2030-01-01 12:00Z')$$,
                  $$values ('new'::text, 1::bigint, '@hourly'::text, 'UTC'::text, 'fire_once'::text, null::timestamptz, '2030-01-01 12:00Z'::timestamptz),
                           ('later', 1, '@hourly', 'UTC', 'fire_once', '2030-01-01 09:00Z', '2030-01-01 12:00Z'),
                           ('late', 1, '@hourly', 'UTC', 'fire_once', '2030-01-01 10:00Z', '2030-01-01 12:00Z')$$,
                  'unscheduled first, then the most overdue; not ahead, paused or rejected');
select results_eq($$select name from awa.periodic_jobs_due('2030-01-01 12:00Z', 2)$$,
                  $$values ('new'::text), ('later')$$, 'the limit keeps the first ones');
select is((select now from awa.periodic_jobs_due() limit 1), now(), 'without now it reads the database''s clock');
select awa_test.writes_nothing($$select * from awa.periodic_jobs_due()$$, 'periodic_jobs_due writes nothing');

select * from finish();
rollback;
