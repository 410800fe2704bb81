-- An archive cohort's rows are its jobs, not its chunks: 5 jobs of one
-- queue archived in one chunk show as 5 rows, and a count limit below that
-- caps it (rows_capped).
begin;
select plan(3);

select count(*) from awa.maintain_archive();
select count(*) from awa.insert_jobs(array_fill('ss.k'::text, array[5]), null,
                                     array_fill('{"queue": "ssq"}'::jsonb, array[5]));
select is(awa_test.complete_and_archive('ssq'), 5, 'five jobs complete and are archived in one chunk (fixture)');

select results_eq($$select rows, rows_capped from awa.storage_status() where ring = 'archive' and status = 'retained'$$,
                  $$values (5::bigint, false)$$, 'the cohort shows its 5 jobs');
select results_eq($$select rows, rows_capped from awa.storage_status(3) where ring = 'archive' and status = 'retained'$$,
                  $$values (3::bigint, true)$$, 'a count limit of 3 caps it');

select * from finish();
rollback;
