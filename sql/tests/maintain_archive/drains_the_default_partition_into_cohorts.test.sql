-- Chunks that reached the DEFAULT partition (a copy found no cohort for them)
-- are moved to their cohorts, created then; expired ones are dropped; the
-- DEFAULT partition is empty again and storage_status shows it blocked while
-- it is not.
begin;
select plan(5);

select awa_test.completed_job('aq');
select * from awa.rotate_ring('queue', now());
select * from awa.prune_ring('queue');
insert into awa.archived_chunks_default (expires_at, state, queue, kind, chunk_id, min_job_id, max_job_id, n, job_ids,
  run_leases, attempts, max_attempts, priorities, args, tags, metadata, errors, created_ats, run_ats, finalized_ats)
select now() - interval '1 hour', 'failed', 'aq', 'old', nextval('awa.archive_chunk_id_seq'), -1, -1, 1, '{-1}', '{1}',
       '{1}', '{1}', '{2}', array['{}'::jsonb], null, array['{}'::jsonb], array[null::jsonb], array[now()], array[now()],
       array[now()];
select results_eq($$select status, cause from awa.storage_status() where ring = 'archive' and role = 'default'$$,
                  $$values ('blocked'::text, 'default'::text)$$, 'storage_status shows the DEFAULT partition blocked');

select results_eq($$select action, outcome, rows from awa.maintain_archive() where action = 'drain'$$,
                  $$values ('drain'::text, 'drained'::text, 2::bigint)$$, 'the pass drains both jobs');
select is((select count(*)::int from awa.archived_chunks_default), 0, 'DEFAULT is empty again');
select results_eq($$select job_id from awa_test.archived_jobs$$, $$select id from awa.terminal_jobs where queue = 'aq'$$,
                  'the live job moved to its cohort, the expired one went');
select is((select status from awa.storage_status() where ring = 'archive' and role = 'default'), 'empty',
          'storage_status shows it empty');

select * from finish();
rollback;
