-- After times passed with no leader: a fire_once schedule fires one job for
-- them all, at the latest (fire_at after the expected time), its metadata
-- saying where the missed span began (missed_from); a skip schedule moves on
-- to its next time without a job (outcome scheduled).
begin;
select plan(5);

select awa.upsert_periodic_job('once', '0 * * * *', 'k');
select awa.upsert_periodic_job('skip', '0 * * * *', 'k', p_missed => 'skip');
select awa.fire_periodic_job(n, 1, null, null, '2026-01-01 01:00Z') from unnest(array['once', 'skip']) n;

create temp table f as select * from awa.fire_periodic_job('once', 1, '2026-01-01 01:00Z', '2026-01-01 05:00Z', '2026-01-01 06:00Z');
select results_eq($$select outcome, fire_at, next_run_at from f$$,
                  $$values ('fired'::text, '2026-01-01 05:00Z'::timestamptz, '2026-01-01 06:00Z'::timestamptz)$$,
                  'fire_once fires one job, at the latest missed time');
select is((select metadata -> 'periodic' from awa.jobs where id = (select job_id from f)),
          '{"name": "once", "fire_at": "2026-01-01T05:00:00+00:00", "missed_from": "2026-01-01T01:00:00+00:00"}'::jsonb,
          'its metadata covers the missed span, from the first missed time');
select results_eq($$select outcome, job_id, next_run_at from awa.fire_periodic_job('skip', 1, '2026-01-01 01:00Z', null, '2026-01-01 06:00Z')$$,
                  $$values ('scheduled'::text, null::bigint, '2026-01-01 06:00Z'::timestamptz)$$,
                  'skip moves to the next time without a job');
select is((select count(*) from awa.jobs), 1::bigint, 'one job in all');
select results_eq($$select name, last_fired_at from awa.list_periodic_jobs()$$,
                  $$values ('once'::text, '2026-01-01 05:00Z'::timestamptz), ('skip', null)$$,
                  'only the fire_once schedule has fired');

select * from finish();
rollback;
