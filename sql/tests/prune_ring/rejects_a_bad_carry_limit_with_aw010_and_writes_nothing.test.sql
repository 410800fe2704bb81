-- prune_ring with carry_limit outside 1..100000 (or NULL) raises AW010 and
-- writes nothing: the sealed slot's available job is neither moved nor
-- truncated.
begin;
select plan(5);

select * from awa.insert_job('prune.k', '{}', '{"queue": "nq"}');
select * from awa.rotate_ring('queue', now());
create temp table before as select awa_test.row_counts() as c;

select throws_ok($$select * from awa.prune_ring('queue', 50, 0, 0)$$, 'AW010',
                 'awa: carry_limit must be between 1 and 100000, got 0', 'carry_limit 0 raises AW010');
select throws_ok($$select * from awa.prune_ring('queue', 50, 0, -1)$$, 'AW010', null, 'a negative carry_limit raises AW010');
select throws_ok($$select * from awa.prune_ring('queue', 50, 0, 100001)$$, 'AW010', null, 'carry_limit 100001 raises AW010');
select throws_ok($$select * from awa.prune_ring('queue', 50, 0, null)$$, 'AW010',
                 'awa: carry_limit must be between 1 and 100000, got null', 'a NULL carry_limit raises AW010');
select is(awa_test.row_counts(), (select c from before), 'the failed calls wrote nothing (the job is still in slot 0)');

select * from finish();
rollback;
