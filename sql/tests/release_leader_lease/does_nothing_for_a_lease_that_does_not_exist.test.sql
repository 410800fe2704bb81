-- Releasing a lease name that has no row returns no row and writes nothing.
begin;
select plan(2);

select is_empty($$select * from awa.release_leader_lease('maintenance', '00000000-0000-0000-0000-0000000000a1')$$,
  'releasing a missing lease returns no row');
select awa_test.writes_nothing($$select * from awa.release_leader_lease('maintenance', '00000000-0000-0000-0000-0000000000a1')$$,
  'releasing a missing lease writes nothing');

select * from finish();
rollback;
