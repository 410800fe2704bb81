-- awa.next_promotion writes nothing, so it is not guarded: it works the same
-- in REPEATABLE READ and SERIALIZABLE transactions as at READ COMMITTED.
\set setup 'select * from awa.insert_job(''k'', ''{}'', jsonb_build_object(''queue'', ''iso_np'', ''run_at'', now() + interval ''1 minute''));'
\set report 'awa_test.outcome($$select * from awa.next_promotion()$$)'
\set effect '(select due_at = now() + interval ''1 minute'' as ok from awa.next_promotion())'
\ir ../works_at_each_level.psql
