-- A job's weight (opts.weight) counts against its key's limit: with limit 3,
-- a job of weight 2 and then one of weight 2 cannot both run; a per-key
-- override (limits) replaces the limit for its key; a weight over the limit
-- counts as the limit, so the job still runs, alone.
begin;
select plan(6);

select * from awa.configure_queue('wq', '{"concurrency": {"key": "metadata.org", "limit": 3, "limits": {"vip": 5}}}');
select * from awa.insert_job('k', '{}', '{"queue":"wq", "metadata": {"org": "x"}, "weight": 2}');
select * from awa.insert_job('k', '{}', '{"queue":"wq", "metadata": {"org": "x"}, "weight": 2}');
select * from awa.insert_job('k', '{}', '{"queue":"wq", "metadata": {"org": "vip"}, "weight": 2}');
select * from awa.insert_job('k', '{}', '{"queue":"wq", "metadata": {"org": "vip"}, "weight": 2}');
select * from awa.insert_job('k', '{}', '{"queue":"wq", "metadata": {"org": "big"}, "weight": 9}');

create temp table c1 as select * from awa.claim_ready_runtime('wq', 10);
select is((select count(*) from c1 where metadata ->> 'org' = 'x'), 1::bigint, 'weights 2 + 2 do not fit a limit of 3');
select is((select count(*) from c1 where metadata ->> 'org' = 'vip'), 2::bigint, 'they fit the override of 5');
select is((select count(*) from c1 where metadata ->> 'org' = 'big'), 1::bigint, 'a weight over the limit runs alone');
select is((select metadata -> 'flow_weight' from c1 where metadata ->> 'org' = 'x'), '2'::jsonb,
  'the weight is kept in metadata as flow_weight');
select is((select sum(weight) from awa_test.key_attempts('wq') where key = 'big'), 9::bigint,
  'its attempt keeps its whole weight (a raised limit counts it whole again)');
select * from awa.insert_job('k', '{}', '{"queue":"wq", "metadata": {"org": "big"}}');
select is((select count(*) from awa.claim_ready_runtime('wq', 10)), 0::bigint,
  'and it counts as the limit: no other job of its key runs beside it');

select * from finish();
rollback;
