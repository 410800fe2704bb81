-- rows counts each child table up to count_limit; rows_capped says a count
-- stopped there.
begin;
select plan(2);

select * from awa.insert_jobs(array_fill('cap.k'::text, array[5]), null, array_fill('{"queue": "cap_q"}'::jsonb, array[5]));
select results_eq($$select rows, rows_capped from awa.storage_status(3) where ring = 'queue' and role = 'current'$$,
                  $$values (3::bigint, true)$$, 'a count past the limit stops at it and says so');
select results_eq($$select rows, rows_capped from awa.storage_status(5) where ring = 'queue' and role = 'current'$$,
                  $$values (5::bigint, false)$$, 'a count at the limit is exact');

select * from finish();
rollback;
