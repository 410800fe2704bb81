-- awa._open_receipts, the one definition of an open attempt: every claim
-- batch item whose receipt no closure covers, with its job, run_lease and
-- lane position. A completion or a cancel closes an item, and it leaves the
-- view; the other items of its batch stay.
begin;
select plan(3);

select * from awa.insert_jobs(array['a', 'b', 'c'], null, array_fill('{"queue": "op"}'::jsonb, array[3]));
create temp table got as select row_number() over () as ord, * from awa.claim_ready_runtime('op', 3, null, now());

select results_eq(
  $$select o.job_id, o.run_lease, o.issued_slot, o.receipt_id, o.lane_seq from awa._open_receipts o
    where o.queue = 'op' order by o.receipt_id$$,
  $$select g.id, g.run_lease, g.claim_slot, g.receipt_id, r.lane_seq from got g
    join awa.ready_entries r on r.job_id = g.id order by g.receipt_id$$,
  'every claimed item is open, with its job, run_lease, receipt and lane position');

select * from awa.complete_jobs(array[(select id from got where ord = 1)], array[1::bigint],
                                array[(select claim_slot from got where ord = 1)],
                                array[(select receipt_id from got where ord = 1)]);
select * from awa.cancel_job((select id from got where ord = 3));
select results_eq(
  $$select o.job_id from awa._open_receipts o where o.queue = 'op'$$,
  $$select id from got where ord = 2$$,
  'a completed and a cancelled item leave the view, the batch''s other item stays');
select is((select count(*) from awa.jobs j where j.queue = 'op' and j.state = 'running'), 1::bigint,
          'awa.jobs shows the open item as the one running job');

select * from finish();
rollback;
