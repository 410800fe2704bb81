-- awa.acquire_leader_lease is not guarded: it works the same in REPEATABLE READ and
-- SERIALIZABLE transactions as at READ COMMITTED (its concurrent cases are
-- in internal/sqlrace/isolation_test.go).
\set report 'awa_test.outcome($$select * from awa.acquire_leader_lease(''iso_lease'', ''00000000-0000-0000-0000-0000000000aa'', ''10 seconds'')$$)'
\set effect '(select bool_and(holder = ''00000000-0000-0000-0000-0000000000aa'') and count(*) = 1 as ok from awa.leader_leases where name = ''iso_lease'')'
\ir ../works_at_each_level.psql
