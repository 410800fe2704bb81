-- A queue name with a character outside [A-Za-z0-9_.:-] raises AW002 naming
-- it: a space, a double quote (it would end the quoted channel identifier),
-- a semicolon, a slash, a non-ASCII letter, a trailing newline.
begin;
select plan(6);

select throws_ok($$select awa.listen_queues(array['a b'])$$, 'AW002',
  'awa: queue must be 1 to 50 characters of [A-Za-z0-9_.:-], got ''a b''', 'a space raises AW002');
select throws_ok($$select awa.listen_queues(array['a"b'])$$, 'AW002',
  'awa: queue must be 1 to 50 characters of [A-Za-z0-9_.:-], got ''a"b''', 'a double quote raises AW002');
select throws_ok($$select awa.listen_queues(array['default', 'a;b'])$$, 'AW002',
  'awa: queue must be 1 to 50 characters of [A-Za-z0-9_.:-], got ''a;b''', 'a semicolon after a valid name raises AW002');
select throws_ok($$select awa.listen_queues(array['a/b'])$$, 'AW002',
  'awa: queue must be 1 to 50 characters of [A-Za-z0-9_.:-], got ''a/b''', 'a slash raises AW002');
select throws_ok($$select awa.listen_queues(array['café'])$$, 'AW002',
  'awa: queue must be 1 to 50 characters of [A-Za-z0-9_.:-], got ''café''', 'a non-ASCII letter raises AW002');
select throws_ok($$select awa.listen_queues(array[E'ab\n'])$$, 'AW002',
  E'awa: queue must be 1 to 50 characters of [A-Za-z0-9_.:-], got ''ab\n''', 'a trailing newline raises AW002');

select * from finish();
rollback;
