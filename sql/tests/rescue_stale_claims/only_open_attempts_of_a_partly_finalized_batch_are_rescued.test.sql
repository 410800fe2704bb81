-- In a claim batch where the worker already finalized some jobs, a rescue
-- closes only the attempts still open; the finalized ones keep their outcome.
begin;
select plan(3);

select * from awa.insert_jobs(array['rescue.k', 'rescue.k', 'rescue.k'], null,
                              array['{"queue": "rq"}', '{"queue": "rq"}', '{"queue": "rq"}']::jsonb[]);
create temp table c as select * from awa.claim_ready_runtime('rq', 3, null, now());
create temp table done as select * from c order by receipt_id limit 1;
select * from awa.complete_jobs(array[(select id from done)], array[(select run_lease from done)],
                                array[(select claim_slot from done)], array[(select receipt_id from done)], now());

select bag_eq(
  $$select job_id, state from awa.rescue_stale_claims(interval '90 seconds', 1000, now() + interval '91 seconds')$$,
  $$select id, 'retryable'::awa.job_state from c where id <> (select id from done)$$,
  'only the two open attempts are rescued');

select is((select state from awa.jobs where id = (select id from done)), 'completed'::awa.job_state,
          'the completed job stays completed');

select is((select count(*)::int from awa.jobs where state = 'running'), 0, 'nothing is left running');

select * from finish();
rollback;
