-- After the operator cancels the job at the head of a lane, a claim of a
-- single job still returns the next available job rather than nothing.
begin;
select plan(2);

create temp table a as select * from awa.insert_job('cancel.k', '{}', '{"queue": "cq"}');
create temp table b as select * from awa.insert_job('cancel.k', '{}', '{"queue": "cq"}');
select * from awa.cancel_job((select id from a), null, now());

select results_eq($$select id from awa.claim_ready_runtime('cq', 1, null, now())$$, $$select id from b$$,
                  'a claim of one skips the tombstoned head and returns the next job');
select is((select available from awa.queue_counts('cq')), 0::bigint, 'nothing is counted available afterwards');

select * from finish();
rollback;
