-- A job that never reported progress (or no job at all) has no checkpoint:
-- no row, and nothing is written by the read.
begin;
select plan(3);

create temp table c as select * from awa_test.claim_one('k', '{}', '{"queue": "jp"}', '2030-01-01 12:00:00+00');
select is_empty($$select * from awa.job_progress((select id from c))$$, 'a running job without progress has no row');
select is_empty($$select * from awa.job_progress(-1)$$, 'an unknown job has no row');
select awa_test.writes_nothing($$select * from awa.job_progress((select id from c))$$, 'the read writes nothing');

select * from finish();
rollback;
