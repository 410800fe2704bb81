-- A queue name of 51 characters raises AW002 naming it (50 is accepted, see
-- accepts_a_list_of_valid_queue_names).
begin;
select plan(2);

select throws_ok(format('select awa.listen_queues(array[%L])', repeat('x', 51)), 'AW002',
  'awa: queue must be 1 to 50 characters of [A-Za-z0-9_.:-], got ''' || repeat('x', 51) || '''',
  'a 51-character queue name raises AW002');
select throws_ok(format('select awa.listen_queues(array[%L, %L])', 'default', repeat('y', 100)), 'AW002',
  'awa: queue must be 1 to 50 characters of [A-Za-z0-9_.:-], got ''' || repeat('y', 100) || '''',
  'a 100-character queue name after a valid one raises AW002');

select * from finish();
rollback;
