-- A limit outside 1..100000 or an idle interval outside 0..7 days raises
-- AW010 and writes nothing.
begin;
select plan(10);

select t.* from (values
  ($$select * from awa.retire_idle_key_lanes(0)$$, 'AW010', 'awa: limit must be between 1 and 100000, got 0', 'a zero limit raises AW010'),
  ($$select * from awa.retire_idle_key_lanes(null)$$, 'AW010', 'awa: limit must be between 1 and 100000, got null', 'a NULL limit raises AW010'),
  ($$select * from awa.retire_idle_key_lanes(10, interval '-1 second')$$, 'AW010',
   'awa: idle must be between 00:00:00 and 7 days, got -00:00:01', 'a negative idle raises AW010'),
  ($$select * from awa.retire_idle_key_lanes(10, interval '8 days')$$, 'AW010',
   'awa: idle must be between 00:00:00 and 7 days, got 8 days', 'an idle over 7 days raises AW010'),
  ($$select * from awa.retire_idle_key_lanes(10, null)$$, 'AW010',
   'awa: idle must be between 00:00:00 and 7 days, got null', 'a NULL idle raises AW010')
) as v (call, sqlstate, message, raises)
cross join lateral awa_test.raises_writing_nothing(v.call, v.sqlstate, v.message, v.raises) t;

select * from finish();
rollback;
