-- A fire of the expected time enqueues one job through awa.insert_job with
-- the schedule's kind, args and opts, its metadata marked "periodic": {name,
-- fire_at} (in UTC whatever the session's zone) over the schedule's own, and
-- moves next_run_at on; the row records the fire time and the job.
begin;
select plan(5);

set local timezone = 'America/Los_Angeles';
select awa.upsert_periodic_job('digest', '0 * * * *', 'send_digest', '{"list": "all"}',
                               '{"queue": "mail", "priority": 1, "max_attempts": 3, "tags": ["cron"], "metadata": {"team": "ops"}}');
select awa.fire_periodic_job('digest', 1, null, null, '2026-01-01 10:00Z');
create temp table f as select * from awa.fire_periodic_job('digest', 1, '2026-01-01 10:00Z', '2026-01-01 10:00Z', '2026-01-01 11:00Z');

select results_eq($$select name, outcome, fire_at, next_run_at from f$$,
                  $$values ('digest'::text, 'fired'::text, '2026-01-01 10:00Z'::timestamptz, '2026-01-01 11:00Z'::timestamptz)$$,
                  'the fire is reported');
select results_eq($$select kind, args, queue, priority, max_attempts, tags, state from awa.jobs where id = (select job_id from f)$$,
                  $$values ('send_digest'::text, '{"list": "all"}'::jsonb, 'mail'::text, 1::smallint, 3, array['cron'], 'available'::awa.job_state)$$,
                  'the job is the schedule''s, available now');
select is((select metadata from awa.jobs where id = (select job_id from f)),
          '{"team": "ops", "periodic": {"name": "digest", "fire_at": "2026-01-01T10:00:00+00:00"}}'::jsonb,
          'its metadata names the schedule and the fire time, in UTC');
select results_eq($$select next_run_at, last_fired_at, last_job_id from awa.list_periodic_jobs()$$,
                  $$select '2026-01-01 11:00Z'::timestamptz, '2026-01-01 10:00Z'::timestamptz, job_id from f$$,
                  'the row moves on and records the fire');
select is((select count(*) from awa.jobs), 1::bigint, 'one job');

select * from finish();
rollback;
