-- Counts move with the job: available -> running -> completed; an empty
-- substrate has no rows.
begin;
select plan(4);

select is_empty($$select * from awa.queue_counts()$$, 'no jobs, no rows');

select * from awa.insert_jobs(array['cnt.k', 'cnt.k', 'cnt.k'], null,
                              array['{"queue": "qc"}', '{"queue": "qc"}', '{"queue": "qc"}']::jsonb[]);
select results_eq($$select available, running, completed from awa.queue_counts('qc')$$,
                  $$values (3::bigint, 0::bigint, 0::bigint)$$, 'three inserted jobs are available');

create temp table c as select * from awa.claim_ready_runtime('qc', 2, null, now());
select results_eq($$select available, running, completed from awa.queue_counts('qc')$$,
                  $$values (1::bigint, 2::bigint, 0::bigint)$$, 'two claimed jobs are running');

select * from awa.complete_jobs((select array_agg(id) from c), (select array_agg(run_lease) from c),
                                (select array_agg(claim_slot) from c), (select array_agg(receipt_id) from c), now());
select results_eq($$select available, running, completed from awa.queue_counts('qc')$$,
                  $$values (1::bigint, 0::bigint, 2::bigint)$$, 'two completed jobs are counted completed');

select * from finish();
rollback;
