-- insert_job returns one row describing the job it inserted, and the job is
-- stored with everything the caller gave it.
begin;
select plan(9);

create temp table inserted as
select * from awa.insert_job(
  'send_email',
  '{"to": "a@example.com"}',
  '{"queue": "mail", "priority": 1, "max_attempts": 3, "tags": ["t1", "t2"], "metadata": {"trace": "x"}}');

select is((select count(*) from inserted), 1::bigint, 'returns exactly one row');
select ok((select id from inserted) is not null, 'returns the new job id');
select is((select state from inserted), 'available'::awa.job_state, 'returns state available for a job due now');
select is((select queue from inserted), 'mail', 'returns the queue from opts');
select is((select priority from inserted), 1::smallint, 'returns the priority from opts');
select is((select kind from inserted), 'send_email', 'returns the kind');
select is((select run_at from inserted), now(), 'returns run_at = now() when none is given');

select results_eq(
  $$select j.kind, j.queue, j.priority, j.args, j.max_attempts, j.tags, j.metadata
    from awa.jobs j join inserted i on i.id = j.id$$,
  $$values ('send_email', 'mail', 1::smallint, '{"to": "a@example.com"}'::jsonb, 3, array['t1', 't2'], '{"trace": "x"}'::jsonb)$$,
  'the stored job holds the kind, queue, priority, args, max_attempts, tags and metadata given');

select results_eq(
  $$select j.attempt, j.run_lease, j.errors, j.created_at from awa.jobs j join inserted i on i.id = j.id$$,
  $$values (0, 0::bigint, null::jsonb, now())$$,
  'a new job starts at attempt 0, run_lease 0, no errors, created now');

select * from finish();
rollback;
