-- Once a fire time has fired, another fire of it (a second leader, or a
-- leader that computed before the first committed) finds next_run_at moved
-- on: stale, nothing written. A fire of another revision is stale too.
begin;
select plan(4);

select awa.upsert_periodic_job('p', '0 * * * *', 'k');
select awa.fire_periodic_job('p', 1, null, null, now() - interval '1 hour');
select is((select outcome from awa.fire_periodic_job('p', 1, now() - interval '1 hour', now() - interval '1 hour', now())),
          'fired', 'the first fire fires');
select results_eq($$select outcome, job_id, next_run_at from awa.fire_periodic_job('p', 1, now() - interval '1 hour', now() - interval '1 hour', now())$$,
                  $$values ('stale'::text, null::bigint, null::timestamptz)$$, 'the second fire of that time is stale');
select awa_test.writes_nothing($$select awa.fire_periodic_job('p', 1, now() - interval '1 hour', now() - interval '1 hour', now())$$,
                               'a stale fire writes nothing');
select is((select outcome from awa.fire_periodic_job('p', 2, now(), now(), now() + interval '1 hour')), 'stale',
          'a fire of another revision is stale');

select * from finish();
rollback;
