-- A cancelled (or failed) unique job whose key another job took over cannot
-- run again while that job holds the key in its states: AW021, nothing
-- written. Once that job has left its states too, the retry takes the key
-- back, so a new insert of the key is the retried job's duplicate.
begin;
select plan(6);

create temp table j1 as select * from awa.insert_job('rt.k', '{}', '{"queue": "rt", "unique": {}}');
select awa.cancel_job((select id from j1));
create temp table j2 as select * from awa.insert_job('rt.k', '{}', '{"queue": "rt", "unique": {}}');
select isnt((select id from j2), (select id from j1), 'fixture: a second job took the key over');

select * from awa_test.raises_writing_nothing(
  format('select * from awa.retry_job(%s)', (select id from j1)), 'AW021',
  format('awa: job %s cannot run again: job %s holds its unique key (available)', (select id from j1), (select id from j2)),
  'retrying the first job while the second holds the key raises AW021');

select awa.cancel_job((select id from j2));
select is((select state from awa.retry_job((select id from j1))), 'available'::awa.job_state,
          'once the second job left its states, the first runs again');
select is((select job_id from awa.unique_keys), (select id from j1), 'the key row names the retried job');
select results_eq($$select id, duplicate from awa.insert_unique_job('rt.k', '{}', '{"queue": "rt", "unique": {}}')$$,
                  $$select id, true from j1$$, 'a new insert of the key is the retried job''s duplicate');

select * from finish();
rollback;
