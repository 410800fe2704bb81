-- kinds must hold 1 to 10000 jobs: an empty or NULL kinds array, or 10001
-- kinds, raise AW010 and write nothing.
begin;
select plan(7);

create temp table counts_before as select awa_test.row_counts() as c;

select t.* from (values
  ($$select * from awa.insert_jobs(array[]::text[])$$, 'AW010', 'awa: kinds must hold 1 to 10000 jobs, got 0', 'an empty kinds array raises AW010', 'an empty kinds array writes nothing'),
  ($$select * from awa.insert_jobs(null)$$, 'AW010', 'awa: kinds must hold 1 to 10000 jobs, got 0', 'a NULL kinds array raises AW010', 'a NULL kinds array writes nothing'),
  ($$select * from awa.insert_jobs(array_fill('k'::text, array[10001]))$$, 'AW010', 'awa: kinds must hold 1 to 10000 jobs, got 10001', '10001 kinds raise AW010', '10001 kinds write nothing')
) as c (call, sqlstate, message, raises, nothing)
cross join lateral awa_test.raises_writing_nothing(c.call, c.sqlstate, c.message, c.raises, c.nothing) t;

select is(awa_test.row_counts(), (select c from counts_before), 'no awa table gained or lost a row');

select * from finish();
rollback;
