-- Jobs of one claim that sit in two ready slots (the queue ring rotated
-- between their inserts) are recorded as one claim batch per ready slot; each
-- receipt points into its own batch and every attempt can be finalized.
begin;
select plan(5);

select * from awa.insert_job('old', '{}', '{"queue": "slots"}');
select is((select outcome from awa.rotate_ring('queue', '2030-01-01 11:00:00+00')), 'rotated', 'setup: the queue ring rotates');
select * from awa.insert_job('new', '{}', '{"queue": "slots"}');

create temp table claimed as select * from awa.claim_ready_runtime('slots', 10, null, '2030-01-01 12:00:00+00');

select bag_eq($$select kind from claimed$$, array['old', 'new'], 'both jobs are claimed');
select results_eq(
  $$select ready_slot, cardinality(job_ids) from awa.claim_batches where queue = 'slots' order by ready_slot$$,
  $$values (0, 1), (1, 1)$$,
  'one claim batch per ready slot drawn from');
select bag_eq(
  $$select c.id, c.receipt_id >> 10 from claimed c$$,
  $$select b.job_ids[1], b.batch_id from awa.claim_batches b where b.queue = 'slots'$$,
  'each receipt names the batch of its ready slot');
select results_eq(
  $$select outcome, count(*) from awa.complete_jobs(array(select id from claimed), array(select run_lease from claimed),
      array(select claim_slot from claimed), array(select receipt_id from claimed), '2030-01-01 12:00:05+00') group by outcome$$,
  $$values ('applied'::awa.finalize_outcome, 2::bigint)$$,
  'both attempts complete');

select * from finish();
rollback;
