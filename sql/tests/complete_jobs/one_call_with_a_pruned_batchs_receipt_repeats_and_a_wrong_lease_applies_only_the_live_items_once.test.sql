-- A receipt whose claim batch was pruned (its attempt completed, the claim
-- slot then turned and truncated) is stale and writes nothing. One call
-- mixing it with two live receipts of another batch, one of them repeated,
-- and a live receipt with a wrong run_lease applies each live attempt once
-- (the repeat and the wrong lease stale), whatever their order in the call.
begin;
select plan(7);

select * from awa.insert_job('old', '{}', '{"queue": "pr"}');
create temp table c as select 'old'::text as tag, * from awa.claim_ready_runtime('pr', 1);
select is((select claim_slot from c), 0, 'setup: the old job is claimed in claim slot 0');
select results_eq($$select outcome::text from awa.complete_jobs(array(select id from c), array(select run_lease from c),
                                                                  array(select claim_slot from c), array(select receipt_id from c))$$,
                  array['applied'], 'setup: the old job completes');
select is(awa_test.turn('claim', 7), 7, 'setup: the claim ring is turned until slot 0 is the next rotation''s');
select is((select outcome from awa.prune_ring('claim')), 'pruned', 'setup: claim slot 0 is pruned');
select is((select count(*) from awa.claim_batches
           where batch_id = awa._receipt_batch_id((select receipt_id from c where tag = 'old'))), 0::bigint,
  'the old job''s claim batch is gone');

select awa_test.writes_nothing(
  $$select * from awa.complete_jobs(array(select id from c), array(select run_lease from c),
                                     array(select claim_slot from c), array(select receipt_id from c))$$,
  'completing the receipt of the pruned batch again writes nothing');

select * from awa.insert_jobs(array['x', 'y'], null, array_fill('{"queue": "pr"}'::jsonb, array[2]));
insert into c select 'live', * from awa.claim_ready_runtime('pr', 2);

-- Call order: x, pruned, x again, y, y with a wrong run_lease. (The wrong
-- lease comes after y: a receipt repeated in one call is judged by its first
-- occurrence, so before y it would make y stale too.)
create temp table call (n int, id bigint, run_lease bigint, claim_slot int, receipt_id bigint);
insert into call
select 1, id, run_lease, claim_slot, receipt_id from c where kind = 'x'
union all select 2, id, run_lease, claim_slot, receipt_id from c where tag = 'old'
union all select 3, id, run_lease, claim_slot, receipt_id from c where kind = 'x'
union all select 4, id, run_lease, claim_slot, receipt_id from c where kind = 'y'
union all select 5, id, run_lease + 1, claim_slot, receipt_id from c where kind = 'y';

select bag_eq(
  $$select job_id, run_lease, outcome::text from awa.complete_jobs(
      array(select id from call order by n), array(select run_lease from call order by n),
      array(select claim_slot from call order by n), array(select receipt_id from call order by n))$$,
  $$select id, run_lease, outcome from call join (values (1, 'applied'), (2, 'stale'), (3, 'stale'), (4, 'applied'), (5, 'stale'))
      as v (n, outcome) using (n)$$,
  'x and y are applied once each; the pruned receipt, the repeat and the wrong lease are stale');

select * from finish();
rollback;
