-- No stage in the session, an empty stage, or a bad job in the stage: the
-- documented SQLSTATE, and nothing written.
begin;
select plan(6);

select * from awa_test.raises_writing_nothing(
  $$select * from awa.insert_staged_unique_jobs()$$, 'AW010',
  'awa: this session has no job stage: call awa.open_job_stage() first', 'a session without a stage raises AW010');
select awa.open_job_stage();
select * from awa_test.raises_writing_nothing(
  $$select * from awa.insert_staged_unique_jobs()$$, 'AW010', NULL, 'an empty stage raises AW010');
insert into pg_temp.awa_job_stage (kind, args, opts) values ('ok', '{}', '{"unique": {}}'), ('ok', '{}', '{"unique": {"by_queue": "yes"}}');
select * from awa_test.raises_writing_nothing(
  $$select * from awa.insert_staged_unique_jobs()$$, 'AW005', NULL, 'a bad unique option in the stage raises AW005');

select * from finish();
rollback;
