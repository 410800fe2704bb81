-- A DLQ job purged while its ready row is still in the queue ring is gone from
-- every read surface: awa.get_job and awa.list_jobs no longer show it (as
-- running, from its claimed ready row), as awa.jobs does not; a job still
-- running beside it is listed running.
begin;
select plan(6);

create temp table d (id bigint);
insert into d select awa_test.dlq_job('pgone', now());

select is((select count(*)::int from awa.ready_entries where job_id = (select id from d)), 1,
          'fixture: the purged job''s ready row is still in the queue ring');

select * from awa.insert_job('k', '{}', '{"queue": "pgone"}');
create temp table run as select * from awa.claim_ready_runtime('pgone', 1);

select is((select count(*)::int from awa.purge_dlq(p_job_ids => (select array_agg(id) from d))), 1,
          'purge_dlq purges the DLQ job');
select is_empty($$select * from awa.get_job((select id from d))$$, 'get_job of the purged job returns no row');
select is_empty($$select * from awa.list_jobs(p_queue => 'pgone') where id = (select id from d)$$,
                'list_jobs no longer lists the purged job');
select results_eq($$select id, state::text from awa.list_jobs(p_queue => 'pgone')$$,
                  $$select id, 'running' from run$$,
                  'the job still running in the queue is listed, running');
select is((select state::text from awa.get_job((select id from run))), 'running',
          'get_job shows the running job running');

select * from finish();
rollback;
