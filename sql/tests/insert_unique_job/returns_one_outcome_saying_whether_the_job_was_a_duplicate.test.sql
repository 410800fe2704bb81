-- The single form: one awa.insert_outcome, the new job or its key's holder
-- with duplicate true; a job without unique options is simply inserted.
begin;
select plan(4);

create temp table first as select * from awa.insert_unique_job('one.k', '{"a": 1}', '{"queue": "one", "unique": {"by_args": true}}');
select results_eq($$select state, queue, kind, duplicate from first$$,
                  $$values ('available'::awa.job_state, 'one'::text, 'one.k'::text, false)$$,
                  'the first insert is a new available job');
select results_eq($$select id, duplicate from awa.insert_unique_job('one.k', '{"a": 1}', '{"queue": "one", "unique": {"by_args": true}}')$$,
                  $$select id, true from first$$, 'the second is its duplicate');
select is((select duplicate from awa.insert_unique_job('one.plain', '{}', '{"queue": "one"}')), false,
          'a job without unique options is new');
select is((select count(*) from awa.ready_entries where queue = 'one'), 2::bigint, 'two ready rows');

select * from finish();
rollback;
