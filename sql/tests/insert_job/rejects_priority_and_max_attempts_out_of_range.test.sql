-- priority must be 1..4 and max_attempts 1..1000: values just outside raise
-- AW006 and write nothing; the bounds themselves are accepted.
begin;
select plan(13);

create temp table counts_before as select awa_test.row_counts() as c;

select t.* from (values
  ($$select * from awa.insert_job('noop', '{}', '{"priority": 0}')$$, 'AW006', 'awa: opts.priority must be between 1 and 4, got 0', 'priority 0 raises AW006', 'priority 0 writes nothing'),
  ($$select * from awa.insert_job('noop', '{}', '{"priority": 5}')$$, 'AW006', 'awa: opts.priority must be between 1 and 4, got 5', 'priority 5 raises AW006', 'priority 5 writes nothing'),
  ($$select * from awa.insert_job('noop', '{}', '{"max_attempts": 0}')$$, 'AW006', 'awa: opts.max_attempts must be between 1 and 1000, got 0', 'max_attempts 0 raises AW006', 'max_attempts 0 writes nothing'),
  ($$select * from awa.insert_job('noop', '{}', '{"max_attempts": 1001}')$$, 'AW006', 'awa: opts.max_attempts must be between 1 and 1000, got 1001', 'max_attempts 1001 raises AW006', 'max_attempts 1001 writes nothing')
) as c (call, sqlstate, message, raises, nothing)
cross join lateral awa_test.raises_writing_nothing(c.call, c.sqlstate, c.message, c.raises, c.nothing) t;

select is(awa_test.row_counts(), (select c from counts_before), 'no awa table gained or lost a row');

select results_eq(
  $$select priority from awa.insert_job('noop', '{}', '{"priority": 1}')
    union all select priority from awa.insert_job('noop', '{}', '{"priority": 4}')$$,
  $$values (1::smallint), (4::smallint)$$,
  'priorities 1 and 4 are accepted');
select lives_ok($$select * from awa.insert_job('noop', '{}', '{"max_attempts": 1}')$$, 'max_attempts 1 is accepted');
select lives_ok($$select * from awa.insert_job('noop', '{}', '{"max_attempts": 1000}')$$, 'max_attempts 1000 is accepted');
select is((select array_agg(max_attempts order by max_attempts) from awa.jobs where max_attempts in (1, 1000)), array[1, 1000],
  'the bound max_attempts values are stored as given');

select * from finish();
rollback;
