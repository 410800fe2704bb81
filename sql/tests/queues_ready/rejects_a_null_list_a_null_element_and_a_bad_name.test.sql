-- awa.queues_ready refuses a NULL list, a NULL element and a name no job can
-- have with AW002, before it reads anything, and writes nothing.
begin;
select plan(5);

select * from awa.insert_job('k', '{}', '{"queue": "qr_ok"}');
create temp table before as select awa_test.row_counts() as c;
select throws_ok($$select * from awa.queues_ready(null)$$, 'AW002', 'awa: queues must not be null',
                 'a null list raises AW002');
select throws_ok($$select * from awa.queues_ready(array['qr_ok', null])$$, 'AW002',
                 'awa: queue must be 1 to 50 characters of [A-Za-z0-9_.:-], got null', 'a null element raises AW002');
select throws_ok($$select * from awa.queues_ready(array['qr_ok', 'bad name!'])$$, 'AW002',
                 $$awa: queue must be 1 to 50 characters of [A-Za-z0-9_.:-], got 'bad name!'$$,
                 'a name with invalid characters raises AW002, whatever the other names');
select throws_ok($$select * from awa.queues_ready(array[''])$$, 'AW002',
                 $$awa: queue must be 1 to 50 characters of [A-Za-z0-9_.:-], got ''$$, 'an empty name raises AW002');
select is(awa_test.row_counts(), (select c from before), 'the failed calls wrote nothing');

select * from finish();
rollback;
