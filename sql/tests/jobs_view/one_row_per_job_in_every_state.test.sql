-- awa.jobs shows every job exactly once, in its current state, with the DLQ
-- flag on DLQ jobs only.
begin;
select plan(3);

-- Fixture: two queues with jobs in every state. qa has the DLQ on, qb not.
-- fx records each job's expected state as seen through awa.jobs.
select * from awa.configure_queue('qa', '{"dlq": true}');
create temp table fx (
    name text primary key, queue text, id bigint, run_lease bigint, claim_slot int, receipt_id bigint,
    want awa.job_state, dlq boolean not null default false);

create function pg_temp.claimed(p_name text, p_queue text, p_want awa.job_state, p_dlq boolean default false)
returns void language sql as $f$
    select awa.insert_job('mix.k', jsonb_build_object('name', p_name), jsonb_build_object('queue', p_queue));
    insert into fx (name, queue, id, run_lease, claim_slot, receipt_id, want, dlq)
    select p_name, p_queue, c.id, c.run_lease, c.claim_slot, c.receipt_id, p_want, p_dlq
    from awa.claim_ready_runtime(p_queue, 1, null, now()) c;
$f$;
create function pg_temp.inserted(p_name text, p_queue text, p_want awa.job_state, p_run_at timestamptz default null)
returns void language sql as $f$
    insert into fx (name, queue, id, run_lease, want)
    select p_name, p_queue, j.id, 0, p_want
    from awa.insert_job('mix.k', jsonb_build_object('name', p_name),
                        jsonb_strip_nulls(jsonb_build_object('queue', p_queue, 'run_at', p_run_at))) j;
$f$;
create function pg_temp.fin(p_name text, p_action text) returns void language plpgsql as $f$
declare
    r fx;
begin
    select * into r from fx where name = p_name;
    case p_action
    when 'complete' then
        perform awa.complete_jobs(array[r.id], array[r.run_lease], array[r.claim_slot], array[r.receipt_id], now());
    when 'retry' then
        perform awa.retry_jobs(array[r.id], array[r.run_lease], array[r.claim_slot], array[r.receipt_id],
                               array['oops'], null, now());
    when 'fail' then
        perform awa.fail_jobs(array[r.id], array[r.run_lease], array[r.claim_slot], array[r.receipt_id],
                              array['fatal'], now());
    when 'cancel' then
        perform awa.cancel_job(r.id, 'stop', now());
    end case;
end
$f$;

-- claimed jobs first, so each claim takes the job just inserted
select pg_temp.claimed('qa_running', 'qa', 'running');
select pg_temp.claimed('qa_retryable', 'qa', 'retryable');
select pg_temp.claimed('qa_completed', 'qa', 'completed');
select pg_temp.claimed('qa_dlq', 'qa', 'failed', true);
select pg_temp.claimed('qb_running1', 'qb', 'running');
select pg_temp.claimed('qb_running2', 'qb', 'running');
select pg_temp.claimed('qb_cancelled_running', 'qb', 'cancelled');
select pg_temp.claimed('qb_failed', 'qb', 'failed');
select pg_temp.claimed('qb_completed1', 'qb', 'completed');
select pg_temp.claimed('qb_completed2', 'qb', 'completed');
select pg_temp.inserted('qa_available1', 'qa', 'available');
select pg_temp.inserted('qa_available2', 'qa', 'available');
select pg_temp.inserted('qa_cancelled_available', 'qa', 'cancelled');
select pg_temp.inserted('qa_scheduled', 'qa', 'scheduled', now() + interval '1 hour');
select pg_temp.inserted('qb_available', 'qb', 'available');
select pg_temp.inserted('qb_scheduled', 'qb', 'scheduled', now() + interval '1 hour');
select pg_temp.inserted('qb_cancelled_scheduled', 'qb', 'cancelled', now() + interval '1 hour');

select pg_temp.fin('qa_retryable', 'retry');
select pg_temp.fin('qa_completed', 'complete');
select pg_temp.fin('qa_dlq', 'fail');
select pg_temp.fin('qb_cancelled_running', 'cancel');
select pg_temp.fin('qb_failed', 'fail');
select pg_temp.fin('qb_completed1', 'complete');
select pg_temp.fin('qb_completed2', 'complete');
select pg_temp.fin('qa_cancelled_available', 'cancel');
select pg_temp.fin('qb_cancelled_scheduled', 'cancel');
-- end of fixture

select bag_eq($$select id, state, dlq from awa.jobs$$, $$select id, want, dlq from fx$$,
              'awa.jobs holds each fixture job once with its expected state and dlq flag');
select is((select count(*) - count(distinct id) from awa.jobs), 0::bigint, 'no job appears twice');
select results_eq(
  $$select j.queue, j.kind, j.priority, j.args ->> 'name' from awa.jobs j join fx using (id) order by fx.name$$,
  $$select queue, 'mix.k'::text, 2::smallint, name from fx order by name$$,
  'every row is hydrated with its queue, kind, priority and args');

select * from finish();
rollback;
