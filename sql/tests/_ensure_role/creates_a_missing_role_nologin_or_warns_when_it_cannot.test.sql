-- awa._ensure_role creates a missing role NOLOGIN when the installing user
-- may (superuser or CREATEROLE), keeps an existing role as it is, and, when
-- the role is missing and the user may not create roles, raises a WARNING and
-- returns false (the install goes on without that role).
-- (The WARNING's text names the role and the statement to run; pgTAP here
-- cannot capture a WARNING, so the test checks the result.)
begin;
select plan(6);

select is(awa._ensure_role('awa_test_fresh_role'), true, 'a superuser creates the missing role');
select is((select rolcanlogin from pg_roles where rolname = 'awa_test_fresh_role'), false, 'the role is NOLOGIN');
select is(awa._ensure_role('awa_test_fresh_role'), true, 'a second call finds it');

create role awa_test_installer nologin nocreaterole;
grant usage on schema awa to awa_test_installer;
grant execute on function awa._ensure_role to awa_test_installer;
set local role awa_test_installer;
select is(awa._ensure_role('awa_producer'), true, 'an existing role needs no CREATEROLE');
set local client_min_messages = error; -- the WARNING it raises
select is(awa._ensure_role('awa_test_absent_role'), false, 'without CREATEROLE it returns false');
reset role;
select is(to_regrole('awa_test_absent_role'), null, 'and the role is not created');

select * from finish();
rollback;
