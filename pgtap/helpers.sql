-- Test-only helpers for the pgTAP suite (sql/tests). pgtap/setup.sh loads this
-- into the throwaway test database after pgTAP and the awa schema; it is never
-- part of a migration.
CREATE SCHEMA awa_test;

-- Row count of every leaf table in schema awa, as {"relname": count, ...}.
-- Partitioned and inheritance parents are skipped: their rows live in the
-- leaves, and counting both would count a row twice. Compare two snapshots to
-- assert that a call inserted or deleted nothing (updates do not show here; see
-- write_counts()).
CREATE FUNCTION awa_test.row_counts() RETURNS jsonb
LANGUAGE plpgsql AS $$
DECLARE
  r      record;
  n      bigint;
  counts jsonb := '{}';
BEGIN
  FOR r IN
    SELECT c.oid::regclass AS rel, c.relname
    FROM pg_tables t
    JOIN pg_class c ON c.oid = format('%I.%I', t.schemaname, t.tablename)::regclass
    WHERE t.schemaname = 'awa'
      AND c.relkind = 'r'  -- pg_tables also lists partitioned parents ('p')
      AND NOT EXISTS (SELECT 1 FROM pg_inherits i WHERE i.inhparent = c.oid)
    ORDER BY c.relname
  LOOP
    EXECUTE format('SELECT count(*) FROM ONLY %s', r.rel) INTO n;
    counts := counts || jsonb_build_object(r.relname, n);
  END LOOP;
  RETURN counts;
END
$$;

-- Tuples inserted + updated + deleted so far in the current transaction, per
-- table of schema awa (pg_stat_xact_user_tables, which includes the still
-- uncommitted work of this transaction). Unlike row_counts() it sees updates.
CREATE FUNCTION awa_test.write_counts() RETURNS jsonb
LANGUAGE sql AS $$
  SELECT coalesce(jsonb_object_agg(relname, n_tup_ins + n_tup_upd + n_tup_del), '{}')
  FROM pg_stat_xact_user_tables
  WHERE schemaname = 'awa'
$$;

-- pgTAP assertion: running p_sql inserts, updates and deletes no row of any awa
-- table. On failure the diagnostics name the tables written and how many tuples.
--   SELECT awa_test.writes_nothing($$SELECT awa.some_read_only_call()$$, 'reads only');
CREATE FUNCTION awa_test.writes_nothing(p_sql text, p_description text DEFAULT NULL) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
  before  jsonb := awa_test.write_counts();
  after   jsonb;
  written jsonb;
BEGIN
  EXECUTE p_sql;
  after := awa_test.write_counts();
  SELECT coalesce(jsonb_object_agg(a.key, a.value::bigint - coalesce((before ->> a.key)::bigint, 0)), '{}')
    INTO written
  FROM jsonb_each_text(after) a
  WHERE a.value::bigint <> coalesce((before ->> a.key)::bigint, 0);
  RETURN is(written, '{}'::jsonb, coalesce(p_description, 'writes nothing: ' || p_sql));
END
$$;
