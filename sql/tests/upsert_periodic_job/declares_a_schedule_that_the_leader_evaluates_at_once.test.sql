-- upsert_periodic_job declares a schedule with its job and defaults (zone
-- UTC, missed fire_once, not paused, revision 1) and no next fire time, so
-- the leader evaluates it at its next tick; it enqueues no job itself.
begin;
select plan(5);

select results_eq(
  $$select name, schedule, timezone, kind, args, opts, missed, paused, revision, next_run_at, last_fired_at, schedule_error
    from awa.upsert_periodic_job('digest', '0 8 * * MON-FRI', 'send_digest', '{"list": "all"}',
                                 '{"queue": "mail", "priority": 1, "tags": ["cron"], "metadata": {"team": "ops"}}')$$,
  $$values ('digest'::text, '0 8 * * MON-FRI'::text, 'UTC'::text, 'send_digest'::text, '{"list": "all"}'::jsonb,
            '{"queue": "mail", "priority": 1, "tags": ["cron"], "metadata": {"team": "ops"}}'::jsonb, 'fire_once'::text,
            false, 1::bigint, null::timestamptz, null::timestamptz, null::text)$$,
  'the schedule is stored with its job, zone UTC, missed fire_once, no next fire time');
select is((select count(*) from awa.jobs), 0::bigint, 'no job is enqueued');
select results_eq($$select name, next_run_at from awa.periodic_jobs_due()$$,
                  $$values ('digest'::text, null::timestamptz)$$, 'the leader evaluates it at once');
select results_eq(
  $$select name, schedule, timezone, missed from awa.upsert_periodic_job('hourly', '@every 90s', 'ping',
                                                                         p_timezone => 'America/New_York', p_missed => 'skip')$$,
  $$values ('hourly'::text, '@every 90s'::text, 'America/New_York'::text, 'skip'::text)$$,
  'an @every descriptor, a zone and the skip policy are taken');
select results_eq($$select schedule from awa.upsert_periodic_job('nightly', '@daily', 'cleanup')$$,
                  $$values ('@daily'::text)$$, 'a named descriptor is taken');

select * from finish();
rollback;
