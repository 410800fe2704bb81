-- insert_job with opts.unique: a duplicate returns the job holding the key
-- (its id and state), and inserts nothing.
begin;
select plan(2);

create temp table holder as select * from awa.insert_job('ij1.k', '{}', '{"queue": "ij1", "unique": {}}');
select results_eq($$select * from awa.insert_job('ij1.k', '{"other": true}', '{"queue": "ij1", "unique": {}}')$$,
                  $$select * from holder$$, 'the second insert returns the first job');
select is((select count(*) from awa.ready_entries where queue = 'ij1'), 1::bigint, 'one ready row');

select * from finish();
rollback;
