-- The tags of archived jobs (awa_test.archived_job_tags) follow their jobs: a
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
insert into awa.archived_chunks_default (expires_at, state, queue, kind, chunk_id, min_job_id, max_job_id, n, job_ids,
  run_leases, attempts, max_attempts, priorities, args, tags, metadata, errors, created_ats, run_ats, finalized_ats)
select now() - interval '1 hour', 'failed', 'aq', 'old', nextval('awa.archive_chunk_id_seq'), -1, -1, 1, '{-1}', '{1}',
       '{1}', '{1}', '{2}', array['{}'::jsonb], array['{x}'], array['{}'::jsonb], array[null::jsonb], array[now()],
       array[now()], array[now()];
insert into awa.archived_tags_default (expires_at, tag, state, chunk_id, min_job_id, max_job_id, job_ids)
values (now() - interval '1 hour', 'x', 'failed', currval('awa.archive_chunk_id_seq'), -1, -1, '{-1}');
select results_eq($$select t.tag, u.job_id from awa.archived_tags_default t, unnest(t.job_ids) as u (job_id) order by 2, 1$$,
                  $$values ('x'::text, -1::bigint), ('x', (select id from c)), ('y', (select id from c))$$,
                  'the copy found no cohort: the tags wait in DEFAULT with their job (fixture)');

select is((select rows from awa.maintain_archive() where action = 'drain'), 2::bigint, 'the pass drains both jobs');
select is_empty($$select * from awa.archived_tags_default$$, 'the tags'' DEFAULT partition is empty again');
create temp table cohort as select c.* from awa.archive_cohorts c
  join awa_test.archived_jobs a on a.expires_at >= c.cohort_start and a.expires_at < c.cohort_end;
select results_eq(
  format($$select t.tag, u.job_id from awa.%I t, unnest(t.job_ids) as u (job_id) order by 1$$, awa._cohort_tags_relname((select relname from cohort))),
  $$values ('x'::text, (select id from c)), ('y', (select id from c))$$,
  'its tags are in the tags'' partition of its cohort; the expired job''s tag went');

select is((select outcome from awa.maintain_archive(50, 16, (select cohort_end from cohort))
           where cohort_start = (select cohort_start from cohort)), 'dropped', 'the cohort is dropped at its end');
select is(to_regclass('awa.' || awa._cohort_tags_relname((select relname from cohort))), null,
          'with its tags'' partition');

select * from finish();
rollback;
