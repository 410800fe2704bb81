-- A retryable job keeps its whole body in the backlog, so its old ready slot
-- may be pruned; when promoted it runs with its args and errors intact.
begin;
select plan(3);

create temp table j as select * from awa.insert_job('prune.k', '{"x": 42}', '{"queue": "nq", "tags": ["t"]}');
create temp table c as select * from awa.claim_ready_runtime('nq', 1, null, now());
select * from awa.retry_jobs(array[(select id from c)], array[(select run_lease from c)], array[(select claim_slot from c)],
                             array[(select receipt_id from c)], array['flaky'], array[now() + interval '1 minute'], now());
select * from awa.rotate_ring('queue', now());

select is((select outcome from awa.prune_ring('queue')), 'pruned', 'the slot of the retried attempt is pruned');

select * from awa.promote_due_jobs(100, now() + interval '2 minutes');
select results_eq(
  $$select id, attempt, run_lease, args, tags, errors -> 0 ->> 'error'
    from awa.claim_ready_runtime('nq', 1, null, now() + interval '2 minutes')$$,
  $$select id, 2, 2::bigint, '{"x": 42}'::jsonb, array['t'], 'flaky' from j$$,
  'the promoted job is claimed as attempt 2 with its args, tags and error');

select is((select ready_slot from awa.ready_entries where job_id = (select id from j)), 1,
          'its new ready row is in the current slot');

select * from finish();
rollback;
