-- Leases are per name: holding one does not block another holder from a
-- lease of another name, and each name is its own row.
begin;
select plan(3);

select awa_test.held_lease();

select results_eq(
  $$select name, holder, is_leader, expires_at
    from awa.acquire_leader_lease('rotation', '00000000-0000-0000-0000-0000000000b1', '1 minute', '2030-01-01 12:00:10+00')$$,
  $$values ('rotation'::text, '00000000-0000-0000-0000-0000000000b1'::uuid, true, '2030-01-01 12:01:10+00'::timestamptz)$$,
  'another holder leads a lease of another name');
select is(
  (select is_leader from awa.acquire_leader_lease('maintenance', '00000000-0000-0000-0000-0000000000a1', '30 seconds', '2030-01-01 12:00:10+00')),
  true, 'the first lease still belongs to its holder');
select results_eq(
  $$select name, holder from awa.leader_leases order by name$$,
  $$values ('maintenance'::text, '00000000-0000-0000-0000-0000000000a1'::uuid),
           ('rotation'::text, '00000000-0000-0000-0000-0000000000b1'::uuid)$$,
  'each name has its own row and holder');

select * from finish();
rollback;
