-- awa._count_upto(table, max): the rows of table awa.<table>, counted up to
-- max (a bounded read: a large slot costs max rows, not its size). Read-only;
-- ACCESS SHARE on the table, held as its caller's. Called by
-- awa.storage_status.
CREATE FUNCTION awa._count_upto(p_table text, p_max int)
RETURNS bigint
LANGUAGE plpgsql
STABLE
AS $$
DECLARE
    v_n bigint;
BEGIN
    EXECUTE format('SELECT count(*) FROM (SELECT 1 FROM awa.%I LIMIT %s) AS t', p_table, p_max) INTO v_n;
    RETURN v_n;
END;
$$;
