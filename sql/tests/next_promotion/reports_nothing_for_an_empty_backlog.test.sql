-- With no scheduled or retryable job, awa.next_promotion reports no due time
-- and no wait (NULLs), whatever the clock, and writes nothing.
begin;
select plan(3);

select is((select due_at from awa.next_promotion()), null, 'an empty backlog has no due time');
select is((select wait_for from awa.next_promotion(now() + interval '1 day')), null,
          'an empty backlog has no wait, whatever now is');
select awa_test.writes_nothing($$select * from awa.next_promotion()$$, 'the read writes no awa table');

select * from finish();
rollback;
