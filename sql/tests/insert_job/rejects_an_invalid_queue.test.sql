-- opts.queue must be a string of 1 to 50 characters from [A-Za-z0-9_.:-]:
-- anything else raises AW002 and writes nothing.
begin;
select plan(16);

create temp table counts_before as select awa_test.row_counts() as c;

prepare queue_empty as select * from awa.insert_job('noop', '{}', '{"queue": ""}');
select throws_ok('queue_empty', 'AW002', 'awa: queue must be 1 to 50 characters of [A-Za-z0-9_.:-], got ''''', 'an empty queue raises AW002');
select awa_test.writes_nothing($$select awa_test.attempt('queue_empty')$$, 'an empty queue writes nothing');

prepare queue_51 as select * from awa.insert_job('noop', '{}', jsonb_build_object('queue', repeat('q', 51)));
select throws_ok('queue_51', 'AW002', NULL, 'a 51-character queue raises AW002');
select awa_test.writes_nothing($$select awa_test.attempt('queue_51')$$, 'a 51-character queue writes nothing');

prepare queue_space as select * from awa.insert_job('noop', '{}', '{"queue": "my queue"}');
select throws_ok('queue_space', 'AW002', 'awa: queue must be 1 to 50 characters of [A-Za-z0-9_.:-], got ''my queue''', 'a queue with a space raises AW002');
select awa_test.writes_nothing($$select awa_test.attempt('queue_space')$$, 'a queue with a space writes nothing');

prepare queue_slash as select * from awa.insert_job('noop', '{}', '{"queue": "a/b"}');
select throws_ok('queue_slash', 'AW002', NULL, 'a queue with a slash raises AW002');
select awa_test.writes_nothing($$select awa_test.attempt('queue_slash')$$, 'a queue with a slash writes nothing');

prepare queue_unicode as select * from awa.insert_job('noop', '{}', '{"queue": "état"}');
select throws_ok('queue_unicode', 'AW002', NULL, 'a queue with a non-ASCII letter raises AW002');
select awa_test.writes_nothing($$select awa_test.attempt('queue_unicode')$$, 'a queue with a non-ASCII letter writes nothing');

prepare queue_number as select * from awa.insert_job('noop', '{}', '{"queue": 7}');
select throws_ok('queue_number', 'AW002', 'awa: opts.queue must be a string, got 7', 'a queue that is not a string raises AW002');
select awa_test.writes_nothing($$select awa_test.attempt('queue_number')$$, 'a queue that is not a string writes nothing');

prepare queue_null as select * from awa.insert_job('noop', '{}', '{"queue": null}');
select throws_ok('queue_null', 'AW002', NULL, 'a JSON null queue raises AW002');
select awa_test.writes_nothing($$select awa_test.attempt('queue_null')$$, 'a JSON null queue writes nothing');

select is(awa_test.row_counts(), (select c from counts_before), 'no awa table gained or lost a row');

select results_eq(
  $$select queue from awa.insert_job('noop', '{}', jsonb_build_object('queue', repeat('q', 50)))
    union all select queue from awa.insert_job('noop', '{}', '{"queue": "Az09_.:-"}')$$,
  array[repeat('q', 50), 'Az09_.:-'],
  'a 50-character queue and every allowed character class are accepted');

select * from finish();
rollback;
