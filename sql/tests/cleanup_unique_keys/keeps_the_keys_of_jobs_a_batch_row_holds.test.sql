-- A uniqueness key whose job a batch row (awa.ready_batches) still holds is
-- kept: the job is in the queue ring, found by its row's id block. A key
-- naming an id of the row's block past its last item names no job and goes.
begin;
select plan(2);

delete from awa.unique_keys;
delete from awa.unique_released;
create temp table ids as
select awa_test.batch_row(array['ck.k', 'ck.k'], null, null) as ids;
insert into awa.unique_keys (unique_key, job_id, states, taken_at)
select convert_to(g::text, 'UTF8'), g, '{available}', now()
from ids, unnest(array[ids[1], ids[2], ids[2] + 1]) as g;

select results_eq($$select job_id, displaced from awa.cleanup_unique_keys()$$,
                  $$select ids[2] + 1, false from ids$$,
                  'only the key of the id the row does not hold is removed');
select results_eq($$select job_id from awa.unique_keys order by job_id$$,
                  $$select g from ids, unnest(array[ids[1], ids[2]]) as g order by g$$,
                  'the keys of the row''s jobs stay');

select * from finish();
rollback;
