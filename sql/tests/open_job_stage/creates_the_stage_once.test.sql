-- open_job_stage creates the session's temporary stage (kind, args default
-- '{}', opts, ord) and is idempotent: a second call keeps the same table and
-- its rows.
begin;
select plan(4);

select is(to_regclass('pg_temp.awa_job_stage'), null, 'no stage before the first call');
select awa.open_job_stage();
create temp table first as select to_regclass('pg_temp.awa_job_stage')::oid as oid;
select isnt((select oid from first), null, 'the first call creates it');
insert into pg_temp.awa_job_stage (kind) values ('k');
select awa.open_job_stage();
select is(to_regclass('pg_temp.awa_job_stage')::oid, (select oid from first), 'a second call keeps the same table');
select results_eq($$select kind, args, opts from pg_temp.awa_job_stage$$, $$values ('k', '{}'::jsonb, null::jsonb)$$,
                  'and its rows, args defaulting to {}');

select * from finish();
rollback;
