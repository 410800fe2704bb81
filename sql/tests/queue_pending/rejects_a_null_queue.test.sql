-- A NULL queue raises AW002 and writes nothing.
begin;
select plan(2);

create temp table before as select awa_test.row_counts() as c;
select throws_ok($$select * from awa.queue_pending(null)$$, 'AW002', 'awa: queue must not be null',
                 'a NULL queue raises AW002');
select is(awa_test.row_counts(), (select c from before), 'the failed call wrote nothing');

select * from finish();
rollback;
