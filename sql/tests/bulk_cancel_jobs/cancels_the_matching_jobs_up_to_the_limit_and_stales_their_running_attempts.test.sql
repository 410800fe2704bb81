-- bulk_cancel_jobs cancels the unfinished jobs of a filter, newest first, up
-- to the limit, as cancel_job does: a running job's attempt is closed (the
-- worker's late complete is stale); other queues' jobs are not touched.
begin;
select plan(5);

create temp table r as select * from awa_test.claim_one('bulk.k', '{}', '{"queue": "bq"}', now());
create temp table a as select id from awa.insert_jobs(array_fill('bulk.k'::text, array[3]), null,
                                                      array_fill('{"queue": "bq"}'::jsonb, array[3]));
select * from awa.insert_job('bulk.k', '{}', '{"queue": "other"}');

select results_eq(
  $$select job_id, outcome, state from awa.bulk_cancel_jobs(p_queue => 'bq', p_limit => 2)$$,
  $$select id, 'applied'::text, 'cancelled'::awa.job_state from a order by id desc limit 2$$,
  'the two newest matching jobs are cancelled');
select results_eq(
  $$select job_id, outcome, state from awa.bulk_cancel_jobs(p_queue => 'bq')$$,
  $$select id, 'applied'::text, 'cancelled'::awa.job_state from (select min(id) as id from a union all select id from r) x order by id desc$$,
  'the rest follow, the running one included');
select results_eq(
  $$select outcome from r, awa.complete_jobs(array[r.id], array[r.run_lease], array[r.claim_slot], array[r.receipt_id])$$,
  $$values ('stale'::awa.finalize_outcome)$$, 'the running job''s late complete is stale');
select is((select available from awa.queue_counts('other')), 1::bigint, 'another queue''s job is untouched');
select is((select count(*) from awa.bulk_cancel_jobs(p_queue => 'bq')), 0::bigint, 'nothing is left to cancel');

select * from finish();
rollback;
