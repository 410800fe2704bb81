-- list_periodic_jobs returns every schedule, paused and rejected ones
-- included, ordered by name, and writes nothing.
begin;
select plan(2);

select awa.upsert_periodic_job('b', '@hourly', 'k');
select awa.upsert_periodic_job('a', '0 0 * * *', 'k');
select awa.upsert_periodic_job('c', '@daily', 'k');
select awa.pause_periodic_job('c');
select awa.reject_periodic_schedule('b', 1, 'bad');

select results_eq($$select name, paused, schedule_error from awa.list_periodic_jobs()$$,
                  $$values ('a'::text, false, null::text), ('b', false, 'bad'), ('c', true, null)$$,
                  'every schedule, by name, with its pause and error');
select awa_test.writes_nothing($$select * from awa.list_periodic_jobs()$$, 'list_periodic_jobs writes nothing');

select * from finish();
rollback;
