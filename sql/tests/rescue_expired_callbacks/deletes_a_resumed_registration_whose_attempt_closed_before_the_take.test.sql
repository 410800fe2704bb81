-- A callback resumed a waiting attempt, which then closed (here the handler's
-- own complete_jobs) before its handler took the result: once its timeout has
-- passed, the rescue deletes the registration (it lingered forever before:
-- the rescue looked at unresumed registrations only). One resumed but not yet
-- taken by an open attempt stays, and neither is retried.
begin;
select plan(3);

create temp table c as select * from awa_test.claim_one('k', '{}', '{"queue": "rx"}', '2030-01-01 12:00:00+00');
create temp table r as
  select r.* from c, awa.register_callback(c.id, c.run_lease, c.claim_slot, c.receipt_id, interval '1 minute', '2030-01-01 12:00:01+00') r;
select o.outcome from r, awa.resume_external(r.callback_id, '{"ok": true}', '2030-01-01 12:00:02+00') o;
select f.outcome from c, awa.complete_jobs(array[c.id], array[c.run_lease], array[c.claim_slot], array[c.receipt_id], '2030-01-01 12:00:03+00') f;

create temp table c2 as select * from awa_test.claim_one('k', '{}', '{"queue": "rx"}', '2030-01-01 12:00:00+00');
create temp table r2 as
  select r.* from c2 c, awa.register_callback(c.id, c.run_lease, c.claim_slot, c.receipt_id, interval '1 minute', '2030-01-01 12:00:01+00') r;
select o.outcome from r2, awa.resume_external(r2.callback_id, '{"ok": 2}', '2030-01-01 12:00:02+00') o;

select is_empty($$select * from awa.rescue_expired_callbacks(1000, '2030-01-01 12:05:00+00')$$,
                'nothing is retried');
select is((select count(*) from awa.callbacks x, r where x.callback_id = r.callback_id), 0::bigint,
          'the closed attempt''s resumed registration is deleted');
select results_eq($$select w.status, w.result from c2 c, r2, awa.take_callback_result(c.id, c.run_lease, c.claim_slot, c.receipt_id, r2.callback_id) w$$,
                  $$values ('resumed'::text, '{"ok": 2}'::jsonb)$$,
                  'the open attempt still takes its result');

select * from finish();
rollback;
