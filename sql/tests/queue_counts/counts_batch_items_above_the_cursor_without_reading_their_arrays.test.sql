-- awa.queue_counts counts both ready planes: a batch row's items above its
-- lane's cursor (all of them, or those past a claim that stopped in its
-- middle) by arithmetic on its block, less the tombstones among them, beside
-- the per-row jobs of the same lane; for one queue and for every queue (a
-- lane holding batch rows only is found too), without reading the rows'
-- arrays (no TOAST fetch).
begin;
select plan(7);

select * from awa.insert_jobs(array['cb.k', 'cb.k'], null, array_fill('{"queue": "cb"}'::jsonb, array[2]));
select awa_test.batch_row(array_fill('cb.k'::text, array[1024]),
                          array(select jsonb_build_object('n', g, 'to', md5(g::text)) from generate_series(1, 1024) g),
                          array_fill('{"queue": "cb"}'::jsonb, array[1024]));
select awa_test.batch_row(array_fill('cb2.k'::text, array[4]), null, array_fill('{"queue": "cb2"}'::jsonb, array[4]));

select is((select available from awa.queue_counts('cb')), 1026::bigint, 'two per-row jobs and a batch row of 1,024');
select is((select available from awa.queue_counts() where queue = 'cb2'), 4::bigint,
          'for every queue, a lane holding only a batch row is counted');

select is((select count(*)::int from awa.claim_ready_runtime('cb', 5)), 5, 'fixture: a claim takes the two and three items');
select results_eq($$select available, running from awa.queue_counts('cb')$$, $$values (1021::bigint, 5::bigint)$$,
                  'the items past the cursor in the row''s middle: 1,021 available, 5 running');
insert into awa.ready_tombstones (ready_slot, lane_id, lane_seq, job_id, created_at)
select b.ready_slot, b.lane_id, b.first_seq + k, b.first_id + k, now()
from awa.ready_batches b, unnest(array[10, 20]) k where b.queue = 'cb';
select is((select available from awa.queue_counts('cb')), 1019::bigint, 'two items tombstoned: 1,019');
select is((select available from awa.queue_counts() where queue = 'cb'), 1019::bigint, 'the same for every queue');

create function pg_temp.toast_fetches() returns numeric language sql as $$
  select sum(pg_stat_get_xact_numscans(i.indexrelid))
  from pg_inherits h join pg_class c on c.oid = h.inhrelid join pg_index i on i.indrelid = c.reltoastrelid
  where h.inhparent = 'awa.ready_batches'::regclass
$$;
create temp table f0 as select pg_temp.toast_fetches() as n;
select count(*) from awa.queue_counts('cb');
select count(*) from awa.queue_counts();
select is(pg_temp.toast_fetches() - (select n from f0), 0::numeric, 'counting fetched no item array');

select * from finish();
rollback;
