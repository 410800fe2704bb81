-- A queue name no insert accepts raises AW002 and writes nothing: such a
-- queue can never have work pending.
begin;
select plan(4);

create temp table before as select awa_test.row_counts() as c;
select throws_ok($$select * from awa.queue_pending('')$$, 'AW002',
                 $$awa: queue must be 1 to 50 characters of [A-Za-z0-9_.:-], got ''$$, 'an empty queue name raises AW002');
select throws_ok($$select * from awa.queue_pending('bad name!')$$, 'AW002',
                 $$awa: queue must be 1 to 50 characters of [A-Za-z0-9_.:-], got 'bad name!'$$,
                 'a queue name with invalid characters raises AW002');
select is(awa_test.row_counts(), (select c from before), 'the failed calls wrote nothing');
select is((select pending from awa.queue_pending('not_yet_created')), false,
          'a valid name of a queue that holds nothing is no error');

select * from finish();
rollback;
