-- args and opts, when given, must have one element per kind: a length
-- mismatch raises AW010 and writes nothing.
begin;
select plan(9);

create temp table counts_before as select awa_test.row_counts() as c;

prepare args_short as select * from awa.insert_jobs(array['a', 'b'], array['{}']::jsonb[], null);
select throws_ok('args_short', 'AW010', 'awa: args holds 1 elements for 2 kinds', 'fewer args than kinds raise AW010');
select awa_test.writes_nothing($$select awa_test.attempt('args_short')$$, 'fewer args than kinds write nothing');

prepare args_long as select * from awa.insert_jobs(array['a'], array['{}', '{}']::jsonb[], null);
select throws_ok('args_long', 'AW010', NULL, 'more args than kinds raise AW010');
select awa_test.writes_nothing($$select awa_test.attempt('args_long')$$, 'more args than kinds write nothing');

prepare opts_short as select * from awa.insert_jobs(array['a', 'b', 'c'], null, array['{}', '{}']::jsonb[]);
select throws_ok('opts_short', 'AW010', 'awa: opts holds 2 elements for 3 kinds', 'fewer opts than kinds raise AW010');
select awa_test.writes_nothing($$select awa_test.attempt('opts_short')$$, 'fewer opts than kinds write nothing');

prepare args_empty as select * from awa.insert_jobs(array['a'], array[]::jsonb[], null);
select throws_ok('args_empty', 'AW010', NULL, 'an empty args array for one kind raises AW010');
select awa_test.writes_nothing($$select awa_test.attempt('args_empty')$$, 'an empty args array for one kind writes nothing');

select is(awa_test.row_counts(), (select c from counts_before), 'no awa table gained or lost a row');

select * from finish();
rollback;
