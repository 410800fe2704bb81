-- A holder that does not hold the lease cannot release it: the call returns
-- no row, writes nothing, and the lease stays with its holder.
begin;
select plan(3);

select awa_test.held_lease();

select is_empty($$select * from awa.release_leader_lease('maintenance', '00000000-0000-0000-0000-0000000000b1')$$,
  'a release by a non-holder returns no row');
select awa_test.writes_nothing($$select * from awa.release_leader_lease('maintenance', '00000000-0000-0000-0000-0000000000b1')$$,
  'a release by a non-holder writes nothing');
select awa_test.only_the_held_lease('the lease still belongs to its holder, unchanged');

select * from finish();
rollback;
