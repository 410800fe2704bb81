-- A job's concurrency key is cut at 200 characters (awa._job_key), so an
-- override in concurrency.limits for a longer key would never apply (its
-- jobs silently got the default limit). configure_queue refuses it with
-- AW006 and writes nothing; a key of exactly 200 characters is accepted and
-- applies to its jobs.
begin;
select plan(4);

select * from awa_test.raises_writing_nothing(
  format($$select * from awa.configure_queue('lk', '{"concurrency": {"key": "args.t", "limit": 1, "limits": {"%s": 5}}}')$$,
         repeat('x', 201)),
  'AW006', format('awa: opts.concurrency.limits keys must be at most 200 characters (a job''s key is cut there), got %s...',
                  repeat('x', 100)),
  'an override for a key of 201 characters raises AW006');

select * from awa.configure_queue('lk', jsonb_build_object('concurrency', jsonb_build_object('key', 'args.t', 'limit', 1,
  'limits', jsonb_build_object(repeat('x', 200), 2))));
select * from awa.insert_jobs(array['k', 'k', 'k'], array_fill(jsonb_build_object('t', repeat('x', 200)), array[3]),
  array_fill('{"queue": "lk"}'::jsonb, array[3]));
select is((select count(*) from awa.claim_ready_runtime('lk', 10)), 2::bigint,
  'an override for a key of 200 characters applies: 2 of its 3 jobs run');
select is((select count(*) from awa.key_lanes where queue = 'lk'), 1::bigint, 'its jobs share one key lane');

select * from finish();
rollback;
