-- Internals (awa._*) are executable by no awa role, except awa._read_jobs and
-- awa._read_terminal_jobs for awa_admin (the views awa.jobs and
-- awa.terminal_jobs call them, and PostgreSQL checks a view's function calls
-- against the reader); every other routine of schema awa is
-- granted to one of awa_producer, awa_worker and awa_admin, except the
-- owner-only install (awa.install_queue_storage_substrate). A routine added
-- later must be placed in awa._apply_privileges (or here, as owner-only).
begin;
select plan(2);

select results_eq(
  $$select (p.proname || ' to ' || a.grantee::regrole) collate "default" from pg_proc p, aclexplode(p.proacl) a
    where p.pronamespace = 'awa'::regnamespace and p.proname ~ '^_' and a.grantee <> p.proowner
    order by 1$$,
  $$values ('_read_jobs to awa_admin'), ('_read_terminal_jobs to awa_admin')$$,
  'no internal is granted to anyone but the owner, except the read views'' functions to awa_admin');
select is_empty(
  $$select p.proname from pg_proc p
    where p.pronamespace = 'awa'::regnamespace and p.proname !~ '^_'
      and p.proname <> 'install_queue_storage_substrate'
      and not exists (select 1 from aclexplode(p.proacl) a
                      where a.grantee in ('awa_producer'::regrole, 'awa_worker'::regrole, 'awa_admin'::regrole))$$,
  'every entry point but the install is granted to an awa role');

select * from finish();
rollback;
