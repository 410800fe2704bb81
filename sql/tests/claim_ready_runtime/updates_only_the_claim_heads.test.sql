-- A claim never updates or deletes ready rows or claim batches: the only
-- UPDATE is one per touched lane on awa.queue_claim_heads; everything else it
-- writes is inserts.
begin;
select plan(5);

select * from awa.insert_jobs(array['a', 'b', 'c', 'd'], null,
  array['{"queue": "hot", "priority": 1}', '{"queue": "hot", "priority": 1}',
        '{"queue": "hot", "priority": 2}', '{"queue": "hot", "priority": 2}']::jsonb[]);

create temp table stats_before as
select relname, n_tup_ins, n_tup_upd, n_tup_del from pg_stat_xact_user_tables where schemaname = 'awa';

select is((select count(*) from awa.claim_ready_runtime('hot', 3, null, '2030-01-01 12:00:00+00')), 3::bigint,
  'the claim takes 3 jobs from 2 lanes');

create temp table stats_delta as
select a.relname::text collate "default" as relname, a.n_tup_ins - coalesce(b.n_tup_ins, 0) as ins, a.n_tup_upd - coalesce(b.n_tup_upd, 0) as upd,
       a.n_tup_del - coalesce(b.n_tup_del, 0) as del
from pg_stat_xact_user_tables a left join stats_before b using (relname)
where a.schemaname = 'awa';

select is((select sum(upd + del) from stats_delta where relname like 'ready\_entries%'), 0::numeric,
  'no ready_entries row is updated or deleted');
select is((select sum(upd + del) from stats_delta where relname like 'lease\_claim\_batches%'), 0::numeric,
  'no lease_claim_batches row is updated or deleted');
select results_eq(
  $$select relname, upd, del from stats_delta where upd + del > 0$$,
  $$values ('queue_claim_heads', 2::bigint, 0::bigint)$$,
  'the only table updated is queue_claim_heads, once per touched lane, and nothing is deleted');
select results_eq(
  $$select relname, ins from stats_delta where ins > 0 order by relname$$,
  $$values (format('lease_claim_batches_%s', awa._current_slot('claim')), 1::bigint)$$,
  'the only insert is one lease_claim_batches row');

select * from finish();
rollback;
