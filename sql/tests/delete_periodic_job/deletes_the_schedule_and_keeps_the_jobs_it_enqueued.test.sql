-- delete_periodic_job deletes the schedule and returns it; the job it
-- enqueued stays; a leader's fire computed before the delete is stale and
-- enqueues nothing.
begin;
select plan(4);

select awa.upsert_periodic_job('gone', '@hourly', 'k');
select awa.fire_periodic_job('gone', 1, null, null, now() - interval '1 hour');
select awa.fire_periodic_job('gone', 1, now() - interval '1 hour', now() - interval '1 hour', now());

select results_eq($$select name, last_fired_at from awa.delete_periodic_job('gone')$$,
                  $$values ('gone'::text, now() - interval '1 hour')$$, 'the deleted schedule is returned');
select is((select count(*) from awa.list_periodic_jobs()), 0::bigint, 'it is gone');
select is((select count(*) from awa.jobs where kind = 'k'), 1::bigint, 'the job it enqueued stays');
select results_eq($$select outcome, job_id from awa.fire_periodic_job('gone', 1, now(), now(), now() + interval '1 hour')$$,
                  $$values ('stale'::text, null::bigint)$$, 'a fire after the delete is stale');

select * from finish();
rollback;
