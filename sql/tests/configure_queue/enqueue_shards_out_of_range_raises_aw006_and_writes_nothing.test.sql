-- enqueue_shards outside 1..64 raises AW006, and one that is not an integer
-- raises AW005; nothing is stored and no lane is created.
begin;
select plan(6);

create temp table before as select awa_test.row_counts() as c;

select throws_ok($$select * from awa.configure_queue('cfg', '{"enqueue_shards": 0}')$$,
                 'AW006', 'awa: opts.enqueue_shards must be between 1 and 64, got 0', 'enqueue_shards 0 raises AW006');
select throws_ok($$select * from awa.configure_queue('cfg', '{"enqueue_shards": 65}')$$,
                 'AW006', null, 'enqueue_shards 65 raises AW006');
select throws_ok($$select * from awa.configure_queue('cfg', '{"enqueue_shards": 2.5}')$$,
                 'AW005', 'awa: opts.enqueue_shards must be an integer, got 2.5', 'a fractional enqueue_shards raises AW005');
select throws_ok($$select * from awa.configure_queue('cfg', '{"enqueue_shards": "4"}')$$,
                 'AW005', null, 'enqueue_shards as a string raises AW005');
select throws_ok($$select * from awa.configure_queue('cfg', '{"enqueue_shards": null}')$$,
                 'AW005', null, 'enqueue_shards null raises AW005');

select is(awa_test.row_counts(), (select c from before), 'the failed calls wrote nothing');

select * from finish();
rollback;
