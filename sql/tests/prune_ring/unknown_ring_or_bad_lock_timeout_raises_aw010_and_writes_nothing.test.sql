-- prune_ring of an unknown ring, or with lock_timeout_ms outside 1..60000,
-- raises AW010 and truncates nothing.
begin;
select plan(6);

select awa_test.completed_job('nq');
select * from awa.rotate_ring('queue', now());
create temp table before as select awa_test.row_counts() as c;

select throws_ok($$select * from awa.prune_ring('ready')$$, 'AW010', 'awa: unknown ring ''ready''',
                 'an unknown ring raises AW010 naming it');
select throws_ok($$select * from awa.prune_ring(null)$$, 'AW010', 'awa: unknown ring null', 'a NULL ring raises AW010');
select throws_ok($$select * from awa.prune_ring('queue', 0)$$, 'AW010',
                 'awa: lock_timeout_ms must be between 1 and 60000, got 0', 'lock timeout 0 raises AW010');
select throws_ok($$select * from awa.prune_ring('queue', 60001)$$, 'AW010', null, 'lock timeout 60001 raises AW010');
select throws_ok($$select * from awa.prune_ring('queue', null)$$, 'AW010', null, 'a NULL lock timeout raises AW010');

select is(awa_test.row_counts(), (select c from before), 'the failed calls truncated nothing (the prunable slot 0 is intact)');

select * from finish();
rollback;
