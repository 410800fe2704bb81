-- A NULL ttl raises AW010 and writes nothing, even from the current holder
-- (whose valid call would renew).
begin;
select plan(5);

select awa_test.held_lease();
create temp table counts_before as select awa_test.row_counts() as c;

-- The code, then the message up to the value.
select * from awa_test.raises_writing_nothing(
  $$select * from awa.acquire_leader_lease('maintenance', '00000000-0000-0000-0000-0000000000a1', null, '2030-01-01 12:00:10+00')$$,
  'AW010', null, 'a NULL ttl raises AW010', 'a NULL ttl writes nothing');
select throws_like(
  $$select * from awa.acquire_leader_lease('maintenance', '00000000-0000-0000-0000-0000000000a1', null, '2030-01-01 12:00:10+00')$$,
  'awa: lease ttl must be between 1 second and 1 hour, got %', 'the message says the ttl range');
select is(awa_test.row_counts(), (select c from counts_before), 'no awa table gained or lost a row');
select awa_test.only_the_held_lease('the holder''s lease is not renewed');

select * from finish();
rollback;
