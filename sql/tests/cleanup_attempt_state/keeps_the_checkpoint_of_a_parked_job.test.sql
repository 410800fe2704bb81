-- A parked job's checkpoint is not removed: its job lives in the parked
-- plane (awa.external_waits), not in a queue slot or the backlog, even once
-- the ready slot that held it has been pruned away. The checkpoint of a
-- job that is gone still is.
begin;
select plan(3);

create temp table c as select * from awa_test.claim_parked('cb', '2030-01-01 12:00:00+00', interval '1 hour', '{}',
                                                          '{"step": 1}');
-- The parked job's ready row is what a queue-ring prune would reclaim.
delete from awa.ready_entries where job_id = (select id from c);
insert into awa.attempt_state (job_id, run_lease, progress, updated_at) values (424242, 1, '{}', now());

select results_eq($$select job_id from awa.cleanup_attempt_state()$$, $$values (424242::bigint)$$,
                  'only the checkpoint of the job that is gone is removed');
select is((select progress from awa.job_progress((select id from c))), '{"step": 1}'::jsonb, 'the parked job keeps its checkpoint');
select is((select state from awa.jobs where id = (select id from c)), 'waiting_external'::awa.job_state, 'the job is still parked');

select * from finish();
rollback;
