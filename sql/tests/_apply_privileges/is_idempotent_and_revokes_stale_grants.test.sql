-- awa._apply_privileges can run again (every install and upgrade runs it):
-- the ACLs come out the same, a routine or table granted to an awa role by
-- hand (or by an older release) is revoked, and a grant to PUBLIC is undone.
begin;
select plan(3);

create temp table acl_before as
  select p.oid::regprocedure::text as obj, p.proacl::text as acl from pg_proc p where p.pronamespace = 'awa'::regnamespace
  union all
  select c.oid::regclass::text, c.relacl::text from pg_class c where c.relnamespace = 'awa'::regnamespace
  union all
  select 'schema', n.nspacl::text from pg_namespace n where n.nspname = 'awa';

grant execute on function awa.prune_ring to awa_producer;
grant select on awa.ready_entries to awa_worker;
grant execute on function awa._lock_key to public;
select lives_ok($$select awa._apply_privileges()$$, 'it runs again');
select is(has_function_privilege('awa_test_producer', 'awa.prune_ring(text, int, int, int)', 'EXECUTE'), false,
          'the stray grant of prune_ring to awa_producer is revoked');
select set_eq(
  $$select p.oid::regprocedure::text, p.proacl::text from pg_proc p where p.pronamespace = 'awa'::regnamespace
    union all
    select c.oid::regclass::text, c.relacl::text from pg_class c where c.relnamespace = 'awa'::regnamespace
    union all
    select 'schema', n.nspacl::text from pg_namespace n where n.nspname = 'awa'$$,
  $$select obj, acl from acl_before$$,
  'every ACL of schema awa is as before the stray grants');

select * from finish();
rollback;
