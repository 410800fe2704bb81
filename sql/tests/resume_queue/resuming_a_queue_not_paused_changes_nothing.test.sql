-- Resuming a queue that is not paused (or never existed) writes nothing and
-- reports it not paused.
begin;
select plan(2);

select * from awa.insert_job('pause.k', '{}', '{"queue": "np"}');
select results_eq($$select queue, paused from awa.resume_queue('np')$$, $$values ('np'::text, false)$$,
                  'resume_queue reports the queue not paused');
select * from awa_test.writes_nothing($$select * from awa.resume_queue('np')$$, 'and writes nothing');

select * from finish();
rollback;
