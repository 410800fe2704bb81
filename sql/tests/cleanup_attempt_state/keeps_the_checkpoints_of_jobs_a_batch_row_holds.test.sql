-- A checkpoint of a job a batch row (awa.ready_batches) still holds is kept:
-- the job is in the queue ring, found by its row's id block. Ids of the
-- row's block past its last item are no job, and their checkpoints go.
begin;
select plan(2);

create temp table ids as
select awa_test.batch_row(array['cs.k', 'cs.k', 'cs.k'], null, null) as ids;
insert into awa.attempt_state (job_id, run_lease, progress, updated_at)
select g, 1, jsonb_build_object('id', g), now()
from ids, unnest(array[ids[1], ids[3], ids[3] + 1, ids[1] + 1023]) as g;

select results_eq($$select job_id from awa.cleanup_attempt_state() order by job_id$$,
                  $$select g from ids, unnest(array[ids[3] + 1, ids[1] + 1023]) as g order by g$$,
                  'only the checkpoints of ids the row does not hold are removed');
select results_eq($$select job_id from awa.attempt_state order by job_id$$,
                  $$select g from ids, unnest(array[ids[1], ids[3]]) as g order by g$$,
                  'the first and last jobs of the row keep theirs');

select * from finish();
rollback;
