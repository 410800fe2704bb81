-- awa.substrate_version() returns the release the migrations installed, as
-- X.Y.Z or X.Y.Z-dev, and the newest release marker's version or a later -dev
-- one (checked against db/releases by the driver's Go test).
begin;
select plan(3);

select has_function('awa', 'substrate_version', array[]::text[], 'awa.substrate_version() exists, without arguments');
select function_returns('awa', 'substrate_version', array[]::text[], 'text', 'it returns text');
select matches(awa.substrate_version(), '^[0-9]+\.[0-9]+\.[0-9]+(-dev)?$', 'it is X.Y.Z or X.Y.Z-dev');

select * from finish();
rollback;
