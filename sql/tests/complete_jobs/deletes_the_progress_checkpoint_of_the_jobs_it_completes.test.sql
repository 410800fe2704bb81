-- Success clears the checkpoint: complete_jobs deletes the completed jobs'
-- attempt_state rows (whichever attempt wrote them) and no other job's.
begin;
select plan(3);

select * from awa.insert_jobs(array['a', 'b'], null, array_fill('{"queue": "cp"}'::jsonb, array[2]));
create temp table c as select * from awa.claim_ready_runtime('cp', 2, null, '2030-01-01 12:00:00+00');
select count(*) from c, awa.set_progress(c.id, c.run_lease, c.claim_slot, c.receipt_id, '{"step": 1}');

select is((select outcome from c, awa.complete_jobs(array[c.id], array[c.run_lease], array[c.claim_slot], array[c.receipt_id])
           where c.kind = 'a'), 'applied'::awa.finalize_outcome, 'job a completes');
select is_empty($$select * from awa.job_progress((select id from c where kind = 'a'))$$,
                'the completed job has no checkpoint left');
select isnt_empty($$select * from awa.job_progress((select id from c where kind = 'b'))$$,
                  'the other job keeps its checkpoint');

select * from finish();
rollback;
