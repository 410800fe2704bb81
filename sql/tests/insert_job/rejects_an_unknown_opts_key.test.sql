-- An opts key insert_job does not know raises AW004 (naming the key) and
-- writes nothing, even when every other key is valid.
begin;
select plan(5);

create temp table counts_before as select awa_test.row_counts() as c;

select t.* from (values
  ($$select * from awa.insert_job('noop', '{}', '{"bogus": 1}')$$, 'AW004', 'awa: unknown option ''bogus''', 'an unknown opts key raises AW004 naming it', 'an unknown opts key writes nothing'),
  ($$select * from awa.insert_job('noop', '{}', '{"queue": "q", "priority": 1, "run_in": "5m"}')$$, 'AW004', 'awa: unknown option ''run_in''', 'an unknown key next to valid keys raises AW004', 'an unknown key next to valid keys writes nothing')
) as c (call, sqlstate, message, raises, nothing)
cross join lateral awa_test.raises_writing_nothing(c.call, c.sqlstate, c.message, c.raises, c.nothing) t;

select is(awa_test.row_counts(), (select c from counts_before), 'no awa table gained or lost a row');

select * from finish();
rollback;
