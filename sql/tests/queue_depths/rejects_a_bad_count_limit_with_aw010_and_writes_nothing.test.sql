-- count_limit outside 1..1000000 (NULL included) raises AW010 and writes nothing.
begin;
select plan(6);

select * from awa_test.raises_writing_nothing($$select * from awa.queue_depths(0)$$, 'AW010',
  'awa: count_limit must be between 1 and 1000000, got 0', 'a zero count_limit raises AW010');
select * from awa_test.raises_writing_nothing($$select * from awa.queue_depths(1000001)$$, 'AW010',
  'awa: count_limit must be between 1 and 1000000, got 1000001', 'a count_limit over the maximum raises AW010');
select * from awa_test.raises_writing_nothing($$select * from awa.queue_depths(null)$$, 'AW010',
  'awa: count_limit must be between 1 and 1000000, got null', 'a null count_limit raises AW010');

select * from finish();
rollback;
