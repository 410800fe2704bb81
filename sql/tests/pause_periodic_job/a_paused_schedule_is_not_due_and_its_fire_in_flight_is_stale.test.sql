-- A paused schedule is not due, and a fire computed before the pause is
-- stale and enqueues nothing; pausing again writes nothing; the jobs it
-- enqueued before stay.
begin;
select plan(6);

select awa.upsert_periodic_job('p', '@hourly', 'k');
select awa.fire_periodic_job('p', 1, null, null, now() - interval '2 hours');
select awa.fire_periodic_job('p', 1, now() - interval '2 hours', now() - interval '2 hours', now() - interval '1 hour');

select results_eq($$select paused, next_run_at from awa.pause_periodic_job('p', '2026-01-01 00:00Z')$$,
                  $$values (true, now() - interval '1 hour')$$, 'pause_periodic_job reports it paused');
select is((select count(*) from awa.periodic_jobs_due()), 0::bigint, 'a paused schedule is not due, though its time has come');
select results_eq($$select outcome from awa.fire_periodic_job('p', 1, now() - interval '1 hour', now() - interval '1 hour', now())$$,
                  $$values ('stale'::text)$$, 'a fire of the paused schedule is stale');
select is((select count(*) from awa.jobs where kind = 'k'), 1::bigint, 'it enqueued nothing; the earlier job stays');
select awa_test.writes_nothing($$select awa.pause_periodic_job('p')$$, 'pausing again writes nothing');
select is((select updated_at from awa.list_periodic_jobs()), '2026-01-01 00:00Z'::timestamptz, 'the first pause''s time stays');

select * from finish();
rollback;
