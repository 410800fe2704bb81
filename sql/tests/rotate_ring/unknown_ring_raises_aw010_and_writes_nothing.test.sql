-- rotate_ring of a ring that does not exist (or NULL) raises AW010.
begin;
select plan(3);

select * from awa.insert_job('rotate.k', '{}', '{"queue": "oq"}');
create temp table before as select awa_test.row_counts() as c;

select throws_ok($$select * from awa.rotate_ring('queues', now())$$,
                 'AW010', 'awa: unknown ring ''queues''', 'an unknown ring raises AW010 naming it');
select throws_ok($$select * from awa.rotate_ring(null, now())$$,
                 'AW010', 'awa: unknown ring null', 'a NULL ring raises AW010');
select is(awa_test.row_counts(), (select c from before), 'the failed calls wrote nothing');

select * from finish();
rollback;
