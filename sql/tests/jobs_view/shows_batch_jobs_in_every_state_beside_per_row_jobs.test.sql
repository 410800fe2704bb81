-- awa.jobs, awa.job and awa.terminal_jobs read the batch plane: jobs of a
-- batch row (awa_test.batch_row) in a lane that also holds per-row ready
-- rows show once each, in their state (available, running, waiting on a
-- callback, parked, completed, failed, retryable, cancelled), with their own
-- item's kind, args, tags and metadata; awa.job(id) gives the view's row.
begin;
select plan(7);

create temp table p1 as select awa.insert_job('bv.p', '{"p": 1}', '{"queue": "bv"}') as j;
create temp table ids as
select awa_test.batch_row(array_fill('bv.k'::text, array[8]) || array['bv.other'],
                          array(select jsonb_build_object('n', g) from generate_series(1, 9) as g),
                          array(select case when g = 2 then '{"queue": "bv", "tags": ["x"], "metadata": {"m": 2}}'::jsonb
                                            else '{"queue": "bv"}' end
                                from generate_series(1, 9) as g)) as ids;
create temp table p2 as select awa.insert_job('bv.p', '{"p": 2}', '{"queue": "bv"}') as j;
create temp table c0 as select * from awa.claim_ready_runtime('bv', 1, null, '2030-01-01 12:00:00+00');
create temp table c as
select * from awa_test.claim_batch_jobs((select ids[1:6] from ids), '2030-01-01 12:00:00+00');
create temp table done as
select (select r from awa.complete_jobs(array[id], array[run_lease], array[claim_slot], array[receipt_id],
                                        '2030-01-01 12:01:00+00') r) from c where id = (select ids[1] from ids)
union all
select (select r from awa.fail_jobs(array[id], array[run_lease], array[claim_slot], array[receipt_id], array['boom'],
                                    '2030-01-01 12:01:00+00') r) from c where id = (select ids[2] from ids)
union all
select (select r from awa.retry_jobs(array[id], array[run_lease], array[claim_slot], array[receipt_id], array['again'],
                                     null, '2030-01-01 12:01:00+00') r) from c where id = (select ids[3] from ids);
create temp table cb as
select c.id, (select r from awa.register_callback(c.id, c.run_lease, c.claim_slot, c.receipt_id, '1 hour',
                                                  '2030-01-01 12:01:00+00') r)
from c where c.id in ((select ids[4] from ids), (select ids[5] from ids));
create temp table parked as
select awa.park_jobs(array[id], array[run_lease], array[claim_slot], array[receipt_id], '2030-01-01 12:02:00+00')
from c where id = (select ids[5] from ids);
create temp table cancelled as select awa.cancel_job((select ids[7] from ids), 'no', '2030-01-01 12:03:00+00');

create temp table want (id bigint, state awa.job_state, attempt int, run_lease bigint, kind text, args jsonb);
insert into want
select (select (j).id from p1), 'running'::awa.job_state, 1, 1::bigint, 'bv.p', '{"p": 1}'::jsonb
union all select (select (j).id from p2), 'available', 0, 0, 'bv.p', '{"p": 2}'
union all
select i.ids[g], s.state::awa.job_state, s.attempt, s.lease, case when g = 9 then 'bv.other' else 'bv.k' end,
       jsonb_build_object('n', g)
from ids i, (values (1, 'completed', 1, 1), (2, 'failed', 1, 1), (3, 'retryable', 1, 1),
                    (4, 'waiting_external', 1, 1), (5, 'waiting_external', 1, 1), (6, 'running', 1, 1),
                    (7, 'cancelled', 0, 0), (8, 'available', 0, 0), (9, 'available', 0, 0))
            as s (g, state, attempt, lease);

select bag_eq($$select id, state, attempt, run_lease, kind, args from awa.jobs where queue = 'bv'$$,
              $$select * from want$$,
              'awa.jobs shows each job of both planes once, in its state, with its own kind and args');
select bag_eq($$select j.id, j.state, j.attempt, j.run_lease, j.kind, j.args
                from want w cross join lateral awa.job(w.id) as j$$,
              $$select * from want$$,
              'awa.job(id) finds each of them by id, as the view shows it');
select bag_eq($$select id, state from awa.terminal_jobs where queue = 'bv'$$,
              $$select id, state from want where state in ('completed', 'failed', 'cancelled')$$,
              'awa.terminal_jobs holds the completed batch job beside the failed and cancelled snapshots');
select results_eq(
  $$select tags, metadata, errors -> 0 ->> 'error' from awa.jobs where id = (select ids[2] from ids)$$,
  $$values ('{x}'::text[], '{"m": 2}'::jsonb, 'boom'::text)$$,
  'the failed batch job keeps its item''s tags and metadata and gains the error');
select results_eq(
  $$select j.claimed_at, j.finalized_at from awa.jobs j where j.id in ((select ids[6] from ids), (select ids[1] from ids))
    order by j.id$$,
  $$values (null::timestamptz, '2030-01-01 12:01:00+00'::timestamptz), ('2030-01-01 12:00:00+00', null)$$,
  'a completed batch job has its completion time, a running one its claim time');
select is((select count(*)::int from awa.external_waits w where w.job_id = (select ids[5] from ids) and w.args = '{"n": 5}'),
          1, 'the parked batch job''s body was read from its item');
select is((select array_agg(j.id order by j.id) from awa.job((select ids[1] from ids) + 9) as j), null,
          'awa.job of an id in the row''s block past its last item finds nothing');

select * from finish();
rollback;
