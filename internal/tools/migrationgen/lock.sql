-- The first block of every unreleased migration (docs/releases.md,
-- "Upgrading under load"). An upgrade alters tables the claim, the
-- finalizers and the maintenance functions use, and replaces views they
-- read. Taken one by one, those locks interleave with a running worker's: a
-- prune that holds a ready table and waits for a done table a step altered,
-- while the step waits for that ready table, is a deadlock, and either side
-- can be the one PostgreSQL aborts. So every table and view of the schema is
-- locked first, all together, and every sequence with them: a producer takes
-- its sequence's lock (nextval) before its tables', so a step that alters a
-- sequence (ALTER SEQUENCE waits for nextval's lock) would otherwise wait for
-- a producer that waits for the migration. LOCK TABLE refuses sequences: an
-- ALTER SEQUENCE ... OWNER TO its owner changes nothing and takes ACCESS
-- EXCLUSIVE. An attempt that waits more than 50 ms for any
-- one lock rolls back to its savepoint, which releases what it took (no
-- worker waits long on a half-locked migration, and the migration never
-- waits long enough for a deadlock check), and tries again after a short
-- sleep. Workers then queue behind the migration and go on when it commits.
-- After 5 minutes without every lock (a long transaction holds one; the
-- setting awa.upgrade_lock_wait, an interval, changes the 5 minutes), the
-- migration fails with 55P03 and writes nothing.
DO $lock$
DECLARE
    v_timeout  text := current_setting('lock_timeout');
    v_wait     interval := coalesce(nullif(current_setting('awa.upgrade_lock_wait', true), ''), '5 minutes')::interval;
    v_deadline timestamptz := clock_timestamp() + v_wait;
    v_rels     text;
    v_seqs     text;
    v_tries    int := 0;
BEGIN
    SELECT string_agg(c.oid::regclass::text, ', ' ORDER BY c.oid)
      INTO v_rels
      FROM pg_class c
     WHERE c.relnamespace = 'awa'::regnamespace
       AND c.relkind IN ('r', 'p', 'v')
       AND NOT c.relispartition;
    SELECT string_agg(format('ALTER SEQUENCE %s OWNER TO %I', c.oid::regclass, pg_get_userbyid(c.relowner)), '; '
                      ORDER BY c.oid)
      INTO v_seqs
      FROM pg_class c
     WHERE c.relnamespace = 'awa'::regnamespace
       AND c.relkind = 'S';
    PERFORM set_config('lock_timeout', '50ms', true);
    LOOP
        v_tries := v_tries + 1;
        BEGIN
            EXECUTE 'LOCK TABLE ' || v_rels || ' IN ACCESS EXCLUSIVE MODE';
            IF v_seqs IS NOT NULL THEN
                EXECUTE v_seqs;
            END IF;
            EXIT;
        EXCEPTION WHEN lock_not_available OR deadlock_detected THEN
            IF clock_timestamp() > v_deadline THEN
                RAISE EXCEPTION 'awa upgrade: could not lock the tables of schema awa in % tries over %', v_tries, v_wait
                    USING ERRCODE = 'lock_not_available',
                          HINT = 'a long transaction holds one of them (see pg_locks); end it and run the migration again';
            END IF;
            PERFORM pg_sleep(0.01 + random() * 0.04);
        END;
    END LOOP;
    PERFORM set_config('lock_timeout', v_timeout, true);
    RAISE DEBUG 'awa upgrade: schema awa locked after % tries', v_tries;
END
$lock$;
