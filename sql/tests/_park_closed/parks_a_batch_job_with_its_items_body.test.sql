-- awa._park_closed reads a parked job's body by position from either plane
-- (awa._ready_at): batch jobs parked together (awa.park_jobs) wait in
-- awa.external_waits with their own item's kind, args, tags and metadata,
-- beside a per-row job parked in the same call.
begin;
select plan(2);

create temp table p1 as select awa.insert_job('pk.p', '{"p": 1}', '{"queue": "pkq"}') as j;
create temp table ids as
select awa_test.batch_row(array['pk.a', 'pk.b'], array['{"n": 1}', '{"n": 2}']::jsonb[],
                          array['{"queue": "pkq"}', '{"queue": "pkq", "tags": ["t"], "metadata": {"m": 1}}']::jsonb[])
       as ids;
create temp table c as
select * from awa.claim_ready_runtime('pkq', 1, null, now())
union all select * from awa_test.claim_batch_jobs((select ids from ids), now());
create temp table cb as
select (select r from awa.register_callback(c.id, c.run_lease, c.claim_slot, c.receipt_id, '1 hour', now()) r) from c;

select results_eq(
  $$select job_id, state from awa.park_jobs((select array_agg(id order by id) from c),
                                            (select array_agg(run_lease order by id) from c),
                                            (select array_agg(claim_slot order by id) from c),
                                            (select array_agg(receipt_id order by id) from c), now())$$,
  $$select id, 'waiting_external'::awa.job_state from c order by id$$,
  'the per-row job and both batch jobs are parked');
select results_eq(
  $$select job_id, kind, args, tags, metadata, attempt from awa.external_waits where queue = 'pkq' order by job_id$$,
  $$select (select (j).id from p1), 'pk.p'::text, '{"p": 1}'::jsonb, '{}'::text[], '{}'::jsonb, 0
    union all select ids[1], 'pk.a', '{"n": 1}', '{}', '{}', 0 from ids
    union all select ids[2], 'pk.b', '{"n": 2}', '{t}', '{"m": 1}', 0 from ids$$,
  'each waits with its own body');

select * from finish();
rollback;
