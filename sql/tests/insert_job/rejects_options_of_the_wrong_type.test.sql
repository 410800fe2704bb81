-- Options of the wrong type raise AW005 and write nothing: priority and
-- max_attempts must be integers, run_at an RFC 3339 timestamp with a zone,
-- tags an array of strings, metadata an object.
begin;
select plan(27);

create temp table counts_before as select awa_test.row_counts() as c;

select t.* from (values
  ($$select * from awa.insert_job('noop', '{}', '{"priority": "1"}')$$, 'AW005', 'awa: opts.priority must be an integer, got "1"', 'priority as a string raises AW005', 'priority as a string writes nothing'),
  ($$select * from awa.insert_job('noop', '{}', '{"priority": 1.5}')$$, 'AW005', 'awa: opts.priority must be an integer, got 1.5', 'priority 1.5 raises AW005', 'priority 1.5 writes nothing'),
  ($$select * from awa.insert_job('noop', '{}', '{"priority": true}')$$, 'AW005', NULL, 'priority as a boolean raises AW005', 'priority as a boolean writes nothing'),
  ($$select * from awa.insert_job('noop', '{}', '{"max_attempts": "3"}')$$, 'AW005', 'awa: opts.max_attempts must be an integer, got "3"', 'max_attempts as a string raises AW005', 'max_attempts as a string writes nothing'),
  ($$select * from awa.insert_job('noop', '{}', '{"max_attempts": 2.5}')$$, 'AW005', NULL, 'max_attempts 2.5 raises AW005', 'max_attempts 2.5 writes nothing'),
  ($$select * from awa.insert_job('noop', '{}', '{"run_at": "tomorrow"}')$$, 'AW005', 'awa: opts.run_at must be an RFC 3339 timestamp with a time zone, got "tomorrow"', 'run_at that is not a timestamp raises AW005', 'run_at that is not a timestamp writes nothing'),
  ($$select * from awa.insert_job('noop', '{}', '{"run_at": 1893456000}')$$, 'AW005', NULL, 'run_at as a number (epoch) raises AW005', 'run_at as a number writes nothing'),
  ($$select * from awa.insert_job('noop', '{}', '{"run_at": "2030-01-01T12:00:00"}')$$, 'AW005', NULL, 'run_at without a time zone raises AW005', 'run_at without a time zone writes nothing'),
  ($$select * from awa.insert_job('noop', '{}', '{"run_at": "2030-02-30T12:00:00Z"}')$$, 'AW005', NULL, 'run_at on an impossible date (February 30) raises AW005', 'run_at on an impossible date writes nothing'),
  ($$select * from awa.insert_job('noop', '{}', '{"tags": "a,b"}')$$, 'AW005', 'awa: opts.tags must be an array of strings, got "a,b"', 'tags that are not an array raise AW005', 'tags that are not an array write nothing'),
  ($$select * from awa.insert_job('noop', '{}', '{"tags": ["a", 2]}')$$, 'AW005', 'awa: opts.tags must be an array of strings, got element 2', 'a tag that is not a string raises AW005', 'a tag that is not a string writes nothing'),
  ($$select * from awa.insert_job('noop', '{}', '{"metadata": ["x"]}')$$, 'AW005', 'awa: opts.metadata must be a JSON object, got ["x"]', 'metadata that is not an object raises AW005', 'metadata that is not an object writes nothing'),
  ($$select * from awa.insert_job('noop', '{}', '{"metadata": null}')$$, 'AW005', NULL, 'metadata as JSON null raises AW005', 'metadata as JSON null writes nothing')
) as c (call, sqlstate, message, raises, nothing)
cross join lateral awa_test.raises_writing_nothing(c.call, c.sqlstate, c.message, c.raises, c.nothing) t;

select is(awa_test.row_counts(), (select c from counts_before), 'no awa table gained or lost a row');

select * from finish();
rollback;
