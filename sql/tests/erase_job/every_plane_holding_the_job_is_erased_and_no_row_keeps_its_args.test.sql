-- erase_job rewrites the job's body wherever it lives (args '{}', metadata
-- {"erased_at": now}): a job completed and archived (its slot pruned), one
-- completed while its slot is retained (the ready row its completion points
-- at), one available (queue ring), one scheduled (backlog), one parked
-- (external_waits) and one in the DLQ. Jobs that had not ended are cancelled
-- first (their cancel snapshot is erased too). Afterwards no table holds any
-- of their secrets in args or metadata, and a bystander's secret is untouched.
begin;
select plan(12);

create function pg_temp.holding(p_marker text) returns bigint language sql as $$
  select (select count(*) from awa.ready_entries where (args || metadata)::text like '%' || p_marker || '%')
       + (select count(*) from awa.done_entries where (args || metadata)::text like '%' || p_marker || '%')
       + (select count(*) from awa.deferred_jobs where (args || metadata)::text like '%' || p_marker || '%')
       + (select count(*) from awa.external_waits where (args || metadata)::text like '%' || p_marker || '%')
       + (select count(*) from awa.dlq_entries where (args || metadata)::text like '%' || p_marker || '%')
       + (select count(*) from awa_test.archived_jobs where (args || metadata)::text like '%' || p_marker || '%')
$$;
create function pg_temp.complete_one(p_queue text) returns bigint language sql as $$
  select c.id from awa.claim_ready_runtime(p_queue, 1) as c,
                   awa.complete_jobs(array[c.id], array[c.run_lease], array[c.claim_slot], array[c.receipt_id]) as r
$$;

create temp table j (name text primary key, id bigint);
insert into j select 'archived', id
from awa.insert_job('erase.k', '{"secret": "pii-archived"}', '{"queue": "ea", "metadata": {"who": "pii-archived"}}');
select pg_temp.complete_one('ea');
select * from awa.rotate_ring('queue', now());
select is((select outcome from awa.prune_ring('queue')), 'pruned', 'the archived job''s slot is pruned (fixture)');

insert into j select 'completed', id from awa.insert_job('erase.k', '{"secret": "pii-completed"}', '{"queue": "ec"}');
select pg_temp.complete_one('ec');
insert into j select 'available', id from awa.insert_job('erase.k', '{"secret": "pii-available"}', '{"queue": "eq"}');
insert into j select 'scheduled', id from awa.insert_job('erase.k', '{"secret": "pii-scheduled"}',
  jsonb_build_object('queue', 'eq', 'run_at', now() + interval '1 hour'));
create temp table p as select * from awa_test.claim_one('erase.k', '{"secret": "pii-parked"}', '{"queue": "ep"}', now());
select count(*) from p, awa.register_callback(p.id, p.run_lease, p.claim_slot, p.receipt_id, interval '1 hour');
select count(*) from p, awa.park_jobs(array[p.id], array[p.run_lease], array[p.claim_slot], array[p.receipt_id]);
insert into j select 'parked', id from p;
insert into j select 'dlq', id from awa_test.dlq_claim('erase.k', '{"secret": "pii-dlq"}', '{"queue": "ed"}', now());
insert into j select 'bystander', id from awa.insert_job('erase.k', '{"secret": "pii-bystander"}', '{"queue": "eq"}');

select results_eq(
  $$select j.name, j.id in (select a.job_id from awa_test.archived_jobs a), (select state from awa.job(j.id)) from j order by j.name$$,
  $$values ('archived'::text, true, 'completed'::awa.job_state), ('available', false, 'available'),
           ('bystander', false, 'available'), ('completed', false, 'completed'), ('dlq', false, 'failed'),
           ('parked', false, 'waiting_external'), ('scheduled', false, 'scheduled')$$,
  'each job is where the test wants it (fixture)');

select results_eq(
  $$select e.plane, e.rows from awa.erase_job((select id from j where name = 'archived')) as e$$,
  $$values ('archive'::text, 1::bigint)$$, 'the archived job is erased in the archive');
select results_eq(
  $$select e.plane, e.rows from awa.erase_job((select id from j where name = 'completed')) as e$$,
  $$values ('ready'::text, 1::bigint)$$, 'the completed job is erased in its ready row, which its completion points at');
select results_eq(
  $$select e.plane, e.rows from awa.erase_job((select id from j where name = 'available')) as e$$,
  $$values ('ready'::text, 1::bigint), ('done', 1)$$,
  'the available job is cancelled, then erased in its ready row and its cancel snapshot');
select results_eq(
  $$select e.plane, e.rows from awa.erase_job((select id from j where name = 'scheduled')) as e$$,
  $$values ('done'::text, 1::bigint)$$, 'the scheduled job is cancelled out of the backlog, then erased in its snapshot');
select results_eq(
  $$select e.plane, e.rows from awa.erase_job((select id from j where name = 'parked')) as e$$,
  $$values ('ready'::text, 1::bigint), ('done', 1)$$,
  'the parked job is cancelled, then erased in its old ready row and its snapshot');
select results_eq(
  $$select e.plane, e.rows from awa.erase_job((select id from j where name = 'dlq')) as e$$,
  $$values ('ready'::text, 1::bigint), ('dlq', 1)$$, 'the DLQ job stays in the DLQ, erased (and its old ready row)');

select is((select sum(pg_temp.holding('pii-' || name))::bigint from j where name <> 'bystander'), 0::bigint,
          'no table holds an erased job''s secret');
select is(pg_temp.holding('pii-bystander'), 1::bigint, 'the bystander''s secret is untouched');
select results_eq(
  $$select j.name, x.state, x.args, x.metadata from j, awa.job(j.id) as x where j.name <> 'bystander' order by j.name$$,
  $$select n, s::awa.job_state, '{}'::jsonb, jsonb_build_object('erased_at', now())
    from (values ('archived', 'completed'), ('available', 'cancelled'), ('completed', 'completed'), ('dlq', 'failed'),
                 ('parked', 'cancelled'), ('scheduled', 'cancelled')) as v (n, s) order by n$$,
  'awa.job shows each erased job with empty args, the erasure time in metadata, and its state');
select results_eq(
  $$select e.plane, e.rows from awa.erase_job((select id from j where name = 'available')) as e$$,
  $$values ('ready'::text, 1::bigint), ('done', 1)$$, 'a second erasure rewrites the same rows again (idempotent)');

select * from finish();
rollback;
