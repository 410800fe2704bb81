-- Without awa.open_job_stage() the session has no stage: AW010, nothing written.
begin;
select plan(2);

create temp table before as select awa_test.row_counts() as c;
select throws_ok($$select * from awa.insert_staged_jobs()$$, 'AW010',
                 'awa: this session has no job stage: call awa.open_job_stage() first',
                 'a session without a stage raises AW010');
select is(awa_test.row_counts(), (select c from before), 'the failed call wrote nothing');

select * from finish();
rollback;
