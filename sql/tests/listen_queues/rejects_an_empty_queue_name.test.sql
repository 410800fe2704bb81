-- An empty queue name raises AW002 naming it, alone or among valid names.
begin;
select plan(2);

select throws_ok($$select awa.listen_queues(array[''])$$, 'AW002',
  'awa: queue must be 1 to 50 characters of [A-Za-z0-9_.:-], got ''''', 'an empty queue name raises AW002');
select throws_ok($$select awa.listen_queues(array['default', '', 'emails'])$$, 'AW002',
  'awa: queue must be 1 to 50 characters of [A-Za-z0-9_.:-], got ''''', 'an empty queue name among valid names raises AW002');

select * from finish();
rollback;
