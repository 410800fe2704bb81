-- The key: kind (or the explicit key instead), plus the queue when by_queue,
-- the args (whole or the named ones) when by_args, and the period bucket of
-- run_at when by_period. Each case inserts a first job, then asks whether a
-- second request is its duplicate.
begin;
select plan(11);

create function pg_temp.dup(p_first jsonb, p_second jsonb) returns boolean language plpgsql as $$
declare
  v_first bigint;
  v_dup   awa.insert_outcome;
begin
  select id into v_first from awa.insert_unique_job(p_first ->> 'kind', p_first -> 'args', p_first -> 'opts');
  select * into v_dup from awa.insert_unique_job(p_second ->> 'kind', p_second -> 'args', p_second -> 'opts');
  return v_dup.duplicate and v_dup.id = v_first;
end $$;

select is(pg_temp.dup('{"kind": "d1", "args": {"a": 1}, "opts": {"unique": {}}}',
                      '{"kind": "d1", "args": {"a": 2}, "opts": {"unique": {}}}'), true,
          'by kind alone: other args are a duplicate');
select is(pg_temp.dup('{"kind": "d2", "args": {}, "opts": {"queue": "q1", "unique": {}}}',
                      '{"kind": "d2", "args": {}, "opts": {"queue": "q2", "unique": {}}}'), true,
          'without by_queue the queue is not part of the key');
select is(pg_temp.dup('{"kind": "d3", "args": {}, "opts": {"queue": "q1", "unique": {"by_queue": true}}}',
                      '{"kind": "d3", "args": {}, "opts": {"queue": "q2", "unique": {"by_queue": true}}}'), false,
          'by_queue: another queue is another key');
select is(pg_temp.dup('{"kind": "d4", "args": {"a": 1, "b": 1}, "opts": {"unique": {"by_args": ["a"]}}}',
                      '{"kind": "d4", "args": {"b": 2, "a": 1}, "opts": {"unique": {"by_args": ["a"]}}}'), true,
          'by_args names: other values of unnamed args are a duplicate');
select is(pg_temp.dup('{"kind": "d5", "args": {"a": 1, "b": 1}, "opts": {"unique": {"by_args": ["a", "b"]}}}',
                      '{"kind": "d5", "args": {"a": 1, "b": 2}, "opts": {"unique": {"by_args": ["a", "b"]}}}'), false,
          'by_args names: another value of a named arg is another key');
select is(pg_temp.dup('{"kind": "d6", "args": {"a": {"x": 1, "y": 2}}, "opts": {"unique": {"by_args": true}}}',
                      '{"kind": "d6", "args": {"a": {"y": 2, "x": 1}}, "opts": {"unique": {"by_args": true}}}'), true,
          'by_args: equal JSON written in another key order is one key');
select is(pg_temp.dup('{"kind": "d7", "args": {"a": null}, "opts": {"unique": {"by_args": true}}}',
                      '{"kind": "d7", "args": {}, "opts": {"unique": {"by_args": true}}}'), false,
          'by_args: an arg set to null differs from a missing arg');
select is(pg_temp.dup('{"kind": "d8a", "args": {}, "opts": {"unique": {"key": "user-7"}}}',
                      '{"kind": "d8b", "args": {}, "opts": {"unique": {"key": "user-7"}}}'), true,
          'an explicit key replaces the kind: another kind with the key is a duplicate');
select is(pg_temp.dup('{"kind": "d9", "args": {}, "opts": {"run_at": "2030-01-01T10:05:00Z", "unique": {"by_period": 3600}}}',
                      '{"kind": "d9", "args": {}, "opts": {"run_at": "2030-01-01T10:55:00Z", "unique": {"by_period": 3600}}}'), true,
          'by_period: run_at in the same bucket is a duplicate');
select is(pg_temp.dup('{"kind": "d10", "args": {}, "opts": {"run_at": "2030-01-01T10:55:00Z", "unique": {"by_period": 3600}}}',
                      '{"kind": "d10", "args": {}, "opts": {"run_at": "2030-01-01T11:05:00Z", "unique": {"by_period": 3600}}}'), false,
          'by_period: run_at in the next bucket is another key');
select is(pg_temp.dup('{"kind": "d11", "args": {}, "opts": {"unique": {}}}',
                      '{"kind": "d11", "args": {}, "opts": {"unique": {"by_period": 60}}}'), false,
          'a period makes another key than none');

select * from finish();
rollback;
