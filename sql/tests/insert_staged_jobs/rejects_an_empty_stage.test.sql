-- An empty stage is an error, not a silent no-op: the stage is emptied at
-- every commit, so rows COPYed in their own (autocommit) transaction are gone
-- by the time insert_staged_jobs runs. AW010, nothing written; the same after
-- a call that consumed the stage.
begin;
select plan(4);

select awa.open_job_stage();
create temp table before as select awa_test.row_counts() as c;
select throws_ok($$select * from awa.insert_staged_jobs()$$, 'AW010',
                 'awa: the job stage is empty: COPY into pg_temp.awa_job_stage and call awa.insert_staged_jobs() in the same transaction (the stage is emptied at every commit)',
                 'an empty stage raises AW010');
select is(awa_test.row_counts(), (select c from before), 'the failed call wrote nothing');

insert into pg_temp.awa_job_stage (kind) values ('a');
select is((select count(*) from awa.insert_staged_jobs()), 1::bigint, 'a staged job is inserted');
select throws_ok($$select * from awa.insert_staged_jobs()$$, 'AW010', null,
                 'a second call with nothing staged since raises AW010 too');

select * from finish();
rollback;
