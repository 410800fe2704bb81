-- A negative (or NULL) keep_sealed is a caller bug: AW010, nothing written.
begin;
select plan(3);

create temp table before as select awa_test.row_counts() as counts;
select throws_ok($$select * from awa.prune_ring('queue', 50, -1)$$, 'AW010',
                 'awa: keep_sealed must be zero or more, got -1', 'keep_sealed -1 raises AW010');
select throws_ok($$select * from awa.prune_ring('queue', 50, null)$$, 'AW010',
                 'awa: keep_sealed must be zero or more, got null', 'a NULL keep_sealed raises AW010');
select is(awa_test.row_counts(), (select counts from before), 'nothing was written');

select * from finish();
rollback;
