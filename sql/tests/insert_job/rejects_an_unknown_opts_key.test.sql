-- An opts key insert_job does not know raises AW004 (naming the key) and
-- writes nothing, even when every other key is valid.
begin;
select plan(5);

-- Runs a prepared statement and swallows the awa error (class AW) it raises,
-- so awa_test.writes_nothing sees every tuple it wrote, even rolled back.
create temp table counts_before as select awa_test.row_counts() as c;

prepare unknown_key as select * from awa.insert_job('noop', '{}', '{"bogus": 1}');
select throws_ok('unknown_key', 'AW004', 'awa: unknown option ''bogus''', 'an unknown opts key raises AW004 naming it');
select awa_test.writes_nothing($$select awa_test.attempt('unknown_key')$$, 'an unknown opts key writes nothing');

prepare unknown_among_valid as
  select * from awa.insert_job('noop', '{}', '{"queue": "q", "priority": 1, "run_in": "5m"}');
select throws_ok('unknown_among_valid', 'AW004', 'awa: unknown option ''run_in''',
  'an unknown key next to valid keys raises AW004');
select awa_test.writes_nothing($$select awa_test.attempt('unknown_among_valid')$$,
  'an unknown key next to valid keys writes nothing');

select is(awa_test.row_counts(), (select c from counts_before), 'no awa table gained or lost a row');

select * from finish();
rollback;
