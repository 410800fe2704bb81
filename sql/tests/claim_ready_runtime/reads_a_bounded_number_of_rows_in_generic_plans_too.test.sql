-- The same bound with cached generic plans (what a long-lived worker
-- connection runs after five calls) and a long claimed prefix in the slot,
-- both before the ring partitions have statistics and after ANALYZE: the
-- claim's probes and fetch stay on the lane index instead of scanning the
-- claimed prefix (with statistics, an EXISTS probe became a sequential scan).
begin;
select plan(6);
set local plan_cache_mode = force_generic_plan;

select count(*) from awa.insert_jobs(array_fill('k'::text, array[6000]), null,
                                     array_fill('{"queue": "prefix"}'::jsonb, array[6000]));
-- claim 5,990 of them in big calls: a long consumed prefix in ready slot 0
select count(*) from awa.claim_ready_runtime('prefix', 1000) cross join generate_series(1, 1) g;
do $$ begin for i in 1 .. 5 loop perform awa.claim_ready_runtime('prefix', 998); end loop; end $$;

select * from awa_test.claim_reads_within($$select count(*) from awa.claim_ready_runtime('prefix', 5)$$, 5, 50,
  'the next claim of 5 returns 5 jobs', 'it reads no ready rows by sequential scan',
  'it fetches at most a few dozen ready rows, not the 5,990-row prefix');

analyze awa.ready_entries;
select * from awa_test.claim_reads_within($$select count(*) from awa.claim_ready_runtime('prefix', 5)$$, 5, 50,
  'with statistics, the next claim of 5 returns 5 jobs', 'with statistics it reads no ready rows by sequential scan',
  'with statistics it fetches at most a few dozen ready rows');

select * from finish();
rollback;
