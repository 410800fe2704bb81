-- args must be a JSON object: NULL, an array, a string or a number raise AW003
-- and write nothing.
begin;
select plan(9);

create temp table counts_before as select awa_test.row_counts() as c;

prepare args_null as select * from awa.insert_job('noop', null, '{}');
select throws_ok('args_null', 'AW003', 'awa: args must be a JSON object, got null', 'NULL args raise AW003');
select awa_test.writes_nothing($$select awa_test.attempt('args_null')$$, 'NULL args write nothing');

prepare args_array as select * from awa.insert_job('noop', '[1, 2]', '{}');
select throws_ok('args_array', 'AW003', 'awa: args must be a JSON object, got [1, 2]', 'args as an array raise AW003');
select awa_test.writes_nothing($$select awa_test.attempt('args_array')$$, 'args as an array write nothing');

prepare args_string as select * from awa.insert_job('noop', '"hello"', '{}');
select throws_ok('args_string', 'AW003', NULL, 'args as a string raise AW003');
select awa_test.writes_nothing($$select awa_test.attempt('args_string')$$, 'args as a string write nothing');

prepare args_json_null as select * from awa.insert_job('noop', 'null', '{}');
select throws_ok('args_json_null', 'AW003', NULL, 'args as JSON null raise AW003');
select awa_test.writes_nothing($$select awa_test.attempt('args_json_null')$$, 'args as JSON null write nothing');

select is(awa_test.row_counts(), (select c from counts_before), 'no awa table gained or lost a row');

select * from finish();
rollback;
