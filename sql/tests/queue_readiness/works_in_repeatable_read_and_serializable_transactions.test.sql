-- awa.queue_readiness is not guarded: on a rate-limited queue whose bucket is
-- empty it answers a wait_for the same in REPEATABLE READ and SERIALIZABLE
-- transactions as at READ COMMITTED (it writes nothing and locks no bucket).
\set setup 'select 1 from awa.configure_queue($q$iso_rl$q$, $o${"rate_limit": {"per_second": 2, "burst": 1}}$o$); update awa.queue_rate_buckets set tokens = 0, refreshed_at = now() where queue = $q$iso_rl$q$; select 1 from awa.insert_job($k$k$k$, $a${}$a$, $o${"queue": "iso_rl"}$o$)'
\set report 'awa_test.outcome($$select * from awa.queue_readiness(''iso_rl'')$$)'
\set effect '(select pending and not ready and wait_for = interval $i$0.5 s$i$ from awa.queue_readiness($q$iso_rl$q$))'
\ir ../works_at_each_level.psql
