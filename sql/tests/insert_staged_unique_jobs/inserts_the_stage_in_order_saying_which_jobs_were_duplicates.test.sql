-- The COPY path: the stage's jobs are inserted in stage order as
-- awa.insert_unique_jobs does, one outcome each, and the stage is emptied.
begin;
select plan(3);

select awa.open_job_stage();
select * from awa.insert_unique_job('st.k', '{"n": 1}', '{"queue": "st", "unique": {"by_args": true}}');
insert into pg_temp.awa_job_stage (kind, args, opts) values
  ('st.k', '{"n": 1}', '{"queue": "st", "unique": {"by_args": true}}'),
  ('st.k', '{"n": 2}', '{"queue": "st", "unique": {"by_args": true}}'),
  ('st.k', '{"n": 2}', '{"queue": "st", "unique": {"by_args": true}}'),
  ('st.plain', '{}', '{"queue": "st"}');
create temp table out as select row_number() over () as ord, * from awa.insert_staged_unique_jobs();

select results_eq($$select ord, kind, duplicate from out order by ord$$,
                  $$values (1::bigint, 'st.k'::text, true), (2, 'st.k', false), (3, 'st.k', true), (4, 'st.plain', false)$$,
                  'one outcome per staged job, in stage order: the held key and the repeated one are duplicates');
select is((select count(*) from awa.ready_entries where queue = 'st'), 3::bigint, 'three ready rows in all');
select is((select count(*) from pg_temp.awa_job_stage), 0::bigint, 'the stage is emptied');

select * from finish();
rollback;
