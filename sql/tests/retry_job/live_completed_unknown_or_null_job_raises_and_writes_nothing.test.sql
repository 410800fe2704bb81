-- retry_job refuses, writing nothing: a job already available or running, or
-- completed (AW021, naming the state); an unknown id (AW020); NULL (AW010).
begin;
select plan(10);

create temp table a as select * from awa.insert_job('retry.k', '{}', '{"queue": "rq"}');
create temp table r as select * from awa_test.claim_one('retry.k', '{}', '{"queue": "rr"}', now());
create temp table d as select awa_test.completed_job('rd') as id;

select * from awa_test.raises_writing_nothing(format('select * from awa.retry_job(%s)', (select id from a)),
  'AW021', format('awa: job %s is available (nothing to retry)', (select id from a)), 'an available job raises AW021');
select * from awa_test.raises_writing_nothing(format('select * from awa.retry_job(%s)', (select id from r)),
  'AW021', format('awa: job %s is running (nothing to retry)', (select id from r)), 'a running job raises AW021');
select * from awa_test.raises_writing_nothing(format('select * from awa.retry_job(%s)', (select id from d)),
  'AW021', format('awa: job %s is completed (nothing to retry)', (select id from d)), 'a completed job raises AW021');
select * from awa_test.raises_writing_nothing('select * from awa.retry_job(-7)', 'AW020', 'awa: job -7 not found',
  'an unknown job raises AW020');
select * from awa_test.raises_writing_nothing('select * from awa.retry_job(null)', 'AW010', 'awa: job_id must not be null',
  'a NULL job id raises AW010');

select * from finish();
rollback;
