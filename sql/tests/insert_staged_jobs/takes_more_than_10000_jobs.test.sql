-- A stage larger than insert_jobs' 10,000-job batch is inserted whole, in
-- stage order.
begin;
select plan(2);

select awa.open_job_stage();
insert into pg_temp.awa_job_stage (kind, args) select 'k', jsonb_build_object('i', i) from generate_series(1, 10005) i;
create temp table got as select row_number() over () as n, id from awa.insert_staged_jobs();
select is((select count(*) from got), 10005::bigint, 'all 10,005 jobs are inserted');
select is((select count(*) from got g join awa.jobs j using (id) where (j.args ->> 'i')::bigint = g.n), 10005::bigint,
          'in stage order');

select * from finish();
rollback;
