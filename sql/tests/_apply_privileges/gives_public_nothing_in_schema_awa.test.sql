-- PUBLIC gets nothing in schema awa: no routine is executable by PUBLIC (a
-- NULL proacl would mean PostgreSQL's default, EXECUTE for PUBLIC), the schema
-- grants PUBLIC no USAGE, no table or sequence grants PUBLIC anything, and a
-- role that is a member of no awa role is refused every call with 42501.
-- A routine added later without going through awa._apply_privileges fails
-- the first assertion.
begin;
select plan(7);

select is_empty(
  $$select p.oid::regprocedure::text from pg_proc p
    where p.pronamespace = 'awa'::regnamespace
      and (p.proacl is null
           or exists (select 1 from aclexplode(p.proacl) a where a.grantee = 0 and a.privilege_type = 'EXECUTE'))$$,
  'no function or procedure of schema awa is executable by PUBLIC');
select is_empty(
  $$select 1 from pg_namespace n, aclexplode(n.nspacl) a where n.nspname = 'awa' and a.grantee = 0$$,
  'schema awa grants PUBLIC nothing');
select is_empty(
  $$select c.relname from pg_class c, aclexplode(c.relacl) a
    where c.relnamespace = 'awa'::regnamespace and a.grantee = 0$$,
  'no table, view or sequence of schema awa grants PUBLIC anything');
select * from awa_test.refused('awa_test_nobody', array[
  $$select * from awa.insert_job('k')$$,
  $$select * from awa.claim_ready_runtime('q', 1)$$,
  $$call awa.run_maintenance()$$,
  $$select count(*) from awa.jobs$$]);

select * from finish();
rollback;
