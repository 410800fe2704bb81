-- opts.queue must be a string of 1 to 50 characters from [A-Za-z0-9_.:-]:
-- anything else raises AW002 and writes nothing.
begin;
select plan(16);

create temp table counts_before as select awa_test.row_counts() as c;

select t.* from (values
  ($$select * from awa.insert_job('noop', '{}', '{"queue": ""}')$$, 'AW002', 'awa: queue must be 1 to 50 characters of [A-Za-z0-9_.:-], got ''''', 'an empty queue raises AW002', 'an empty queue writes nothing'),
  ($$select * from awa.insert_job('noop', '{}', jsonb_build_object('queue', repeat('q', 51)))$$, 'AW002', NULL, 'a 51-character queue raises AW002', 'a 51-character queue writes nothing'),
  ($$select * from awa.insert_job('noop', '{}', '{"queue": "my queue"}')$$, 'AW002', 'awa: queue must be 1 to 50 characters of [A-Za-z0-9_.:-], got ''my queue''', 'a queue with a space raises AW002', 'a queue with a space writes nothing'),
  ($$select * from awa.insert_job('noop', '{}', '{"queue": "a/b"}')$$, 'AW002', NULL, 'a queue with a slash raises AW002', 'a queue with a slash writes nothing'),
  ($$select * from awa.insert_job('noop', '{}', '{"queue": "état"}')$$, 'AW002', NULL, 'a queue with a non-ASCII letter raises AW002', 'a queue with a non-ASCII letter writes nothing'),
  ($$select * from awa.insert_job('noop', '{}', '{"queue": 7}')$$, 'AW002', 'awa: opts.queue must be a string, got 7', 'a queue that is not a string raises AW002', 'a queue that is not a string writes nothing'),
  ($$select * from awa.insert_job('noop', '{}', '{"queue": null}')$$, 'AW002', NULL, 'a JSON null queue raises AW002', 'a JSON null queue writes nothing')
) as c (call, sqlstate, message, raises, nothing)
cross join lateral awa_test.raises_writing_nothing(c.call, c.sqlstate, c.message, c.raises, c.nothing) t;

select is(awa_test.row_counts(), (select c from counts_before), 'no awa table gained or lost a row');

select results_eq(
  $$select queue from awa.insert_job('noop', '{}', jsonb_build_object('queue', repeat('q', 50)))
    union all select queue from awa.insert_job('noop', '{}', '{"queue": "Az09_.:-"}')$$,
  array[repeat('q', 50), 'Az09_.:-'],
  'a 50-character queue and every allowed character class are accepted');

select * from finish();
rollback;
