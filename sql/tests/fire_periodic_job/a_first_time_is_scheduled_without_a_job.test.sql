-- The leader's first step for a new schedule (expected NULL, no fire_at)
-- stores its next fire time and enqueues nothing: outcome scheduled.
begin;
select plan(3);

select awa.upsert_periodic_job('p', '0 * * * *', 'k');
select results_eq($$select name, outcome, job_id, fire_at, next_run_at
                    from awa.fire_periodic_job('p', 1, null, null, '2030-01-01 01:00Z')$$,
                  $$values ('p'::text, 'scheduled'::text, null::bigint, null::timestamptz, '2030-01-01 01:00Z'::timestamptz)$$,
                  'the first time is scheduled');
select results_eq($$select next_run_at, last_fired_at, last_job_id from awa.list_periodic_jobs()$$,
                  $$values ('2030-01-01 01:00Z'::timestamptz, null::timestamptz, null::bigint)$$, 'the row holds it');
select is((select count(*) from awa.jobs), 0::bigint, 'no job is enqueued');

select * from finish();
rollback;
