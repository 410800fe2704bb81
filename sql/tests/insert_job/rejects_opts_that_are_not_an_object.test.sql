-- opts must be a JSON object: an array, a string or a number raises AW005 and
-- writes nothing.
begin;
select plan(7);

create temp table counts_before as select awa_test.row_counts() as c;

select t.* from (values
  ($$select * from awa.insert_job('noop', '{}', '[{"queue": "q"}]')$$, 'AW005', 'awa: opts must be a JSON object, got [{"queue": "q"}]', 'opts as an array raises AW005', 'opts as an array writes nothing'),
  ($$select * from awa.insert_job('noop', '{}', '"queue=q"')$$, 'AW005', NULL, 'opts as a string raises AW005', 'opts as a string writes nothing'),
  ($$select * from awa.insert_job('noop', '{}', '1')$$, 'AW005', NULL, 'opts as a number raises AW005', 'opts as a number writes nothing')
) as c (call, sqlstate, message, raises, nothing)
cross join lateral awa_test.raises_writing_nothing(c.call, c.sqlstate, c.message, c.raises, c.nothing) t;

select is(awa_test.row_counts(), (select c from counts_before), 'no awa table gained or lost a row');

select * from finish();
rollback;
