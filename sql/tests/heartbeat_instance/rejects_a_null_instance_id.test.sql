-- A NULL instance_id raises AW010 and writes nothing.
begin;
select plan(3);

create temp table counts_before as select awa_test.row_counts() as c;

select * from awa_test.raises_writing_nothing($$select * from awa.heartbeat_instance(null, '2030-01-01 12:00:00+00')$$,
  'AW010', 'awa: instance_id must not be null', 'a NULL instance_id raises AW010', 'a NULL instance_id writes nothing');
select is(awa_test.row_counts(), (select c from counts_before), 'no awa table gained or lost a row');

select * from finish();
rollback;
