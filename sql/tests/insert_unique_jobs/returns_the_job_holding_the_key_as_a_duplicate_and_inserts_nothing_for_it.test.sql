-- A second insert of a key that a job holds in the key's states comes back as
-- that job, duplicate true, and inserts nothing: no ready row, no key row, no
-- id of its own. A different key is a new job.
begin;
select plan(6);

create temp table first as
select * from awa.insert_unique_jobs(array['uq.k'], array['{"n": 1}']::jsonb[],
                                     array['{"queue": "uq", "unique": {"by_args": true}}']::jsonb[]);
create temp table counts_before as select awa_test.row_counts() as c;
create temp table second as
select * from awa.insert_unique_jobs(array['uq.k'], array['{"n": 1}']::jsonb[],
                                     array['{"queue": "uq", "unique": {"by_args": true}}']::jsonb[]);

select is((select duplicate from first), false, 'the first insert of a key is a new job');
select results_eq($$select id, state, queue, priority, kind, run_at, duplicate from second$$,
                  $$select id, state, queue, priority, kind, run_at, true from first$$,
                  'the second comes back as the first job, duplicate true');
select is(awa_test.row_counts(), (select c from counts_before), 'the duplicate wrote no row');
select is((select count(*) from awa.jobs where kind = 'uq.k'), 1::bigint, 'awa.jobs shows one job of the key');

select is((select duplicate from awa.insert_unique_jobs(array['uq.k'], array['{"n": 2}']::jsonb[],
                                     array['{"queue": "uq", "unique": {"by_args": true}}']::jsonb[])),
          false, 'other args make another key: a new job');
select is((select count(*) from awa.unique_keys), 2::bigint, 'one key row per key');

select * from finish();
rollback;
