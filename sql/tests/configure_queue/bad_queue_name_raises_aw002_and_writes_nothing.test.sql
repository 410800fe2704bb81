-- A queue name that is NULL, empty, longer than 50 characters or uses
-- characters outside [A-Za-z0-9_.:-] raises AW002; nothing is stored.
begin;
select plan(6);

create temp table before as select awa_test.row_counts() as c;

select throws_ok($$select * from awa.configure_queue(null, '{"dlq": true}')$$,
                 'AW002', 'awa: queue must be 1 to 50 characters of [A-Za-z0-9_.:-], got null', 'a NULL queue raises AW002');
select throws_ok($$select * from awa.configure_queue('', '{"dlq": true}')$$,
                 'AW002', null, 'an empty queue raises AW002');
select throws_ok(format('select * from awa.configure_queue(%L, %L)', repeat('q', 51), '{"dlq": true}'),
                 'AW002', null, 'a 51-character queue raises AW002');
select throws_ok($$select * from awa.configure_queue('bad queue', '{"dlq": true}')$$,
                 'AW002', 'awa: queue must be 1 to 50 characters of [A-Za-z0-9_.:-], got ''bad queue''',
                 'a queue with a space raises AW002 naming it');
select is(awa_test.row_counts(), (select c from before), 'the failed calls wrote nothing');

select lives_ok(format('select * from awa.configure_queue(%L, %L)', 'Aa0_.:-' || repeat('q', 43), '{"dlq": true}'),
                'a 50-character queue of every allowed character class is accepted');

select * from finish();
rollback;
