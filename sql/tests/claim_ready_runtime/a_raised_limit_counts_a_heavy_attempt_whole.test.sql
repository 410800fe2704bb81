-- A job heavier than its key's limit runs alone, counted as the limit. When
-- the limit is then raised, the attempt still open counts its whole weight
-- (capped at the new limit), not the old limit it was claimed under: with
-- limit 1 a job of weight 2 runs; raised to 2, a job of weight 1 must not
-- run beside it (2 + 1 > 2); raised to 3, it may.
begin;
select plan(3);

select * from awa.configure_queue('hq', '{"concurrency": {"key": "args.t", "limit": 1}}');
select * from awa.insert_job('k', '{"t": "b"}', '{"queue": "hq", "weight": 2}');
select is((select count(*) from awa.claim_ready_runtime('hq', 10)), 1::bigint,
  'a job of weight 2 runs alone under limit 1');
select * from awa.configure_queue('hq', '{"concurrency": {"key": "args.t", "limit": 2}}');
select * from awa.insert_job('k', '{"t": "b"}', '{"queue": "hq"}');
select is((select count(*) from awa.claim_ready_runtime('hq', 10)), 0::bigint,
  'raised to 2, the open attempt weighs 2: a job of weight 1 does not fit');
select * from awa.configure_queue('hq', '{"concurrency": {"key": "args.t", "limit": 3}}');
select is((select count(*) from awa.claim_ready_runtime('hq', 10)), 1::bigint,
  'raised to 3, it fits');

select * from finish();
rollback;
