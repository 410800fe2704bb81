-- insert_jobs takes opts.unique too: a job whose key a job holds in its states
-- is not inserted and its row is the holder's (awa.inserted_job keeps its six
-- columns; awa.insert_unique_jobs adds the flag). Plain jobs in the same call
-- are inserted, and plain inserts write no key row.
begin;
select plan(4);

create temp table holder as select * from awa.insert_job('ij.k', '{"a": 1}', '{"queue": "ij", "unique": {"by_args": true}}');
create temp table out as
select row_number() over () as ord, *
from awa.insert_jobs(array['ij.k', 'ij.plain', 'ij.k'], array['{"a": 1}', '{}', '{"a": 2}']::jsonb[],
                     array['{"queue": "ij", "unique": {"by_args": true}}', '{"queue": "ij"}',
                           '{"queue": "ij", "unique": {"by_args": true}}']::jsonb[]);

select results_eq($$select id, state, queue, priority, kind, run_at from out where ord = 1$$,
                  $$select * from holder$$, 'the duplicate''s row is the holder''s');
select is((select count(*) from out where ord > 1 and id > (select id from holder)), 2::bigint,
          'the plain job and the job of another key are new');
select is((select count(*) from awa.ready_entries where queue = 'ij'), 3::bigint, 'three ready rows: no row for the duplicate');
select awa.insert_jobs(array['ij.p1', 'ij.p2'], null, array['{"queue": "ij"}', '{"queue": "ij", "run_at": "2030-01-01T00:00:00Z"}']::jsonb[]);
select is((select count(*) from awa.unique_keys), 2::bigint, 'plain jobs (due now or scheduled) write no key row');

select * from finish();
rollback;
