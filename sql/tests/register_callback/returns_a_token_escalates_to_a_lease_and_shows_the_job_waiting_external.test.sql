-- register_callback on an open attempt is applied: it returns a random token
-- and timeout_at = now + timeout, writes one awa.callbacks row naming the
-- attempt and its receipt and one lease row (the attempt escalates), and the
-- job shows waiting_external (attempt 1) until the callback is resolved.
begin;
select plan(7);

create temp table c as select * from awa_test.claim_one('cb.k', '{}', '{"queue": "cb"}', '2030-01-01 12:00:00+00');
create temp table before as select awa_test.row_counts() as n;
create temp table r as
  select r.* from c, awa.register_callback(c.id, c.run_lease, c.claim_slot, c.receipt_id, interval '10 minutes',
                                           '2030-01-01 12:00:01+00') r;

select results_eq($$select job_id, run_lease, outcome, timeout_at from r$$,
                  $$select id, run_lease, 'applied'::awa.finalize_outcome, '2030-01-01 12:10:01+00'::timestamptz from c$$,
                  'the registration is applied, timing out 10 minutes after now');
select isnt((select callback_id from r), null, 'it returns a token');
select results_eq(
  $$select callback_id, job_id, run_lease, claim_slot, receipt_id, queue, registered_at, timeout_at, resumed_at, result
    from awa.callbacks$$,
  $$select r.callback_id, c.id, c.run_lease, c.claim_slot, c.receipt_id, 'cb'::text, '2030-01-01 12:00:01+00'::timestamptz,
           '2030-01-01 12:10:01+00'::timestamptz, null::timestamptz, null::jsonb from c, r$$,
  'one callbacks row names the token, the attempt and its receipt');
select results_eq($$select job_id, run_lease, receipt_id from awa.leases$$, $$select id, run_lease, receipt_id from c$$,
                  'the attempt escalates to a lease');
select is(awa_test.changed((select n from before), awa_test.row_counts()),
          jsonb_build_object('leases_' || awa._current_slot('lease'), 1, 'callbacks', 1),
          'nothing but the lease and the registration is written');
select results_eq($$select state, attempt, run_lease from awa.jobs where id = (select id from c)$$,
                  $$select 'waiting_external'::awa.job_state, 1, run_lease from c$$,
                  'the job shows waiting_external, attempt 1');
select isnt((select callback_id from c, awa.register_callback(c.id, c.run_lease, c.claim_slot, c.receipt_id,
                                                              interval '10 minutes')),
            (select callback_id from r), 'each registration gets a token of its own');

select * from finish();
rollback;
