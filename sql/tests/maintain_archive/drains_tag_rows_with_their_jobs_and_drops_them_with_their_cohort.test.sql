-- The tags of archived jobs (awa.archived_job_tags) follow their jobs: a
-- drain of the DEFAULT partition moves a job's tag rows to the tags'
-- partition of its cohort (an expired job's go), and the drop of a cohort
-- drops its tags' partition with it.
begin;
select plan(6);

select awa.insert_job('tagged.k', '{}', '{"queue": "aq", "tags": ["x", "y"]}');
create temp table c as select * from awa.claim_ready_runtime('aq', 1, null, now());
select awa.complete_jobs(array[c.id], array[c.run_lease], array[c.claim_slot], array[c.receipt_id], now()) from c;
select * from awa.rotate_ring('queue', now());
select * from awa.prune_ring('queue');
-- An expired job of DEFAULT with its tag, as a copy long ago would leave it.
insert into awa.archived_jobs_default (expires_at, job_id, state, run_lease, attempt, max_attempts, priority, queue, kind,
  args, tags, metadata, created_at, run_at, finalized_at)
select now() - interval '1 hour', -1, 'failed', 1, 1, 1, 2, 'aq', 'old', '{}', '{x}', '{}', now(), now(), now();
insert into awa.archived_job_tags_default (expires_at, tag, state, job_id)
values (now() - interval '1 hour', 'x', 'failed', -1);
select results_eq($$select tag, job_id from awa.archived_job_tags_default order by job_id, tag$$,
                  $$values ('x'::text, -1::bigint), ('x', (select id from c)), ('y', (select id from c))$$,
                  'the copy found no cohort: the tags wait in DEFAULT with their job (fixture)');

select is((select rows from awa.maintain_archive() where action = 'drain'), 2::bigint, 'the pass drains both jobs');
select is_empty($$select * from awa.archived_job_tags_default$$, 'the tags'' DEFAULT partition is empty again');
create temp table cohort as select c.* from awa.archive_cohorts c
  join awa.archived_jobs a on a.expires_at >= c.cohort_start and a.expires_at < c.cohort_end;
select results_eq(
  format($$select tag, job_id from awa.%I order by tag$$, awa._cohort_tags_relname((select relname from cohort))),
  $$values ('x'::text, (select id from c)), ('y', (select id from c))$$,
  'its tags are in the tags'' partition of its cohort; the expired job''s tag went');

select is((select outcome from awa.maintain_archive(50, 16, (select cohort_end from cohort))
           where cohort_start = (select cohort_start from cohort)), 'dropped', 'the cohort is dropped at its end');
select is(to_regclass('awa.' || awa._cohort_tags_relname((select relname from cohort))), null,
          'with its tags'' partition');

select * from finish();
rollback;
