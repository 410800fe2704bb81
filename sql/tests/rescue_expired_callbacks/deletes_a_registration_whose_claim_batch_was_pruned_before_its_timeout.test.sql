-- A handler registered a callback and then finished its attempt otherwise
-- (complete_jobs): once prune has reclaimed the attempt's claim batch, the
-- rescue deletes the registration, long before its timeout (it lingered until
-- the timeout before, up to 365 days). A waiting attempt's registration, its
-- batch retained, stays; nothing is retried.
begin;
select plan(3);

create temp table c1 as select * from awa_test.claim_one('k', '{}', '{"queue": "rp"}', now());
create temp table r1 as
  select r.* from c1 c, awa.register_callback(c.id, c.run_lease, c.claim_slot, c.receipt_id, interval '30 days') r;
select f.outcome from c1 c, awa.complete_jobs(array[c.id], array[c.run_lease], array[c.claim_slot], array[c.receipt_id]) f;
select outcome from awa.rotate_ring('claim', now());
create temp table c2 as select * from awa_test.claim_one('k', '{}', '{"queue": "rp"}', now());
create temp table r2 as
  select r.* from c2 c, awa.register_callback(c.id, c.run_lease, c.claim_slot, c.receipt_id, interval '30 days') r;
select is((select outcome from awa.prune_ring('claim')), 'pruned', 'the first attempt''s claim slot is pruned');

select is_empty($$select * from awa.rescue_expired_callbacks(1000)$$, 'nothing is retried');
select results_eq($$select job_id from awa.callbacks$$, $$select id from c2$$,
                  'only the waiting attempt''s registration is left');

select * from finish();
rollback;
