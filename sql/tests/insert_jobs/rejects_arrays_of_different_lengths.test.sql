-- args and opts, when given, must have one element per kind: a length
-- mismatch raises AW010 and writes nothing.
begin;
select plan(9);

create temp table counts_before as select awa_test.row_counts() as c;

select t.* from (values
  ($$select * from awa.insert_jobs(array['a', 'b'], array['{}']::jsonb[], null)$$, 'AW010', 'awa: args holds 1 elements for 2 kinds', 'fewer args than kinds raise AW010', 'fewer args than kinds write nothing'),
  ($$select * from awa.insert_jobs(array['a'], array['{}', '{}']::jsonb[], null)$$, 'AW010', NULL, 'more args than kinds raise AW010', 'more args than kinds write nothing'),
  ($$select * from awa.insert_jobs(array['a', 'b', 'c'], null, array['{}', '{}']::jsonb[])$$, 'AW010', 'awa: opts holds 2 elements for 3 kinds', 'fewer opts than kinds raise AW010', 'fewer opts than kinds write nothing'),
  ($$select * from awa.insert_jobs(array['a'], array[]::jsonb[], null)$$, 'AW010', NULL, 'an empty args array for one kind raises AW010', 'an empty args array for one kind writes nothing')
) as c (call, sqlstate, message, raises, nothing)
cross join lateral awa_test.raises_writing_nothing(c.call, c.sqlstate, c.message, c.raises, c.nothing) t;

select is(awa_test.row_counts(), (select c from counts_before), 'no awa table gained or lost a row');

select * from finish();
rollback;
