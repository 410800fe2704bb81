-- queue_drained refuses a NULL queue or a name no queue can have (AW002).
begin;
select plan(2);

select throws_ok($$select * from awa.queue_drained(null)$$, 'AW002', 'awa: queue must not be null',
                 'a NULL queue raises AW002');
select throws_ok($$select * from awa.queue_drained('a b')$$, 'AW002',
                 'awa: queue must be 1 to 50 characters of [A-Za-z0-9_.:-], got ''a b''', 'a bad name raises AW002');

select * from finish();
rollback;
