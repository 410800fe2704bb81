-- A NULL element raises AW002, alone or after valid names (the whole call
-- fails; whether the valid names' pending LISTENs are discarded is not
-- observable inside the test transaction, see
-- accepts_a_list_of_valid_queue_names).
begin;
select plan(2);

select throws_ok($$select awa.listen_queues(array[null::text])$$, 'AW002',
  'awa: queue must be 1 to 50 characters of [A-Za-z0-9_.:-], got null', 'a NULL queue name raises AW002');
select throws_ok($$select awa.listen_queues(array['default', null])$$, 'AW002',
  'awa: queue must be 1 to 50 characters of [A-Za-z0-9_.:-], got null', 'a NULL after a valid queue name raises AW002');

select * from finish();
rollback;
