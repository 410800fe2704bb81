-- awa._count_upto(table, max, weight): the rows of table awa.<table>, counted
-- up to max (a bounded read: a large slot costs max rows, not its size); with
-- weight, the sum of that column over at most max rows instead (an archive
-- cohort's jobs: the sum of its chunks' n, at least min(jobs, max) since a
-- chunk holds at least one job). Read-only; ACCESS SHARE on the table, held
-- as its caller's. Called by awa.storage_status.
CREATE FUNCTION awa._count_upto(p_table text, p_max int, p_weight text DEFAULT NULL)
RETURNS bigint
LANGUAGE plpgsql
STABLE
AS $$
DECLARE
    v_n bigint;
BEGIN
    EXECUTE format('SELECT coalesce(sum(t.w), 0) FROM (SELECT %s AS w FROM awa.%I LIMIT %s) AS t',
                   coalesce(quote_ident(p_weight), '1'), p_table, p_max)
    INTO v_n;
    RETURN v_n;
END;
$$;
