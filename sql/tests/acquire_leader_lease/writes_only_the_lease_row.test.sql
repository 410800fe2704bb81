-- Acquiring writes one row of awa.leader_leases and nothing else; a renewal
-- writes that row once more (one update) and nothing else.
begin;
select plan(4);

create temp table before as select awa_test.write_counts() as w, awa_test.row_counts() as r;

select awa_test.held_lease();
create temp table after_acquire as select awa_test.write_counts() as w, awa_test.row_counts() as r;

select is(awa_test.changed((select w from before), (select w from after_acquire)), '{"leader_leases": 1}'::jsonb,
  'acquiring writes one tuple, in awa.leader_leases only');
select is(awa_test.changed((select r from before), (select r from after_acquire)), '{"leader_leases": 1}'::jsonb,
  'acquiring adds one row, to awa.leader_leases only');

select * from awa.acquire_leader_lease('maintenance', '00000000-0000-0000-0000-0000000000a1', '30 seconds', '2030-01-01 12:00:10+00');

select is(awa_test.changed((select w from after_acquire), awa_test.write_counts()), '{"leader_leases": 1}'::jsonb,
  'renewing writes one tuple, in awa.leader_leases only');
select is(awa_test.changed((select r from after_acquire), awa_test.row_counts()), '{}'::jsonb,
  'renewing adds and removes no row');

select * from finish();
rollback;
