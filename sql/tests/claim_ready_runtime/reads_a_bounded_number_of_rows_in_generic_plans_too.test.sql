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

create temp table before as
select coalesce(sum(seq_tup_read), 0) as seq_read, coalesce(sum(idx_tup_fetch), 0) as idx_fetch
from pg_stat_xact_user_tables where schemaname = 'awa' and relname like 'ready\_entries\_%';

select is((select count(*) from awa.claim_ready_runtime('prefix', 5)), 5::bigint,
          'the next claim of 5 returns 5 jobs');
select cmp_ok((select coalesce(sum(seq_tup_read), 0) - (select seq_read from before)
               from pg_stat_xact_user_tables where schemaname = 'awa' and relname like 'ready\_entries\_%'),
              '=', 0::numeric, 'it reads no ready rows by sequential scan');
select cmp_ok((select coalesce(sum(idx_tup_fetch), 0) - (select idx_fetch from before)
               from pg_stat_xact_user_tables where schemaname = 'awa' and relname like 'ready\_entries\_%'),
              '<=', 50::numeric, 'it fetches at most a few dozen ready rows, not the 5,990-row prefix');

analyze awa.ready_entries;
create temp table after_analyze as
select coalesce(sum(seq_tup_read), 0) as seq_read, coalesce(sum(idx_tup_fetch), 0) as idx_fetch
from pg_stat_xact_user_tables where schemaname = 'awa' and relname like 'ready\_entries\_%';

select is((select count(*) from awa.claim_ready_runtime('prefix', 5)), 5::bigint,
          'with statistics, the next claim of 5 returns 5 jobs');
select cmp_ok((select coalesce(sum(seq_tup_read), 0) - (select seq_read from after_analyze)
               from pg_stat_xact_user_tables where schemaname = 'awa' and relname like 'ready\_entries\_%'),
              '=', 0::numeric, 'with statistics it reads no ready rows by sequential scan');
select cmp_ok((select coalesce(sum(idx_tup_fetch), 0) - (select idx_fetch from after_analyze)
               from pg_stat_xact_user_tables where schemaname = 'awa' and relname like 'ready\_entries\_%'),
              '<=', 50::numeric, 'with statistics it fetches at most a few dozen ready rows');

select * from finish();
rollback;
