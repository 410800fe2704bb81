-- Each bad opts.unique value, and each bad batch shape, raises its documented
-- SQLSTATE (docs/errors.md) and writes nothing; the whole batch fails with
-- it, the good jobs included.
begin;
select plan(31);

create temp table counts_before as select awa_test.row_counts() as c;

select t.* from (values
  ($$select * from awa.insert_unique_jobs(array['ok', 'ok'], null, array['{"unique": {}}', '{"unique": true}']::jsonb[])$$,
   'AW005', 'awa: opts.unique must be a JSON object, got true', 'unique not an object raises AW005'),
  ($$select * from awa.insert_unique_jobs(array['ok'], null, array['{"unique": {"by_kind": true}}']::jsonb[])$$,
   'AW004', 'awa: unknown option ''unique.by_kind''', 'an unknown unique option raises AW004'),
  ($$select * from awa.insert_unique_jobs(array['ok'], null, array['{"unique": {"key": 7}}']::jsonb[])$$,
   'AW005', 'awa: opts.unique.key must be a string, got 7', 'a key that is not a string raises AW005'),
  ($$select * from awa.insert_unique_jobs(array['ok'], null, array['{"unique": {"key": ""}}']::jsonb[])$$,
   'AW006', 'awa: opts.unique.key must be 1 to 1000 characters, got 0', 'an empty key raises AW006'),
  ($$select * from awa.insert_unique_jobs(array['ok'], null, array[jsonb_build_object('unique', jsonb_build_object('key', repeat('k', 1001)))])$$,
   'AW006', 'awa: opts.unique.key must be 1 to 1000 characters, got 1001', 'a key of 1001 characters raises AW006'),
  ($$select * from awa.insert_unique_jobs(array['ok'], null, array['{"unique": {"by_args": "a"}}']::jsonb[])$$,
   'AW005', 'awa: opts.unique.by_args must be a boolean or an array of 1 to 100 arg names, got "a"', 'by_args a string raises AW005'),
  ($$select * from awa.insert_unique_jobs(array['ok'], null, array['{"unique": {"by_args": []}}']::jsonb[])$$,
   'AW005', 'awa: opts.unique.by_args must be a boolean or an array of 1 to 100 arg names, got []', 'by_args an empty array raises AW005'),
  ($$select * from awa.insert_unique_jobs(array['ok'], null, array['{"unique": {"by_args": ["a", 1]}}']::jsonb[])$$,
   'AW005', 'awa: opts.unique.by_args must be a boolean or an array of 1 to 100 arg names, got ["a", 1]', 'by_args with a non-string name raises AW005'),
  ($$select * from awa.insert_unique_jobs(array['ok'], null, array['{"unique": {"by_queue": 1}}']::jsonb[])$$,
   'AW005', 'awa: opts.unique.by_queue must be a boolean, got 1', 'by_queue not a boolean raises AW005'),
  ($$select * from awa.insert_unique_jobs(array['ok'], null, array['{"unique": {"by_period": 1.5}}']::jsonb[])$$,
   'AW005', 'awa: opts.unique.by_period must be an integer of seconds, got 1.5', 'a fractional by_period raises AW005'),
  ($$select * from awa.insert_unique_jobs(array['ok'], null, array['{"unique": {"by_period": 0}}']::jsonb[])$$,
   'AW006', 'awa: opts.unique.by_period must be between 1 and 31536000, got 0', 'by_period 0 raises AW006'),
  ($$select * from awa.insert_unique_jobs(array['ok'], null, array['{"unique": {"states": ["available", "scheduled", "running", "retryable"]}}']::jsonb[])$$,
   'AW005', NULL, 'states without waiting_external raises AW005'),
  ($$select * from awa.insert_unique_jobs(array['ok'], null, array['{"unique": {"states": ["available", "scheduled", "running", "retryable", "waiting_external", "done"]}}']::jsonb[])$$,
   'AW005', NULL, 'states naming an unknown state raises AW005'),
  ($$select * from awa.insert_unique_jobs(array['ok', 'ok'], array['{}']::jsonb[], null)$$,
   'AW010', 'awa: args holds 1 elements for 2 kinds', 'args of another length raises AW010'),
  ($$select * from awa.insert_unique_jobs(array[]::text[])$$,
   'AW010', 'awa: kinds must hold 1 to 10000 jobs, got 0', 'an empty batch raises AW010')
) as c (call, sqlstate, message, raises)
cross join lateral awa_test.raises_writing_nothing(c.call, c.sqlstate, c.message, c.raises) t;

select is(awa_test.row_counts(), (select c from counts_before), 'no awa table gained or lost a row');

select * from finish();
rollback;
