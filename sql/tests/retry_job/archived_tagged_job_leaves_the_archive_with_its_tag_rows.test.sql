-- retry_job of a failed job in the archive removes its tag rows
-- (awa_test.archived_job_tags) with its archived row: a listing by tag then finds
-- it once, live, and no tag row is left behind for its cohort.
begin;
select plan(4);

create temp table j as select * from awa.insert_job('retry.k', '{}', '{"queue": "rq", "tags": ["red", "blue"]}');
create temp table c as select * from awa.claim_ready_runtime('rq', 1, null, now());
select count(*) from c, awa.fail_jobs(array[c.id], array[c.run_lease], array[c.claim_slot], array[c.receipt_id],
                                      array['fatal'], now());
select * from awa.rotate_ring('queue', now());
select is((select outcome from awa.prune_ring('queue')), 'pruned', 'the failed job''s slot is pruned (fixture)');
select is((select count(*)::int from j, awa_test.archived_job_tags t where t.job_id = j.id), 2,
          'the job is archived with its two tags (fixture)');

select count(*) from j, awa.retry_job(j.id);
select is((select count(*)::int from j, awa_test.archived_job_tags t where t.job_id = j.id), 0, 'its tag rows are gone');
select results_eq($$select l.id, l.state from awa.list_jobs(p_tag => 'red') as l$$,
                  $$select id, 'available'::awa.job_state from j$$, 'a listing by tag shows it once, available again');

select * from finish();
rollback;
