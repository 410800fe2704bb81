-- A holder that does not hold the lease cannot release it: the call returns
-- no row, writes nothing, and the lease stays with its holder.
begin;
select plan(3);

select * from awa.acquire_leader_lease('maintenance', '00000000-0000-0000-0000-0000000000a1', '30 seconds', '2030-01-01 12:00:00+00');

select is_empty($$select * from awa.release_leader_lease('maintenance', '00000000-0000-0000-0000-0000000000b1')$$,
  'a release by a non-holder returns no row');
select awa_test.writes_nothing($$select * from awa.release_leader_lease('maintenance', '00000000-0000-0000-0000-0000000000b1')$$,
  'a release by a non-holder writes nothing');
select results_eq(
  $$select name, holder, acquired_at, expires_at from awa.leader_leases$$,
  $$values ('maintenance'::text, '00000000-0000-0000-0000-0000000000a1'::uuid,
            '2030-01-01 12:00:00+00'::timestamptz, '2030-01-01 12:00:30+00'::timestamptz)$$,
  'the lease still belongs to its holder, unchanged');

select * from finish();
rollback;
