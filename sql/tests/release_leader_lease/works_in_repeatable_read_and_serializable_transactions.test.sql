-- awa.release_leader_lease is not guarded: it works the same in REPEATABLE READ and
-- SERIALIZABLE transactions as at READ COMMITTED.
\set setup 'select * from awa.acquire_leader_lease(''iso_lease'', ''00000000-0000-0000-0000-0000000000aa'', ''10 seconds'');'
\set report 'awa_test.outcome($$select * from awa.release_leader_lease(''iso_lease'', ''00000000-0000-0000-0000-0000000000aa'')$$)'
\set effect '(select count(*) = 0 as ok from awa.leader_leases where name = ''iso_lease'')'
\ir ../works_at_each_level.psql
