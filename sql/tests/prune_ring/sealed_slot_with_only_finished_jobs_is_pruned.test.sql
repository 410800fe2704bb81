-- Once every job drawn from a sealed queue slot is finished (completed,
-- failed, retried), prune truncates the slot's children.
begin;
select plan(9);

select * from awa.insert_jobs(array['prune.k', 'prune.k', 'prune.k'], null,
                              array['{"queue": "nq"}', '{"queue": "nq"}', '{"queue": "nq", "max_attempts": 3}']::jsonb[]);
create temp table c as select * from awa.claim_ready_runtime('nq', 3, null, now());
create temp table ids as select array_agg(id order by id) as a from c;

select * from awa.complete_jobs(array[(select id from c order by id limit 1)],
                                array[(select run_lease from c order by id limit 1)],
                                array[(select claim_slot from c order by id limit 1)],
                                array[(select receipt_id from c order by id limit 1)], now());
select * from awa.fail_jobs(array[(select id from c order by id offset 1 limit 1)],
                            array[(select run_lease from c order by id offset 1 limit 1)],
                            array[(select claim_slot from c order by id offset 1 limit 1)],
                            array[(select receipt_id from c order by id offset 1 limit 1)], array['bad'], now());
select * from awa.retry_jobs(array[(select id from c order by id offset 2)],
                             array[(select run_lease from c order by id offset 2)],
                             array[(select claim_slot from c order by id offset 2)],
                             array[(select receipt_id from c order by id offset 2)], array['again'], null, now());

select results_eq(
  $$select outcome from awa.rotate_ring('queue', now())$$, $$values ('rotated'::text)$$, 'slot 0 is sealed (fixture)');

select results_eq(
  $$select ring, action, outcome, slot, generation, detail from awa.prune_ring('queue')$$,
  $$values ('queue'::text, 'prune'::text, 'pruned'::text, 0, 1::bigint, 'truncated slot 0'::text)$$,
  'the sealed slot 0 is pruned');

select is((select count(*)::int from awa.ready_entries_0), 0, 'awa.ready_entries_0 is empty');
select is((select count(*)::int from awa.done_completions_0), 0, 'awa.done_completions_0 is empty');
select is((select count(*)::int from awa.done_entries_0), 0, 'awa.done_entries_0 is empty');
select is((select count(*)::int from awa.ready_tombstones_0), 0, 'awa.ready_tombstones_0 is empty');

select is((select state from awa.jobs where id = (select a[3] from ids)), 'retryable'::awa.job_state,
          'the retryable job lives on in the backlog');

select results_eq(
  $$select outcome from awa.prune_ring('queue')$$, $$values ('already_empty'::text)$$,
  'a second prune finds nothing sealed');

select is(current_setting('lock_timeout'), '0', 'prune restores lock_timeout');

select * from finish();
rollback;
