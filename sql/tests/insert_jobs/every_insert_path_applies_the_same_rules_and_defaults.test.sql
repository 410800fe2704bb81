-- Every insert path agrees on every rule: insert_job, insert_jobs (its
-- set-based fast path and its row-by-row validation) and the staged COPY path
-- (insert_staged_jobs) raise the same SQLSTATE and message for each bad
-- request, and write nothing; for each good request they store the same job
-- (defaults applied once, awa._build_job_body). Table-driven: add a row here
-- for every new rule.
begin;
select plan(5);

select awa.open_job_stage();
create temp table cases (n serial, kind text, args jsonb, opts jsonb, want text);
insert into cases (kind, args, opts, want) values
  (null, '{}', null, 'AW001'), ('', '{}', null, 'AW001'), (repeat('k', 256), '{}', null, 'AW001'),
  ('k', null, null, 'AW003'), ('k', '[]', null, 'AW003'), ('k', '"x"', null, 'AW003'),
  ('k', '{}', '[]', 'AW005'), ('k', '{}', '{"bogus": 1}', 'AW004'),
  ('k', '{}', '{"queue": ""}', 'AW002'), ('k', '{}', '{"queue": "a b"}', 'AW002'),
  ('k', '{}', jsonb_build_object('queue', repeat('q', 51)), 'AW002'), ('k', '{}', '{"queue": 5}', 'AW002'),
  ('k', '{}', '{"priority": 0}', 'AW006'), ('k', '{}', '{"priority": 5}', 'AW006'),
  ('k', '{}', '{"priority": 2.5}', 'AW005'), ('k', '{}', '{"priority": "2"}', 'AW005'),
  ('k', '{}', '{"max_attempts": 0}', 'AW006'), ('k', '{}', '{"max_attempts": 1001}', 'AW006'),
  ('k', '{}', '{"max_attempts": "3"}', 'AW005'),
  ('k', '{}', '{"run_at": "tomorrow"}', 'AW005'), ('k', '{}', '{"run_at": "2030-02-30T00:00:00Z"}', 'AW005'),
  ('k', '{}', '{"run_at": "2030-01-01T00:00:00"}', 'AW005'), ('k', '{}', '{"run_at": 5}', 'AW005'),
  ('k', '{}', '{"tags": "x"}', 'AW005'), ('k', '{}', '{"tags": [1]}', 'AW005'), ('k', '{}', '{"tags": [""]}', 'AW007'),
  ('k', '{}', jsonb_build_object('tags', (select jsonb_agg(i::text) from generate_series(1, 21) i)), 'AW007'),
  ('k', '{}', jsonb_build_object('tags', jsonb_build_array(repeat('t', 101))), 'AW007'),
  ('k', '{}', '{"metadata": []}', 'AW005'), ('k', '{}', '{"metadata": "x"}', 'AW005'),
  -- good requests: want NULL
  ('k', '{}', null, null), ('k', '{"a": [1, {"b": null}]}', '{}', null),
  ('k', '{}', '{"queue": "q.a:b-c_1", "priority": 1, "max_attempts": 1}', null),
  ('k', '{}', '{"priority": 4, "max_attempts": 1000}', null), ('k', '{}', '{"priority": 2.0, "max_attempts": 25.0}', null),
  ('k', '{}', '{"tags": [], "metadata": {"a": null}}', null), ('k', '{}', '{"tags": ["a", "b\"c", "d,e"]}', null),
  ('k', '{}', jsonb_build_object('tags', (select jsonb_agg(i::text) from generate_series(1, 20) i))
                || jsonb_build_object('tags2', 1) - 'tags2', null),
  ('k', '{}', '{"run_at": null}', null), ('k', '{}', '{"run_at": "2000-01-01T00:00:00Z"}', null),
  ('k', '{}', '{"run_at": "2999-01-01 12:00:00.5+02:00"}', null), (repeat('k', 255), '{}', '{"queue": "default"}', null);

create temp table got as
select c.n, c.want, p.key as path, p.value as out
from cases c cross join lateral jsonb_each(awa_test.insert_paths(c.kind, c.args, c.opts)) as p;

select is((select count(distinct path)::int from got), 4, 'each request went through the four insert paths');
select is_empty(
  $$select n, want, jsonb_object_agg(path, out) from got group by n, want
    having count(distinct (out ->> 'sqlstate', out ->> 'message', out -> 'job')) > 1$$,
  'every path gives the same SQLSTATE and message, or the same job');
select is_empty(
  $$select n, want, path, out ->> 'sqlstate' from got where out ->> 'sqlstate' is distinct from want$$,
  'each bad request raises its documented SQLSTATE, and each good one succeeds');
select is_empty(
  $$select n, path, out -> 'written' from got where want is not null and out -> 'written' <> '{}'$$,
  'a bad request writes nothing on any path');
select is_empty(
  $$select n, path, out -> 'job' from got
    where want is null and (out -> 'job' is null or out #>> '{job,created_at}' is null)$$,
  'a good request stores its job on every path');

select * from finish();
rollback;
