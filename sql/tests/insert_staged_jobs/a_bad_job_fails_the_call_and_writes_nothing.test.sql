-- One bad staged job fails the whole call with insert_jobs' SQLSTATE (here
-- AW003: args not an object; AW002: a bad queue in the second internal
-- batch) and nothing is inserted.
begin;
select plan(3);

select awa.open_job_stage();
create temp table before as select awa_test.row_counts() as c;

insert into pg_temp.awa_job_stage (kind, args) values ('ok', '{}'), ('bad', '[1]');
select throws_ok($$select * from awa.insert_staged_jobs()$$, 'AW003', null, 'args that are not an object raise AW003');

delete from pg_temp.awa_job_stage;
insert into pg_temp.awa_job_stage (kind) select 'k' from generate_series(1, 10000);
insert into pg_temp.awa_job_stage (kind, opts) values ('late', '{"queue": "no spaces"}');
select throws_ok($$select * from awa.insert_staged_jobs()$$, 'AW002', null,
                 'a bad queue in the second batch of 10,000 raises AW002');

select is(awa_test.row_counts(), (select c from before), 'the failed calls wrote nothing');

select * from finish();
rollback;
