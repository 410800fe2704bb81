-- A claim reads batch rows off their lane index and expands only the rows it
-- takes items from, each once: its out-of-line item arrays are fetched from
-- TOAST once per row touched (counted as scans of the rows' TOAST indexes),
-- whatever the number of items taken (none for a row behind the per-row jobs
-- the claim takes), and never by a sequential scan, though
-- the claim's plans were made (generic plans) while the batch plane was empty.
begin;
select plan(10);

-- The session's claim plans, made now while no batch row exists.
select * from awa.insert_job('eb.k', '{}', '{"queue": "eb"}');
select is((select count(*)::int from awa.claim_ready_runtime('eb', 5)), 1, 'fixture: a claim plans its statements');

-- Three rows of 1,024 jobs whose args (with an md5, about 38 KB compressed a row) are stored out of line.
select count(*) from (
  select awa_test.batch_row(array_fill('eb.k'::text, array[1024]),
                            array(select jsonb_build_object('n', g, 'to', md5(g::text)) from generate_series(1, 1024) g),
                            array_fill('{"queue": "eb"}'::jsonb, array[1024]))
  from generate_series(1, 3)) as x;

create function pg_temp.toast_fetches() returns numeric language sql as $$
  select sum(pg_stat_get_xact_numscans(i.indexrelid))
  from pg_inherits h join pg_class c on c.oid = h.inhrelid join pg_index i on i.indrelid = c.reltoastrelid
  where h.inhparent = 'awa.ready_batches'::regclass
$$;
create function pg_temp.batch_seq_scans() returns numeric language sql as $$
  select coalesce(sum(seq_scan), 0) from pg_stat_xact_user_tables
  where schemaname = 'awa' and relname like 'ready\_batches\_%'
$$;
create temp table seq0 as select pg_temp.batch_seq_scans() as n;

create function pg_temp.claim_fetches(p_max int, out n int, out fetched numeric) language plpgsql as $$
declare v0 numeric := pg_temp.toast_fetches();
begin
  select count(*) into n from awa.claim_ready_runtime('eb', p_max);
  fetched := pg_temp.toast_fetches() - v0;
end $$;

select results_eq($$select * from pg_temp.claim_fetches(10)$$, $$values (10, 1::numeric)$$,
                  'a claim of 10 out of the first row fetches that row once');
select results_eq($$select * from pg_temp.claim_fetches(100)$$, $$values (100, 1::numeric)$$,
                  'a claim of 100 from its middle fetches it once');
select results_eq($$select * from pg_temp.claim_fetches(1024)$$, $$values (1024, 2::numeric)$$,
                  'a claim of 1,024 crossing into the second row fetches the two rows once each');
select results_eq($$select * from pg_temp.claim_fetches(1)$$, $$values (1, 1::numeric)$$,
                  'a claim of 1 fetches the row it takes from, once');
select results_eq($$select * from pg_temp.claim_fetches(1024)$$, $$values (1024, 2::numeric)$$,
                  'the rest of the second row and the start of the third: two rows');
select is((select count(*)::int from awa.claim_ready_runtime('eb', 1024)), 3072 - 10 - 100 - 1024 - 1 - 1024,
          'and the rest of the third row: no job lost');
-- Per-row jobs, then a batch row behind them in the same lane.
select count(*) from awa.insert_jobs(array_fill('eb.k'::text, array[5]), null, array_fill('{"queue": "eb"}'::jsonb, array[5]));
select count(*) from awa_test.batch_row(array_fill('eb.k'::text, array[1024]),
                                        array(select jsonb_build_object('n', g, 'to', md5(g::text)) from generate_series(1, 1024) g),
                                        array_fill('{"queue": "eb"}'::jsonb, array[1024]));
select results_eq($$select * from pg_temp.claim_fetches(5)$$, $$values (5, 0::numeric)$$,
                  'a claim the per-row jobs fill does not read the batch row behind them');
select results_eq($$select * from pg_temp.claim_fetches(10)$$, $$values (10, 1::numeric)$$,
                  'the next claim reads it, once');
select is(pg_temp.batch_seq_scans() - (select n from seq0), 0::numeric,
          'no claim read the batch plane by sequential scan');

select * from finish();
rollback;
