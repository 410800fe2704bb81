-- Every SECURITY DEFINER routine of schema awa runs with the search_path
-- pinned to pg_catalog, pg_temp (a caller's search_path cannot redirect a name
-- it resolves), and every entry point a role may execute either is SECURITY
-- DEFINER or calls no internal (an invoker's call of an awa._ routine would
-- need a grant nobody has). Routines added later are held to the same rules.
begin;
select plan(3);

select is_empty(
  $$select p.oid::regprocedure::text from pg_proc p
    where p.pronamespace = 'awa'::regnamespace and p.prosecdef
      and not coalesce('search_path=pg_catalog, pg_temp' = any (p.proconfig), false)$$,
  'every SECURITY DEFINER routine pins search_path = pg_catalog, pg_temp');
select isnt_empty(
  $$select 1 from pg_proc p where p.pronamespace = 'awa'::regnamespace and p.prosecdef$$,
  'there are SECURITY DEFINER routines to check');
select is_empty(
  $$select p.oid::regprocedure::text from pg_proc p
    where p.pronamespace = 'awa'::regnamespace and not p.prosecdef and p.proname !~ '^_'
      and exists (select 1 from aclexplode(p.proacl) a
                  where a.grantee in ('awa_producer'::regrole, 'awa_worker'::regrole, 'awa_admin'::regrole))
      and p.prosrc ~ 'awa\._'$$,
  'no invoker entry point granted to a role calls an internal');

select * from finish();
rollback;
