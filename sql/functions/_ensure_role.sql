-- awa._ensure_role(role): makes sure the group role exists, creating it
-- NOLOGIN when missing and the installing user may (superuser or CREATEROLE).
-- Returns true when the role exists afterwards. When it is missing and cannot
-- be created, raises a WARNING with the statement a DBA runs (then
-- SELECT awa.install_queue_storage_substrate() grants it) and returns false:
-- the install goes on, and only the owner can use awa meanwhile.
-- A role of that name that already exists is used as it is (roles are
-- cluster-wide: another database's install may have created it).
-- Locks: none of its own; two installs creating the role at once: the loser
-- sees it exist. Idempotent. Called by awa._apply_privileges.
CREATE FUNCTION awa._ensure_role(p_role text)
RETURNS boolean
LANGUAGE plpgsql
AS $$
BEGIN
    IF to_regrole(quote_ident(p_role)) IS NOT NULL THEN
        RETURN true;
    END IF;
    IF NOT (SELECT r.rolsuper OR r.rolcreaterole FROM pg_catalog.pg_roles r WHERE r.rolname = current_user) THEN
        RAISE WARNING 'awa: role % does not exist and % cannot create it: run CREATE ROLE % NOLOGIN as a role with CREATEROLE, then SELECT awa.install_queue_storage_substrate()',
            p_role, current_user, quote_ident(p_role);
        RETURN false;
    END IF;
    BEGIN
        EXECUTE format('CREATE ROLE %I NOLOGIN', p_role);
    EXCEPTION WHEN duplicate_object OR unique_violation THEN
        NULL; -- created meanwhile by a concurrent install
    END;
    RETURN true;
END;
$$;
