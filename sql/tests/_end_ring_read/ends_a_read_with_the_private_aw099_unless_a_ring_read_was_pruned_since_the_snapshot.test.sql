-- awa._end_ring_read raises the private AW099 (its callers catch it to roll
-- back their read's subtransaction): at READ COMMITTED always; outside it
-- when no child of the rings named was truncated after the transaction's
-- snapshot, here none. (Across a prune outside READ COMMITTED it raises 40001:
-- two sessions, internal/sqlrace/readsurf_test.go.)
\set report 'awa_test.outcome($$select awa._end_ring_read(''awa.jobs'', array[''queue'', ''claim'', ''cursor''])$$)'
\ir ../at_each_level.psql
begin;
select plan(4);
select is(:'rc'::jsonb ->> 'sqlstate', 'AW099', 'at read committed it raises AW099');
select is(:'rr'::jsonb ->> 'sqlstate', 'AW099', 'at repeatable read, nothing pruned since the snapshot, AW099');
select is(:'sr'::jsonb ->> 'sqlstate', 'AW099', 'at serializable, nothing pruned since the snapshot, AW099');
select throws_ok($$select awa._end_ring_read('awa.jobs', array['queue'])$$, 'AW099', 'awa: read of awa.jobs done',
                 'its message names the surface');
select * from finish();
rollback;
