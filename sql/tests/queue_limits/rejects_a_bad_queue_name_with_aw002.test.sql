-- A queue name no queue can have raises AW002 (and writes nothing).
begin;
select plan(4);

select t.* from (values
  ($$select * from awa.queue_limits('no spaces')$$, 'AW002',
   'awa: queue must be 1 to 50 characters of [A-Za-z0-9_.:-], got ''no spaces''', 'a name with a space raises AW002'),
  ($$select * from awa.queue_limits('')$$, 'AW002',
   'awa: queue must be 1 to 50 characters of [A-Za-z0-9_.:-], got ''''', 'an empty name raises AW002')
) as v (call, sqlstate, message, raises)
cross join lateral awa_test.raises_writing_nothing(v.call, v.sqlstate, v.message, v.raises) t;

select * from finish();
rollback;
