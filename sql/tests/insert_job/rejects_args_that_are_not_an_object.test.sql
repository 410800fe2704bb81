-- args must be a JSON object: NULL, an array, a string or a number raise AW003
-- and write nothing.
begin;
select plan(9);

create temp table counts_before as select awa_test.row_counts() as c;

select t.* from (values
  ($$select * from awa.insert_job('noop', null, '{}')$$, 'AW003', 'awa: args must be a JSON object, got null', 'NULL args raise AW003', 'NULL args write nothing'),
  ($$select * from awa.insert_job('noop', '[1, 2]', '{}')$$, 'AW003', 'awa: args must be a JSON object, got [1, 2]', 'args as an array raise AW003', 'args as an array write nothing'),
  ($$select * from awa.insert_job('noop', '"hello"', '{}')$$, 'AW003', NULL, 'args as a string raise AW003', 'args as a string write nothing'),
  ($$select * from awa.insert_job('noop', 'null', '{}')$$, 'AW003', NULL, 'args as JSON null raise AW003', 'args as JSON null write nothing')
) as c (call, sqlstate, message, raises, nothing)
cross join lateral awa_test.raises_writing_nothing(c.call, c.sqlstate, c.message, c.raises, c.nothing) t;

select is(awa_test.row_counts(), (select c from counts_before), 'no awa table gained or lost a row');

select * from finish();
rollback;
