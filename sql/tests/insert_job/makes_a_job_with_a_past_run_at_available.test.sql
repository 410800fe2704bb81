-- A run_at at or before now is due: the job is available, not scheduled, and
-- keeps the run_at it was given. A JSON null run_at means now.
begin;
select plan(5);

create temp table inserted as
select 'past' as how, * from awa.insert_job('noop', '{}', jsonb_build_object('queue', 'q_past', 'run_at', now() - interval '1 hour'))
union all
select 'now', * from awa.insert_job('noop', '{}', jsonb_build_object('queue', 'q_past', 'run_at', now()))
union all
select 'null', * from awa.insert_job('noop', '{}', '{"queue": "q_past", "run_at": null}');

select results_eq(
  $$select how, state, run_at from inserted order by how$$,
  $$values ('now', 'available'::awa.job_state, now()),
           ('null', 'available'::awa.job_state, now()),
           ('past', 'available'::awa.job_state, now() - interval '1 hour')$$,
  'a past, current or null run_at returns state available with that run_at');
select is((select run_at from awa.jobs where id = (select id from inserted where how = 'past')), now() - interval '1 hour',
  'the stored job keeps its past run_at');
select is((select count(*) from awa.jobs j join inserted i on i.id = j.id where j.state = 'available'), 3::bigint,
  'awa.jobs shows all three available');
select is((select count(*) from awa.deferred_jobs d join inserted i on i.id = d.job_id), 0::bigint,
  'none of them is in the deferred backlog');
select bag_eq(
  $$select id from awa.claim_ready_runtime('q_past', 10, null, '2030-01-01 12:00:00+00')$$,
  $$select id from inserted$$,
  'all three are claimable');

select * from finish();
rollback;
