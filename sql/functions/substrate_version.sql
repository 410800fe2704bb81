-- awa.substrate_version()
--
-- The substrate release installed: 'X.Y.Z' for a release, 'X.Y.Z-dev' for
-- unreleased changes on top of the release before (docs/releases.md). Every
-- release's migrations set it; the Go client reads it at start.
-- Locks: none. Errors: none. Callers: the driver (version check), operators.
CREATE FUNCTION awa.substrate_version()
RETURNS text
LANGUAGE sql
STABLE
PARALLEL SAFE
AS $$
    SELECT '0.2.0-dev'::text
$$;
