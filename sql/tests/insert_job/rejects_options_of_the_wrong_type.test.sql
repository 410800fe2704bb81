-- Options of the wrong type raise AW005 and write nothing: priority and
-- max_attempts must be integers, run_at an RFC 3339 timestamp with a zone,
-- tags an array of strings, metadata an object.
begin;
select plan(27);

create temp table counts_before as select awa_test.row_counts() as c;

prepare priority_string as select * from awa.insert_job('noop', '{}', '{"priority": "1"}');
select throws_ok('priority_string', 'AW005', 'awa: opts.priority must be an integer, got "1"', 'priority as a string raises AW005');
select awa_test.writes_nothing($$select awa_test.attempt('priority_string')$$, 'priority as a string writes nothing');

prepare priority_fraction as select * from awa.insert_job('noop', '{}', '{"priority": 1.5}');
select throws_ok('priority_fraction', 'AW005', 'awa: opts.priority must be an integer, got 1.5', 'priority 1.5 raises AW005');
select awa_test.writes_nothing($$select awa_test.attempt('priority_fraction')$$, 'priority 1.5 writes nothing');

prepare priority_bool as select * from awa.insert_job('noop', '{}', '{"priority": true}');
select throws_ok('priority_bool', 'AW005', NULL, 'priority as a boolean raises AW005');
select awa_test.writes_nothing($$select awa_test.attempt('priority_bool')$$, 'priority as a boolean writes nothing');

prepare max_attempts_string as select * from awa.insert_job('noop', '{}', '{"max_attempts": "3"}');
select throws_ok('max_attempts_string', 'AW005', 'awa: opts.max_attempts must be an integer, got "3"', 'max_attempts as a string raises AW005');
select awa_test.writes_nothing($$select awa_test.attempt('max_attempts_string')$$, 'max_attempts as a string writes nothing');

prepare max_attempts_fraction as select * from awa.insert_job('noop', '{}', '{"max_attempts": 2.5}');
select throws_ok('max_attempts_fraction', 'AW005', NULL, 'max_attempts 2.5 raises AW005');
select awa_test.writes_nothing($$select awa_test.attempt('max_attempts_fraction')$$, 'max_attempts 2.5 writes nothing');

prepare run_at_words as select * from awa.insert_job('noop', '{}', '{"run_at": "tomorrow"}');
select throws_ok('run_at_words', 'AW005', 'awa: opts.run_at must be an RFC 3339 timestamp with a time zone, got "tomorrow"',
  'run_at that is not a timestamp raises AW005');
select awa_test.writes_nothing($$select awa_test.attempt('run_at_words')$$, 'run_at that is not a timestamp writes nothing');

prepare run_at_number as select * from awa.insert_job('noop', '{}', '{"run_at": 1893456000}');
select throws_ok('run_at_number', 'AW005', NULL, 'run_at as a number (epoch) raises AW005');
select awa_test.writes_nothing($$select awa_test.attempt('run_at_number')$$, 'run_at as a number writes nothing');

prepare run_at_no_zone as select * from awa.insert_job('noop', '{}', '{"run_at": "2030-01-01T12:00:00"}');
select throws_ok('run_at_no_zone', 'AW005', NULL, 'run_at without a time zone raises AW005');
select awa_test.writes_nothing($$select awa_test.attempt('run_at_no_zone')$$, 'run_at without a time zone writes nothing');

prepare run_at_impossible as select * from awa.insert_job('noop', '{}', '{"run_at": "2030-02-30T12:00:00Z"}');
select throws_ok('run_at_impossible', 'AW005', NULL, 'run_at on an impossible date (February 30) raises AW005');
select awa_test.writes_nothing($$select awa_test.attempt('run_at_impossible')$$, 'run_at on an impossible date writes nothing');

prepare tags_string as select * from awa.insert_job('noop', '{}', '{"tags": "a,b"}');
select throws_ok('tags_string', 'AW005', 'awa: opts.tags must be an array of strings, got "a,b"', 'tags that are not an array raise AW005');
select awa_test.writes_nothing($$select awa_test.attempt('tags_string')$$, 'tags that are not an array write nothing');

prepare tag_number as select * from awa.insert_job('noop', '{}', '{"tags": ["a", 2]}');
select throws_ok('tag_number', 'AW005', 'awa: opts.tags must be an array of strings, got element 2', 'a tag that is not a string raises AW005');
select awa_test.writes_nothing($$select awa_test.attempt('tag_number')$$, 'a tag that is not a string writes nothing');

prepare metadata_array as select * from awa.insert_job('noop', '{}', '{"metadata": ["x"]}');
select throws_ok('metadata_array', 'AW005', 'awa: opts.metadata must be a JSON object, got ["x"]', 'metadata that is not an object raises AW005');
select awa_test.writes_nothing($$select awa_test.attempt('metadata_array')$$, 'metadata that is not an object writes nothing');

prepare metadata_null as select * from awa.insert_job('noop', '{}', '{"metadata": null}');
select throws_ok('metadata_null', 'AW005', NULL, 'metadata as JSON null raises AW005');
select awa_test.writes_nothing($$select awa_test.attempt('metadata_null')$$, 'metadata as JSON null writes nothing');

select is(awa_test.row_counts(), (select c from counts_before), 'no awa table gained or lost a row');

select * from finish();
rollback;
