-- A limit outside 1..100000 raises AW010 and writes nothing.
begin;
select plan(4);

select t.* from (values
  ($$select * from awa.cleanup_unique_keys(0)$$, 'AW010', 'awa: limit must be between 1 and 100000, got 0', 'a zero limit raises AW010'),
  ($$select * from awa.cleanup_unique_keys(null)$$, 'AW010', 'awa: limit must be between 1 and 100000, got null', 'a NULL limit raises AW010')
) as v (call, sqlstate, message, raises)
cross join lateral awa_test.raises_writing_nothing(v.call, v.sqlstate, v.message, v.raises) t;

select * from finish();
rollback;
