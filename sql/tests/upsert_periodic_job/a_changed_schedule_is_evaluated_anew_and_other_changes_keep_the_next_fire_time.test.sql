-- A second upsert of a name: a new schedule or zone bumps revision and clears
-- next_run_at (the leader computes it anew); a new job, policy or opts keeps
-- the next fire time; an unchanged declaration (as every leader start makes)
-- writes nothing; an upsert keeps a pause and clears a schedule_error.
begin;
select plan(9);

select awa.upsert_periodic_job('r', '*/5 * * * *', 'k');
select awa.fire_periodic_job('r', 1, null, null, '2030-01-01 00:05Z');

select results_eq($$select revision, next_run_at, args from awa.upsert_periodic_job('r', '*/5 * * * *', 'k', '{"v": 2}', p_missed => 'skip')$$,
                  $$values (1::bigint, '2030-01-01 00:05Z'::timestamptz, '{"v": 2}'::jsonb)$$,
                  'new args and policy keep the revision and the next fire time');
select awa_test.writes_nothing($$select awa.upsert_periodic_job('r', '*/5 * * * *', 'k', '{"v": 2}', p_missed => 'skip')$$,
                               'an unchanged declaration writes nothing');
select results_eq($$select revision, next_run_at from awa.upsert_periodic_job('r', '*/10 * * * *', 'k', '{"v": 2}', p_missed => 'skip')$$,
                  $$values (2::bigint, null::timestamptz)$$, 'a new schedule bumps the revision and clears the next fire time');
select is((select outcome from awa.fire_periodic_job('r', 1, null, null, '2030-01-01 00:10Z')), 'stale',
          'a fire computed from the old schedule is stale');
select awa.fire_periodic_job('r', 2, null, null, '2030-01-01 00:10Z');
select results_eq($$select revision, next_run_at from awa.upsert_periodic_job('r', '*/10 * * * *', 'k', '{"v": 2}', p_timezone => 'Asia/Tokyo', p_missed => 'skip')$$,
                  $$values (3::bigint, null::timestamptz)$$, 'a new zone bumps the revision and clears the next fire time');

select awa.pause_periodic_job('r');
select is((select paused from awa.upsert_periodic_job('r', '@hourly', 'k')), true, 'an upsert keeps the pause');
select awa.resume_periodic_job('r');
select is((select count(*) from awa.reject_periodic_schedule('r', 4, 'bad zone')), 1::bigint, 'the leader rejects the schedule (fixture)');
select results_eq($$select revision, schedule_error from awa.upsert_periodic_job('r', '@hourly', 'k')$$,
                  $$values (4::bigint, null::text)$$, 'the same declaration again clears the error, keeping the revision');
select results_eq($$select name from awa.periodic_jobs_due()$$, $$values ('r'::text)$$,
                  'the leader evaluates it again');

select * from finish();
rollback;
