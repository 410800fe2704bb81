-- The holder releasing its lease deletes the lease row and returns it; that
-- one delete is the only write.
begin;
select plan(3);

select awa_test.held_lease();
select * from awa.acquire_leader_lease('maintenance', '00000000-0000-0000-0000-0000000000a1', '30 seconds', '2030-01-01 12:00:10+00');
create temp table before as select awa_test.write_counts() as w;

select results_eq(
  $$select name, holder, acquired_at, expires_at from awa.release_leader_lease('maintenance', '00000000-0000-0000-0000-0000000000a1')$$,
  $$values ('maintenance'::text, '00000000-0000-0000-0000-0000000000a1'::uuid,
            '2030-01-01 12:00:00+00'::timestamptz, '2030-01-01 12:00:40+00'::timestamptz)$$,
  'the release returns the released lease row');
select is_empty($$select * from awa.leader_leases where name = 'maintenance'$$, 'the lease row is gone');
select is(awa_test.changed((select w from before), awa_test.write_counts()), '{"leader_leases": 1}'::jsonb,
  'the release writes one tuple (the delete), in awa.leader_leases only');

select * from finish();
rollback;
