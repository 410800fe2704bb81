-- reject_periodic_schedule refuses a NULL name, revision or error with AW010
-- and writes nothing.
begin;
select plan(6);

select awa.upsert_periodic_job('r', '@hourly', 'k');
select * from awa_test.raises_writing_nothing($$select * from awa.reject_periodic_schedule(null, 1, 'e')$$, 'AW010',
  'awa: name, revision and error must not be null', 'a NULL name raises AW010');
select * from awa_test.raises_writing_nothing($$select * from awa.reject_periodic_schedule('r', null, 'e')$$, 'AW010',
  'awa: name, revision and error must not be null', 'a NULL revision raises AW010');
select * from awa_test.raises_writing_nothing($$select * from awa.reject_periodic_schedule('r', 1, null)$$, 'AW010',
  'awa: name, revision and error must not be null', 'a NULL error raises AW010');

select * from finish();
rollback;
