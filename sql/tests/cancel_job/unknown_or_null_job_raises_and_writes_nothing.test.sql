-- cancel_job of an id that does not exist raises AW020; a NULL id AW010.
begin;
select plan(3);

select * from awa.insert_job('cancel.k', '{}', '{"queue": "cq"}');
create temp table before as select awa_test.row_counts() as c;

select throws_ok($$select * from awa.cancel_job(-42)$$, 'AW020', 'awa: job -42 not found',
                 'an unknown job id raises AW020 naming it');
select throws_ok($$select * from awa.cancel_job(null)$$, 'AW010', 'awa: job_id must not be null',
                 'a NULL job id raises AW010');
select is(awa_test.row_counts(), (select c from before), 'the failed calls wrote nothing');

select * from finish();
rollback;
