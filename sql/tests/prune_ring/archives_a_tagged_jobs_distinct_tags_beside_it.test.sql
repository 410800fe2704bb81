-- The copy of a slot to the archive also writes, for each tagged job, one
-- row per distinct tag into awa_test.archived_job_tags (its expires_at, state and
-- id, so a listing by tag finds it through (tag, state, job_id)); an untagged
-- job writes none.
begin;
select plan(2);

select * from awa.insert_jobs(array['t.k', 't.k', 't.k'], null,
                              array['{"queue": "tq", "tags": ["red", "blue", "red"]}', '{"queue": "tq"}',
                                    '{"queue": "tq", "tags": ["blue"]}']::jsonb[]);
create temp table c as select * from awa.claim_ready_runtime('tq', 3, null, now());
select awa.complete_jobs(array_agg(id), array_agg(run_lease), array_agg(claim_slot), array_agg(receipt_id), now()) from c;
select * from awa.rotate_ring('queue', now());
select is((select outcome from awa.prune_ring('queue')), 'pruned', 'the slot is archived and pruned (fixture)');

select results_eq(
  $$select t.tag, t.state::text, t.job_id, t.expires_at = a.expires_at from awa_test.archived_job_tags t
    join awa_test.archived_jobs a using (job_id) order by t.job_id, t.tag$$,
  $$select * from (values ('blue'::text, 'completed'::text, (select min(id) from c), true),
                          ('red', 'completed', (select min(id) from c), true),
                          ('blue', 'completed', (select max(id) from c), true)) as v
    order by 3, 1$$,
  'one row per distinct tag of each tagged job, with its job''s expiry and state; none for the untagged job');

select * from finish();
rollback;
