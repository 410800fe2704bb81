-- opts must be a JSON object: an array, a string or a number raises AW005 and
-- writes nothing.
begin;
select plan(7);

create temp table counts_before as select awa_test.row_counts() as c;

prepare opts_array as select * from awa.insert_job('noop', '{}', '[{"queue": "q"}]');
select throws_ok('opts_array', 'AW005', 'awa: opts must be a JSON object, got [{"queue": "q"}]', 'opts as an array raises AW005');
select awa_test.writes_nothing($$select awa_test.attempt('opts_array')$$, 'opts as an array writes nothing');

prepare opts_string as select * from awa.insert_job('noop', '{}', '"queue=q"');
select throws_ok('opts_string', 'AW005', NULL, 'opts as a string raises AW005');
select awa_test.writes_nothing($$select awa_test.attempt('opts_string')$$, 'opts as a string writes nothing');

prepare opts_number as select * from awa.insert_job('noop', '{}', '1');
select throws_ok('opts_number', 'AW005', NULL, 'opts as a number raises AW005');
select awa_test.writes_nothing($$select awa_test.attempt('opts_number')$$, 'opts as a number writes nothing');

select is(awa_test.row_counts(), (select c from counts_before), 'no awa table gained or lost a row');

select * from finish();
rollback;
