-- awa.terminal_jobs lists completed, failed and cancelled jobs still retained
-- by the queue ring; DLQ jobs and live jobs are not in it.
begin;
select plan(2);

-- Fixture: two queues with jobs in every state (pgtap/helpers.sql); fx holds
-- each job's expected state.
select awa_test.state_fixture();

select bag_eq($$select id, state from awa.terminal_jobs$$,
              $$select id, want from fx where want in ('completed', 'failed', 'cancelled') and not dlq$$,
              'terminal_jobs holds exactly the completed, failed and cancelled jobs');
select is_empty($$select * from awa.terminal_jobs where id = (select id from fx where name = 'qa_dlq')$$,
                'the DLQ job is not in terminal_jobs');

select * from finish();
rollback;
