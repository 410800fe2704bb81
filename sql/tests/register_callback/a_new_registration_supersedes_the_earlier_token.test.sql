-- A second registration of the same attempt replaces the first: one
-- callbacks row, the new token; the earlier token resolves nothing (stale,
-- writes nothing) and the new one completes the job. No second lease.
begin;
select plan(6);

create temp table c as select * from awa_test.claim_registered('cb', '2030-01-01 12:00:00+00');
create temp table r2 as
  select r.* from c, awa.register_callback(c.id, c.run_lease, c.claim_slot, c.receipt_id, interval '2 hours',
                                           '2030-01-01 12:00:05+00') r;

select results_eq($$select callback_id, timeout_at from awa.callbacks$$,
                  $$select callback_id, '2030-01-01 14:00:05+00'::timestamptz from r2$$,
                  'only the new registration is kept');
select is((select count(*) from awa.leases), 1::bigint, 'the attempt keeps its one lease');
prepare old as select o.callback_id, o.job_id, o.run_lease, o.outcome, o.state
  from c, awa.complete_external(c.callback_id, '{"late": true}', '2030-01-01 12:00:06+00') o;
select results_eq('old', $$select callback_id, null::bigint, null::bigint, 'stale'::awa.finalize_outcome, null::awa.job_state from c$$,
                  'the superseded token is stale');
select awa_test.writes_nothing('execute old', 'the superseded token writes nothing');
select is((select state from awa.jobs where id = (select id from c)), 'waiting_external'::awa.job_state,
          'the job still waits');
select results_eq($$select o.outcome, o.state from r2, awa.complete_external(r2.callback_id, null, '2030-01-01 12:00:07+00') o$$,
                  $$values ('applied'::awa.finalize_outcome, 'completed'::awa.job_state)$$,
                  'the new token completes the job');

select * from finish();
rollback;
